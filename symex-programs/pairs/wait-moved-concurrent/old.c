// wait-moved's OLD with five unrelated mix threads running alongside the
// hand-off (README): the consumer waits only while the flag is not set.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int ready;
int data;
int y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
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
    pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  assert(data == 42);
  return 0;
}

void *mix(void *arg) {
  int id = (int)(long)arg;
  pthread_mutex_lock(&n);
  y = y * 3 + id;
  pthread_mutex_unlock(&n);
  return 0;
}

int main(void) {
  pthread_t p, q, c, d, e, f, g;
  pthread_create(&q, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, mix, (void *)1);
  pthread_create(&d, 0, mix, (void *)2);
  pthread_create(&e, 0, mix, (void *)3);
  pthread_create(&f, 0, mix, (void *)4);
  pthread_create(&g, 0, mix, (void *)5);
  pthread_join(p, 0);
  pthread_join(q, 0);
  pthread_join(c, 0);
  pthread_join(d, 0);
  pthread_join(e, 0);
  pthread_join(f, 0);
  pthread_join(g, 0);
  assert(y <= 547);
  return 0;
}
