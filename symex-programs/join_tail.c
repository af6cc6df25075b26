// A thread whose whole body is thread-local is joined; main writes after the
// join while another thread reads.
// expect: violation at line 18
// Reasoning: worker only computes locally; main joins it and then sets
// x = 1, which the reader can observe before its assertion (x == 0 fails).
// The worker's thread-local tail must not delay main's join.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x;

void *worker(void *arg) { long l = 5; l = l * 2; return (void *)l; }

void *reader(void *arg) {
  int v = x;
  /* the assertion below is line 18 */
  assert(v == 0);
  return 0;
}

int main(void) {
  pthread_t a, b;
  void *r;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, &r);
  x = (long)r == 10;
  return 0;
}
