// Lazy initialisation done under a mutex, data written before the flag.
// expect: safe
// Reasoning: both threads test-and-initialise under the same mutex and obj
// is written before ready, so whoever sees ready == 1 also sees obj == 42.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int ready;
int obj;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *get(void *arg) {
  pthread_mutex_lock(&m);
  if (!ready) {
    obj = 42;
    ready = 1;
  }
  int v = obj;
  pthread_mutex_unlock(&m);
  assert(v == 42);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, get, 0);
  pthread_create(&b, 0, get, 0);
  return 0;
}
