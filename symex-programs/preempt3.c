// A bug that needs three preemptions.
// expect: violation at line 21
// Reasoning: (r1,r2,r3) == (0,1,2) requires reader: r1, preempt, writer: x=1,
// preempt, reader: r2, preempt, writer: x=2 (finishes), reader: r3.
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
  int r3 = x;
  assert(!(r1 == 0 && r2 == 1 && r3 == 2)); /* ERR */
  return 0;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  return 0;
}
