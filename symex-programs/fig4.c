// Paper (assertion-guided symex) Fig. 4 as C: two threads, each doing two
// atomic fetch-and-increments (on x, then on y) and branching on the value
// read.  x and y start as symbolic inputs, so every branch on a value read
// before the other thread's increment is a b-PP.
// expect: safe
// Reasoning: the program has no assertion (the figure is about run counts),
// so no execution can fail; the paper reports 54 / 34 / 18 / 13 runs for
// none / POR / AG / POR+AG.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x, y;
int x0;

void *t1(void *arg) {
  int a, c = 0;
  __VERIFIER_atomic_begin(); a = x++; __VERIFIER_atomic_end();
  if (a == 0) c += 1; else c += 2;
  __VERIFIER_atomic_begin(); a = y++; __VERIFIER_atomic_end();
  if (a == 0) c += 3; else c += 4;
  return (void *)(long)c;
}

void *t2(void *arg) {
  int b, d = 0;
  __VERIFIER_atomic_begin(); b = x++; __VERIFIER_atomic_end();
  if (b == 0) d += 1; else d += 2;
  __VERIFIER_atomic_begin(); b = y++; __VERIFIER_atomic_end();
  if (b == 0) d += 3; else d += 4;
  return (void *)(long)d;
}

int main(void) {
  pthread_t p1, p2;
  x = __VERIFIER_nondet_int();
  y = __VERIFIER_nondet_int();
  __VERIFIER_atomic_begin();
  pthread_create(&p1, 0, t1, 0);
  pthread_create(&p2, 0, t2, 0);
  __VERIFIER_atomic_end();
  return 0;
}
