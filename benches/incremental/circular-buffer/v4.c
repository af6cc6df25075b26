// circular-buffer v4 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

#define N 3
#define ITEMS 3

char buf[N];
int head = 0, tail = 0, count = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int put(char c) {
  pthread_mutex_lock(&m);
  buf[tail] = c;
  tail = (tail + 1) % N;
  count++;
  pthread_mutex_unlock(&m);
  return 0;
}

int get(void) {
  pthread_mutex_lock(&m);
  if (count == 0) {
    pthread_mutex_unlock(&m);
    return -1;
  }
  char c = buf[head];
  head = (head + 1) % N;
  count--;
  pthread_mutex_unlock(&m);
  return c;
}

void *producer(void *arg) {
  for (int i = 0; i < ITEMS; i++)
    put('a' + i);
  return 0;
}

/* Items come out in the order they went in. */
void *consumer(void *arg) {
  int received = 0;
  for (int i = 0; i < ITEMS; i++) {
    int c = get();
    if (c >= 0) {
      assert(c == 'a' + received);
      received++;
    }
  }
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
