#include <pthread.h>
#include <assert.h>

int item = 0;
int ready = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *producer(void *arg) {
  pthread_mutex_lock(&m);
  item = 7;
  ready = 1;
  pthread_mutex_unlock(&m);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
  int v = item;
  pthread_mutex_unlock(&m);
  assert(v == 7);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, producer, 0);
  pthread_create(&t2, 0, consumer, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
