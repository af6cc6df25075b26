#include <pthread.h>
#include <assert.h>

int queue_len = 0;
int ops = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *putter(void *arg) {
  pthread_mutex_lock(&m);
  queue_len = queue_len + 1;
  pthread_mutex_unlock(&m);
  ops = ops + 1;
  return 0;
}

void *taker(void *arg) {
  pthread_mutex_lock(&m);
  queue_len = queue_len - 1;
  pthread_mutex_unlock(&m);
  ops = ops + 10;
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, putter, 0);
  pthread_create(&t2, 0, taker, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(ops == 11);
  return 0;
}
