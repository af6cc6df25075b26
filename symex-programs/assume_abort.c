// abort() inside an assume helper means "assume false", not an error.
// expect: safe
// Reasoning: assume_abort_if_not(v < 10) cuts every path with v >= 10, so
// the assertion v < 10 in the thread always holds.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

#include <stdlib.h>
void assume_abort_if_not(int cond) {
  if (!cond)
    abort();
}

int v;

void *t(void *arg) {
  int l = v;
  assert(l < 10);
  return 0;
}

int main(void) {
  int in = __VERIFIER_nondet_int();
  assume_abort_if_not(in < 10);
  v = in;
  pthread_t a;
  pthread_create(&a, 0, t, 0);
  pthread_join(a, 0);
  return 0;
}
