// Producer/consumer where the consumers test the condition with `if`
// instead of `while` (two consumers, one item).
// expect: violation at line 30
// Reasoning: consumer A waits; the producer fills the slot and signals A;
// before A re-acquires the mutex, consumer B takes the item (full = 0).  A
// then resumes without re-checking and finds the slot empty.
// expect: deadlock
// Reasoning: both consumers can wait before the producer runs; its single
// signal wakes one of them and the other waits forever.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int full;

void *producer(void *arg) {
  pthread_mutex_lock(&m);
  full = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
  if (!full)
    pthread_cond_wait(&cv, &m);
  assert(full == 1); /* ERR */
  full = 0;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t p, c1, c2;
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  return 0;
}
