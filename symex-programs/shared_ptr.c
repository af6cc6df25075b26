// A stack object shared through pthread_create's argument; a heap object
// shared through a global pointer.
// expect: violation at line 32
// Reasoning: the worker increments *arg (main's local) and *gp (heap) without
// a lock while main also updates the local; main's read after the join sees
// 2 or 1 for the local depending on the interleaving, so local == 2 can fail.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

#include <stdlib.h>
int *gp;

void *worker(void *arg) {
  int *p = arg;
  int t = *p;
  *p = t + 1;
  *gp = *gp + 1;
  return 0;
}

int main(void) {
  int local = 0;
  gp = malloc(sizeof(int));
  *gp = 0;
  pthread_t w;
  pthread_create(&w, 0, worker, &local);
  int t = local;
  local = t + 1;
  pthread_join(w, 0);
  assert(*gp == 1);
  assert(local == 2); /* ERR */
  free(gp);
  return 0;
}
