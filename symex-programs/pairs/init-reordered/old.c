// The worker reads the configuration main initialises (OLD: the
// initialisation runs after the worker starts).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int config;
int out;

void *worker(void *arg) {
  out = config * 2;
  return 0;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, 0, worker, 0);
  config = 21;
  pthread_join(w, 0);
  assert(out == 42);
  return 0;
}
