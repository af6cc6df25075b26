// Racy counter: two threads increment a shared counter without a lock.
// expect: violation at line 23
// Reasoning: both threads may read c == 0 before either writes back, so the
// final value can be 1 and the assertion in main fails (one preemption).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int c;

void *inc(void *arg) {
  int tmp = c;
  c = tmp + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2); /* ERR */
  return 0;
}
