#include <pthread.h>
#include <assert.h>

int slots[4] = {0, 0, 0, 0};

void *producer(void *arg) {
  slots[1] = 7;
  slots[0] = 1;
  return 0;
}

void *consumer(void *arg) {
  int v = slots[1];
  slots[2] = v;
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, producer, 0);
  pthread_create(&t2, 0, consumer, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(slots[2] == 7);
  return 0;
}
