// The needle: two threads each add the other's variable five times
// (SV-COMP fib_bench style).
// expect: violation at line 34
// Reasoning: i and j start at 1.  A step i += j or j += i at best makes the
// larger of the two the sum of both, so the values follow the Fibonacci
// numbers only when the threads strictly alternate, starting with t1:
// i=2, j=3, i=5, j=8, i=13, j=21, i=34, j=55, i=89, j=144.  Any other order
// leaves both below 144, so j == 144 is reached by exactly one order of the
// ten updates: the assertion fails only there.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int i = 1, j = 1;

void *t1(void *arg) {
  for (int k = 0; k < 5; k++)
    __VERIFIER_atomic_begin(), i = i + j, __VERIFIER_atomic_end();
  return 0;
}

void *t2(void *arg) {
  for (int k = 0; k < 5; k++)
    __VERIFIER_atomic_begin(), j = j + i, __VERIFIER_atomic_end();
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(j < 144); /* ERR */
  return 0;
}
