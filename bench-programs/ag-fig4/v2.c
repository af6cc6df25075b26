#include <pthread.h>
#include <assert.h>

int x = 0;
int y = 0;
int first_x = 0;
int later_x = 0;
int first_y = 0;
int later_y = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *thread1(void *arg) {
  int a;
  pthread_mutex_lock(&m);
  a = x++;            // a1
  pthread_mutex_unlock(&m);
  if (a == 0)         // a2
    first_x = 1;      // A1
  else
    later_x = 1;
  pthread_mutex_lock(&m);
  a = y++;            // a3
  pthread_mutex_unlock(&m);
  if (a == 0)         // a4
    first_y = 1;      // A2
  else
    later_y = 1;
  return 0;
}

void *thread2(void *arg) {
  int b;
  pthread_mutex_lock(&m);
  b = x++;            // b1
  pthread_mutex_unlock(&m);
  if (b == 0)         // b2
    first_x = 2;      // B1
  else
    later_x = 2;
  pthread_mutex_lock(&m);
  b = y++;            // b3
  pthread_mutex_unlock(&m);
  if (b == 0)         // b4
    first_y = 2;      // B2
  else
    later_y = 2;
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(x == 2);
  assert(y == 2);
  return 0;
}
