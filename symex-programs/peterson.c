// Peterson's mutual exclusion for two threads (busy waiting is bounded by
// --loop-bound; paths past the bound are cut, not reported).
// bound: 1 (busy waiting: a loop bound of 1 keeps the baseline exploration small)
// expect: safe
// verdict: inconclusive (the busy-wait loop spins past every bound: runs are cut)
// Reasoning: under sequential consistency Peterson's algorithm guarantees
// mutual exclusion, so inside the critical section in_cs is exactly 1.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int flag0, flag1, turn;
int in_cs;

void *p0(void *arg) {
  flag0 = 1;
  turn = 1;
  while (flag1 == 1 && turn == 1) {
  }
  in_cs++;
  assert(in_cs == 1);
  in_cs--;
  flag0 = 0;
  return 0;
}

void *p1(void *arg) {
  flag1 = 1;
  turn = 0;
  while (flag0 == 1 && turn == 0) {
  }
  in_cs++;
  assert(in_cs == 1);
  in_cs--;
  flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0);
  return 0;
}
