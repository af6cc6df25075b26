#include <pthread.h>
#include <assert.h>

int x = 0;
int y = 0;
int cBool = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;

void *thread1(void *arg) {
  pthread_mutex_lock(&m);
  while (cBool == 0)
    pthread_cond_wait(&c, &m);
  int t = x;          // L1
  assert(t == 1);     // L2
  y = 1;              // L3
  pthread_mutex_unlock(&m);
  return 0;
}

void *thread2(void *arg) {
  int s = y;          // L4
  x = s + 1;          // L5
  pthread_mutex_lock(&m);
  cBool = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
