#include <pthread.h>
#include <assert.h>

int x = 0;
int y = 0;
int first_x = 0;
int later_x = 0;
int first_y = 0;
int later_y = 0;

void *thread1(void *arg) {
  int a;
  a = x++;            // a1
  if (a == 0)         // a2
    first_x = 1;      // A1
  else
    later_x = 1;
  a = y++;            // a3
  if (a == 0)         // a4
    first_y = 1;      // A2
  else
    later_y = 1;
  return 0;
}

void *thread2(void *arg) {
  int b;
  b = x++;            // b1
  if (b == 0)         // b2
    first_x = 2;      // B1
  else
    later_x = 2;
  b = y++;            // b3
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
