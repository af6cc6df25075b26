// A thread pool in a variable-length array, each worker adding under a lock.
// expect: safe
// Reasoning: n = 3 workers are created into pthread_t pool[n] and joined;
// every increment holds the mutex, so no update is lost and total == 3
// after the joins.  The pool size comes from a computation, not a constant,
// so the array is a VLA (a dynamic alloca).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int total;

void *work(void *arg) {
  pthread_mutex_lock(&m);
  total++;
  pthread_mutex_unlock(&m);
  return 0;
}

int pool_size(int argc) { return argc + 2; }

int main(int argc, char **argv) {
  int n = pool_size(argc);
  pthread_t pool[n];
  for (int i = 0; i < n; i++)
    pthread_create(&pool[i], 0, work, 0);
  for (int i = 0; i < n; i++)
    pthread_join(pool[i], 0);
  assert(total == n);
  return 0;
}
