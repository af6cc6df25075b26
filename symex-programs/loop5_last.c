// A bug that needs the last of five loop iterations.
// expect: violation at line 16
// Reasoning: the worker writes a[k] = k for k = 0..4; at k == 4 the check
// reads a[0] + a[4] == 0 + 4 == 4 and fails.  It needs the loop body's fifth
// entry, so the default first bound (3) cuts every run before it and only
// iterative deepening (3, 6) reaches it.  The main thread only joins.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int a[5];

void *worker(void *arg) {
  for (int k = 0; k < 5; k++) {
    a[k] = k;
    if (k == 4) assert(a[0] + a[4] != 4);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return 0;
}
