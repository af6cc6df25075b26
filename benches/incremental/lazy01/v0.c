// lazy01 v0 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
int data = 0;

void *thread1(void *arg) {
  pthread_mutex_lock(&mutex);
  data++;
  pthread_mutex_unlock(&mutex);
  return 0;
}

void *thread2(void *arg) {
  pthread_mutex_lock(&mutex);
  data += 2;
  pthread_mutex_unlock(&mutex);
  return 0;
}

void *thread3(void *arg) {
  pthread_mutex_lock(&mutex);
  if (data >= 3)
    assert(0);
  pthread_mutex_unlock(&mutex);
  return 0;
}

int main(void) {
  pthread_t t1, t2, t3;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_create(&t3, 0, thread3, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  pthread_join(t3, 0);
  return 0;
}
