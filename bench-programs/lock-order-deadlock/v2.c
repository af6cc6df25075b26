#include <pthread.h>
#include <assert.h>

int count = 0;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

void *thread1(void *arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  count = count + 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return 0;
}

void *thread2(void *arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  count = count + 2;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(count == 3);
  return 0;
}
