// The SV-COMP fib_bench form of the needle, 20 iterations: two threads each
// add the other's variable 20 times in atomic sections (SV-COMP fib_bench), and main reads i and j while
// they run (no join).
// expect: violation at line 48
// Reasoning: i and j start at 1 and only grow; only t1 writes i, only t2
// writes j, so an update reads its own variable's current value and the
// other's current or an older one.  With F(1) = F(2) = 1, F(k+2) = F(k+1)
// + F(k): after s updates max(i, j) <= F(s+2), with equality only when the
// updates so far strictly alternate and each read the other's latest value.
// 267914296 = F(2*20+2) is reached only after all 2*20 updates: by j when the
// alternation starts with t1 (t2 writes last: i=2, j=3, i=5, ..., j=267914296),
// by i when it starts with t2 (t1 writes last); the other variable then
// holds F(2*20+1) = 165580141 < 267914296.  So reach_error is reached exactly when
// the updates strictly alternate (each reading the other's latest value)
// and main's read of the variable written last comes after all 2*20
// updates; in particular main's checks must wait for both threads (each update is one atomic section, each of main's reads another).
// Two orders of the updates (t1 first or t2 first), each with main's
// read late: the needle.  Both loops have the constant trip count 20: they
// run to their end under every loop bound.
#include <pthread.h>
#include "concord.h"

int i = 1, j = 1;

void *t1(void *arg) {
  for (int k = 0; k < 20; k++)
    __VERIFIER_atomic_begin(), i = i + j, __VERIFIER_atomic_end();
  return 0;
}

void *t2(void *arg) {
  for (int k = 0; k < 20; k++)
    __VERIFIER_atomic_begin(), j = j + i, __VERIFIER_atomic_end();
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  __VERIFIER_atomic_begin();
  int ci = i >= 267914296;
  __VERIFIER_atomic_end();
  __VERIFIER_atomic_begin();
  int cj = j >= 267914296;
  __VERIFIER_atomic_end();
  if (ci || cj)
    reach_error(); /* ERR */
  return 0;
}
