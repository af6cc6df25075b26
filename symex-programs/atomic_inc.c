// Increments inside __VERIFIER_atomic_ functions and atomic sections.
// expect: safe
// Reasoning: each increment runs atomically, so no update is lost and the
// counter is 3 after the joins.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int c;

void __VERIFIER_atomic_inc(void) {
  int t = c;
  c = t + 1;
}

void *worker(void *arg) {
  __VERIFIER_atomic_inc();
  return 0;
}

void *worker2(void *arg) {
  __VERIFIER_atomic_begin();
  int t = c;
  c = t + 1;
  __VERIFIER_atomic_end();
  return 0;
}

int main(void) {
  pthread_t a, b, d;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_create(&d, 0, worker2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(d, 0);
  assert(c == 3);
  return 0;
}
