// A worker sums 0..9 in a local loop, then publishes the result under a
// lock; main checks it after the join.  Correct, and complete once the loop
// bound reaches 10.
// expect: safe
// Reasoning: 0 + 1 + ... + 9 == 45 and the store happens before the join,
// so main reads 45.  The loop has exactly 10 iterations: bounds 3 and 6 cut
// every run (inconclusive), 12 explores every run to its end, so the
// verdict is verified, never "safe" on cut runs.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int sum;

void *adder(void *arg) {
  int local = 0;
  for (int k = 0; k < 10; k++)
    local += k;
  pthread_mutex_lock(&m);
  sum = local;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t a;
  pthread_create(&a, 0, adder, 0);
  pthread_join(a, 0);
  pthread_mutex_lock(&m);
  assert(sum == 45);
  pthread_mutex_unlock(&m);
  return 0;
}
