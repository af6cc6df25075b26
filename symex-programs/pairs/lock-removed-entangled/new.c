// lock-removed-concurrent's NEW with one check entangling the two groups
// of threads: the assertion reads x and y together (README).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int x;
int y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;

void *inc1(void *arg) {
  pthread_mutex_lock(&m);
  int t = x;
  x = t + 1;
  pthread_mutex_unlock(&m);
  return 0;
}

void *inc2(void *arg) {
  int t = x;
  x = t + 1;
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
  pthread_t a, b, c, d, e, f, g;
  pthread_create(&a, 0, inc1, 0);
  pthread_create(&b, 0, inc2, 0);
  pthread_create(&c, 0, mix, (void *)1);
  pthread_create(&d, 0, mix, (void *)2);
  pthread_create(&e, 0, mix, (void *)3);
  pthread_create(&f, 0, mix, (void *)4);
  pthread_create(&g, 0, mix, (void *)5);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  pthread_join(d, 0);
  pthread_join(e, 0);
  pthread_join(f, 0);
  pthread_join(g, 0);
  assert(!(x == 1 && y == 547));
  return 0;
}
