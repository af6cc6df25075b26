// A worker sums 0..n-1 where n is a global (10): the loop's trip count is
// read from memory, so it is not a constant the executor can see, and
// only deepening the loop bound completes the runs.
// expect: safe
// Reasoning: n is 10 and nobody writes it, so the worker computes
// 0 + 1 + ... + 9 == 45 and stores it under the lock before main's join;
// main then reads 45.  The loop runs 10 times: bounds 3 and 6 cut every
// run (inconclusive), 12 explores every run to its end: verified.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int n = 10;
int sum;

void *adder(void *arg) {
  int local = 0;
  for (int k = 0; k < n; k++)
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
