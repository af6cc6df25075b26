#include <pthread.h>
#include <assert.h>

int x = 0;
int t = 0;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;

void *thread2(void *arg) {
  pthread_mutex_lock(&a);
  int r = x;          // L4
  t = r;
  x = r + 1;          // L5
  pthread_mutex_unlock(&a);
  return 0;
}

void *thread1(void *arg) {
  pthread_t h;
  t = 0;
  x = 1;              // L1
  pthread_create(&h, 0, thread2, 0);
  pthread_mutex_lock(&a);
  int y = x;          // L2
  int s = t;
  assert(s == 0 || y == 2);   // L3
  pthread_mutex_unlock(&a);
  pthread_join(h, 0);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_create(&t1, 0, thread1, 0);
  pthread_join(t1, 0);
  return 0;
}
