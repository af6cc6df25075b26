// The needle without atomic sections: two threads each add the other's
// variable 20 times with plain loads and stores, and main checks j after
// joining both.
// expect: violation at line 47
// Reasoning: i and j start at 1 and only grow; only t1 writes i and only
// t2 writes j, so each thread reads its own variable's current value and
// the other's current or an older (smaller) one.  Write F(1) = F(2) = 1,
// F(k+2) = F(k+1) + F(k).  After s completed updates (stores) max(i, j)
// <= F(s+2): an update stores own + other <= the two largest values so
// far, and equality needs both to be the current values and the other
// variable to have been the one updated last.  So j == F(2*20+2) = 267914296
// after all 2*20 stores exactly when the updates strictly alternate, t1
// first and t2 last (i=2, j=3, i=5, j=8, ...), and each update reads the
// other variable after the other thread's preceding store (t2's load of i
// after t1's store of i, t1's load of j after t2's store of j).  In every
// other execution j < 267914296.  The failing schedule: t1 runs load i, load j,
// store i; then t2 load j, load i, store j; and so on, each update whole
// before the next thread starts its own (main's check after both joins).
// Every visible step is a load or a store of i or j (3 per update,
// 6*20 in all), so the one failing order of the updates is a needle among
// the interleavings of these steps.  Both loops have the constant trip
// count 20: they run to their end under every loop bound.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int i = 1, j = 1;

void *t1(void *arg) {
  for (int k = 0; k < 20; k++)
    i = i + j;
  return 0;
}

void *t2(void *arg) {
  for (int k = 0; k < 20; k++)
    j = j + i;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(j < 267914296); /* ERR */
  return 0;
}
