// The paper's Fig. 2 with the guard changed from x <= 10 to x <= 11
// (Section 2: "our method would have to explore Run 5 instead of skipping it").
// expect: violation at line 25
// Reasoning: with V == 11 the guard holds, T2 reads a = V = 11, T1 writes
// x = 10, T2 reads b = 10 (then T1 writes 20): a > b and the assertion fails.
#include <pthread.h>
#include <assert.h>
#include <stdlib.h>
#include "concord.h"

int x;

void *t1(void *arg) {
  long v = (long)arg;
  if (v <= 11) {
    x = 10;
    x = 20;
  }
  return 0;
}

void *t2(void *arg) {
  int a = x;
  int b = x;
  assert(a <= b); /* ERR */
  return 0;
}

int main(void) {
  pthread_t p1, p2;
  int v = __VERIFIER_nondet_int();
  __VERIFIER_assume(v <= 11);
  x = v;
  __VERIFIER_atomic_begin();
  pthread_create(&p1, 0, t1, (void *)(long)v);
  pthread_create(&p2, 0, t2, 0);
  __VERIFIER_atomic_end();
  return 0;
}
