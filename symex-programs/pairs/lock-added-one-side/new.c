// Two increments of a shared counter by two different functions (NEW: a
// lock added in one of them only: the fix is partial).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int c;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *inc_a(void *arg) {
  pthread_mutex_lock(&m);
  int tmp = c;
  c = tmp + 1;
  pthread_mutex_unlock(&m);
  return 0;
}

void *inc_b(void *arg) {
  int tmp = c;
  c = tmp + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, inc_a, 0);
  pthread_create(&b, 0, inc_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2);
  return 0;
}
