// Symbolic inputs with __VERIFIER_assume; the error needs a specific input
// and a specific interleaving.
// expect: violation at line 35
// Reasoning: n is in [1,4]; the two threads add n and 2 to x (racy, x starts
// at 1).  x == 7 is reachable with n == 4 when both updates survive
// (1 + 4 + 2); lost updates give 1 + 4 or 1 + 2.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x = 1;
int n;

void *add_n(void *arg) {
  int t = x;
  x = t + n;
  return 0;
}

void *add_2(void *arg) {
  int t = x;
  x = t + 2;
  return 0;
}

int main(void) {
  n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n > 0 && n < 5);
  pthread_t a, b;
  pthread_create(&a, 0, add_n, 0);
  pthread_create(&b, 0, add_2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (x == 7)
    __VERIFIER_error(); /* ERR */
  return 0;
}
