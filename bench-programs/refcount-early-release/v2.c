#include <pthread.h>
#include <assert.h>

int refcount = 1;
int destroyed = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void ref_get(void) {
  pthread_mutex_lock(&m);
  int n = refcount;
  refcount = n + 1;
  pthread_mutex_unlock(&m);
}

void ref_put(void) {
  pthread_mutex_lock(&m);
  int k = refcount;
  refcount = k - 1;
  if (k == 1)
    destroyed = 1;
  pthread_mutex_unlock(&m);
}

void *worker(void *arg) {
  int d = destroyed;
  assert(d == 0);
  ref_put();
  return 0;
}

int main(void) {
  pthread_t t;
  ref_get();
  pthread_create(&t, 0, worker, 0);
  ref_put();
  pthread_join(t, 0);
  return 0;
}
