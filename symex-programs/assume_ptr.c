// __VERIFIER_assume(ptr): the pointer converted to int must be non-zero
// for a real allocation; then a racy hand-off through the heap.
// expect: violation at line 27
// Reasoning: malloc returns a non-NULL pointer, so assume(p) (an implicit
// pointer-to-int conversion) holds and the program goes on.  The worker
// writes *p = 42 without synchronisation; main may read *p before it, so
// the value 0 is possible at the assertion.
#include <pthread.h>
#include <assert.h>
#include <stdlib.h>
#include "concord.h"

int *p;

void *worker(void *arg) {
  *p = 42;
  return 0;
}

int main(void) {
  p = malloc(sizeof(int));
  __VERIFIER_assume((long)p);
  *p = 0;
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  int v = *p;
  assert(v == 42); /* ERR */
  pthread_join(t, 0);
  return 0;
}
