// lock-added-one-side's OLD with five unrelated mix threads running
// alongside the increments (README).
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int c;
int y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;

void *inc_a(void *arg) {
  int tmp = c;
  c = tmp + 1;
  return 0;
}

void *inc_b(void *arg) {
  int tmp = c;
  c = tmp + 1;
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
  pthread_t a, b, d, e, f, g, h;
  pthread_create(&a, 0, inc_a, 0);
  pthread_create(&b, 0, inc_b, 0);
  pthread_create(&d, 0, mix, (void *)1);
  pthread_create(&e, 0, mix, (void *)2);
  pthread_create(&f, 0, mix, (void *)3);
  pthread_create(&g, 0, mix, (void *)4);
  pthread_create(&h, 0, mix, (void *)5);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(d, 0);
  pthread_join(e, 0);
  pthread_join(f, 0);
  pthread_join(g, 0);
  pthread_join(h, 0);
  assert(c == 2);
  assert(y <= 547);
  return 0;
}
