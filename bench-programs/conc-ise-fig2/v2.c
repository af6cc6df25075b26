#include <pthread.h>
#include <assert.h>

int x = 15;
int y = 5;
int a = 0;
int b = 0;

void *thread1(void *arg) {
  a = x;              // L1
  y = 10;             // L2
  return 0;
}

void *thread2(void *arg) {
  x = 5;              // L4 (modified)
  b = y;              // L5
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(a >= 10);    // L6
  assert(b >= 5);
  return 0;
}
