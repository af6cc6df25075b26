#include <pthread.h>
#include <assert.h>

int shared = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *writer(void *arg) {
  int *p = arg;
  *p = -1;
  *p = 10;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, &shared);
  int v = shared;
  assert(v != -1);
  pthread_join(t, 0);
  return 0;
}
