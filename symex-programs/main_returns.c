// main returns while the worker still runs; the worker keeps running.
// expect: violation at line 14
// Reasoning: main sets stop = 1 and returns; the worker, still running
// afterwards, can read stop == 1 (a worker killed at main's return could not).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int stop;

void *worker(void *arg) {
  int s = stop;
  if (s)
    reach_error(); /* ERR */
  return 0;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, 0, worker, 0);
  stop = 1;
  return 0;
}
