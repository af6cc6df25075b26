// A bug that needs two preemptions.
// expect: violation at line 20
// Reasoning: r1 == 1 && r2 == 2 requires writer: x=1, preempt, reader: r1,
// preempt, writer: x=2 (then it finishes), reader: r2.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x;

void *writer(void *arg) {
  x = 1;
  x = 2;
  return 0;
}

void *reader(void *arg) {
  int r1 = x;
  int r2 = x;
  assert(!(r1 == 1 && r2 == 2)); /* ERR */
  return 0;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  return 0;
}
