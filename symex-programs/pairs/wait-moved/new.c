// Producer/consumer hand-off: the consumer waits while the flag is not
// set (NEW: the wait moved after its guard).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int ready;
int data;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

void *producer(void *arg) {
  data = 42;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
  if (!ready)
    ;
  pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t p, q;
  pthread_create(&q, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  return 0;
}
