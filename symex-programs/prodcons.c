// One-slot producer/consumer with a condition variable.
// expect: safe
// Reasoning: the consumer waits while the slot is empty, the producer fills
// it and signals under the mutex; the consumer then reads the produced 5.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m;
pthread_cond_t cv;
int full;
int slot;

void *producer(void *arg) {
  pthread_mutex_lock(&m);
  slot = 5;
  full = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
  while (!full)
    pthread_cond_wait(&cv, &m);
  int v = slot;
  full = 0;
  pthread_mutex_unlock(&m);
  assert(v == 5);
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_mutex_init(&m, 0);
  pthread_cond_init(&cv, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  pthread_cond_destroy(&cv);
  pthread_mutex_destroy(&m);
  return 0;
}
