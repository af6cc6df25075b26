// A symbolic index passed to a thread writes past the end of an array.
// expect: violation at line 14
// Reasoning: idx is only constrained to 0..4 but buf has 4 elements, so
// idx == 4 writes out of bounds (a memory-error finding).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int buf[4];
int idx;

void *writer(void *arg) {
  int i = idx;
  buf[i] = 1; /* ERR */
  return 0;
}

int main(void) {
  idx = __VERIFIER_nondet_int();
  __VERIFIER_assume(idx >= 0 && idx <= 4);
  pthread_t w;
  pthread_create(&w, 0, writer, 0);
  pthread_join(w, 0);
  return 0;
}
