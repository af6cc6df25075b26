#include <pthread.h>
#include <assert.h>

int x = 0;

void *thread2(void *arg) {
  x = 5;
  return 0;
}

void *thread1(void *arg) {
  pthread_t h;
  pthread_create(&h, 0, thread2, 0);
  int t1 = x;
  assert(t1 == 0);
  pthread_join(h, 0);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, thread1, 0);
  pthread_join(t, 0);
  return 0;
}
