#include <pthread.h>
#include <assert.h>

int x = 0;

void *thread1(void *arg) {
  x = 1;              // L1
  int t = x;          // L2
  assert(t != 2);     // L3
  return 0;
}

void *thread2(void *arg) {
  x = 3;              // L4
  x = 2;              // L5
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
