#include <pthread.h>
#include <assert.h>

int total = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void add_points(int base) {
  pthread_mutex_lock(&m);
  int t = total;
  t = t + base * 3;
  total = t;
  pthread_mutex_unlock(&m);
}

void *thread1(void *arg) {
  add_points(1);
  return 0;
}

void *thread2(void *arg) {
  add_points(2);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(total > 0);
  return 0;
}
