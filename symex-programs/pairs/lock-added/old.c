// Two unlocked increments of a shared counter (OLD: the race).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int c;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *inc(void *arg) {
  int tmp = c;
  c = tmp + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2);
  return 0;
}
