#include <pthread.h>
#include <assert.h>

int buffer_size = 0;
int started = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;

void *worker(void *arg) {
  pthread_mutex_lock(&m);
  while (started == 0)
    pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  int s = buffer_size;
  assert(s == 64);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  buffer_size = 64;
  pthread_mutex_lock(&m);
  started = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
  return 0;
}
