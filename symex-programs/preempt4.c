// A bug that needs four preemptions.
// expect: violation at line 22
// Reasoning: (r1,r2,r3) == (1,2,3) requires writer x=1 | reader r1 | writer
// x=2 | reader r2 | writer x=3 (finishes) | reader r3: four preemptions.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x;

void *writer(void *arg) {
  x = 1;
  x = 2;
  x = 3;
  return 0;
}

void *reader(void *arg) {
  int r1 = x;
  int r2 = x;
  int r3 = x;
  assert(!(r1 == 1 && r2 == 2 && r3 == 3)); /* ERR */
  return 0;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  return 0;
}
