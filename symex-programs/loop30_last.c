// A bug in the last of thirty iterations of a constant-count loop.
// expect: violation at line 18
// Reasoning: the worker stores k into a[k % 4] for k = 0..29 and checks,
// at k == 29 only, that a[29 % 4] == a[1] is not 29.  It is 29 exactly
// then, so the assertion fails, and only in the 30th iteration.  The loop
// has the constant trip count 30, so it runs to its end under any loop
// bound (no deepening needed, `// bound: 2` shows it).
// bound: 2
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int a[4];

void *worker(void *arg) {
  for (int k = 0; k < 30; k++) {
    a[k % 4] = k;
    if (k == 29) assert(a[1] != 29);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return 0;
}
