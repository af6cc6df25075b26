// The needle with 10 iterations per thread: two threads each add the
// other's variable 10 times (SV-COMP fib_bench style).
// expect: violation at line 46
// Reasoning: i and j start at 1 and only grow.  Write F(1) = F(2) = 1,
// F(k+2) = F(k+1) + F(k).  After s updates (of either thread, in any
// order) max(i, j) <= F(s+2), with equality only when the updates
// strictly alternate: the s-th update makes one variable the sum of both,
// and the sum is largest when the other variable was itself the last one
// updated (holding F(s+1)), i.e. when no thread ran twice in a row.  So
// after all 2*10 updates j == F(2*10+2) = 17711 exactly when the updates
// alternate and the last is t2's (t2 last means, with an even count, t1
// first): i=2, j=3, i=5, j=8, ...  Every other order leaves j below 17711,
// so the assertion fails on exactly one order of the 20 updates (the
// joins make main's check come after all of them).  Among the
// C(20,10) orders of the two threads' atomic sections this is one:
// the needle.  Both loops have the constant trip count 10, so they run to
// their end under every loop bound.
// (Not in symex-programs/ itself: the full explorations the test programs
// there get in every mode — `none` enumerates every order — do not end
// in a test's time.  tests/symex_needles.rs runs these with the default
// settings.)
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int i = 1, j = 1;

void *t1(void *arg) {
  for (int k = 0; k < 10; k++)
    __VERIFIER_atomic_begin(), i = i + j, __VERIFIER_atomic_end();
  return 0;
}

void *t2(void *arg) {
  for (int k = 0; k < 10; k++)
    __VERIFIER_atomic_begin(), j = j + i, __VERIFIER_atomic_end();
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(j < 17711); /* ERR */
  return 0;
}
