#include <pthread.h>
#include <assert.h>

int shared = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *writer(void *arg) {
  int *p = arg;
  pthread_mutex_lock(&m);
  *p = -1;
  *p = 10;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, &shared);
  pthread_mutex_lock(&m);
  int v = shared;
  pthread_mutex_unlock(&m);
  assert(v != -1);
  pthread_join(t, 0);
  return 0;
}
