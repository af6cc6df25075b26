#include <pthread.h>
#include <assert.h>

int result = 0;

void compute(void) {
  result = 42;
}

void *worker(void *arg) {
  compute();
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  int r = result;
  assert(r == 42);
  return 0;
}
