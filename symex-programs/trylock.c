// trylock: the worker only updates when it gets the lock.
// expect: violation at line 26
// Reasoning: when main holds the mutex, the worker's trylock fails (EBUSY)
// and it skips the update; main then sees done == 0 after the join.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int done;

void *worker(void *arg) {
  if (pthread_mutex_trylock(&m) == 0) {
    done = 1;
    pthread_mutex_unlock(&m);
  }
  return 0;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, 0, worker, 0);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  pthread_join(w, 0);
  assert(done == 1); /* ERR */
  return 0;
}
