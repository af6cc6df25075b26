// init-moved-after-concurrent's NEW as OLD (README): the initialisation
// after the worker starts.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int config;
int out;
int y;
pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
  out = config * 2;
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
  pthread_t w, c, d, e, f, g;
  pthread_create(&w, 0, worker, 0);
  config = 21;
  pthread_create(&c, 0, mix, (void *)1);
  pthread_create(&d, 0, mix, (void *)2);
  pthread_create(&e, 0, mix, (void *)3);
  pthread_create(&f, 0, mix, (void *)4);
  pthread_create(&g, 0, mix, (void *)5);
  pthread_join(w, 0);
  pthread_join(c, 0);
  pthread_join(d, 0);
  pthread_join(e, 0);
  pthread_join(f, 0);
  pthread_join(g, 0);
  assert(out == 42);
  assert(y <= 547);
  return 0;
}
