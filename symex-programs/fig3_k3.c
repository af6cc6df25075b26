// Paper (assertion-guided symex) Fig. 3 generalised to k=3 independent segments.
// expect: safe
// Segment i: T1 reads a_i = x_i and branches on a_i > 0 (the branch only
// updates a thread-local counter, outside the slice of the assertion);
// T2 writes x_i = 10.  x_i starts at 0, so a_i is 0 or 10 and the
// assertion a_i <= 10 holds in every interleaving.  The order of the two
// accesses of each segment is independent of the other segments: 2^k
// Mazurkiewicz traces (DPOR), C(2k,k) interleavings (baseline).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x1;
int x2;
int x3;

void *t1(void *arg) {
  int local = 0;
  int a1 = x1;
  if (a1 > 0) local++;
  int a2 = x2;
  if (a2 > 0) local++;
  int a3 = x3;
  if (a3 > 0) local++;
  assert(a1 <= 10 && a2 <= 10 && a3 <= 10);
  return (void *)(long)local;
}

void *t2(void *arg) {
  x1 = 10;
  x2 = 10;
  x3 = 10;
  return 0;
}

int main(void) {
  pthread_t p1, p2;
  __VERIFIER_atomic_begin();
  pthread_create(&p1, 0, t1, 0);
  pthread_create(&p2, 0, t2, 0);
  __VERIFIER_atomic_end();
  return 0;
}
