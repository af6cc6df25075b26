// Paper (assertion-guided symex) Fig. 2 as C.
// expect: safe
// T1 writes x=10 then x=20, but only when the initial value V of x is <= 10
// (the main thread assumes V <= 10, so the else side is infeasible, as in the
// paper's figure).  T2 reads a=x then b=x and asserts a <= b.  The reads see
// V, 10 or 20 in program order, and V <= 10 <= 20, so a <= b always holds.
// Runs: the 6 interleavings of {x=10,x=20} with {a=x,b=x}.  The threads are
// created inside an atomic section so that main adds no interleavings.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x;

void *t1(void *arg) {
  long v = (long)arg;   /* local copy of V: the branch is thread-local */
  if (v <= 10) {
    x = 10;
    x = 20;
  }
  return 0;
}

void *t2(void *arg) {
  int a = x;
  int b = x;
  assert(a <= b);
  return 0;
}

int main(void) {
  pthread_t p1, p2;
  int v = __VERIFIER_nondet_int();
  __VERIFIER_assume(v <= 10);
  x = v;
  __VERIFIER_atomic_begin();
  pthread_create(&p1, 0, t1, (void *)(long)v);
  pthread_create(&p2, 0, t2, 0);
  __VERIFIER_atomic_end();
  return 0;
}
