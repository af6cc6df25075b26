#include <pthread.h>
#include <assert.h>

int config = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *reader(void *arg) {
  pthread_mutex_lock(&m);
  int c = config;
  pthread_mutex_unlock(&m);
  assert(c == 3);
  return 0;
}

int main(void) {
  pthread_t t;
  config = 3;
  pthread_create(&t, 0, reader, 0);
  pthread_join(t, 0);
  return 0;
}
