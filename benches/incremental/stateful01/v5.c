// stateful01 v5 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t mb = PTHREAD_MUTEX_INITIALIZER;
int data1 = 10, data2 = 10;

void *thread1(void *arg) {
  pthread_mutex_lock(&ma);
  data1++;
  pthread_mutex_unlock(&ma);
  pthread_mutex_lock(&mb);
  pthread_mutex_unlock(&mb);
  return 0;
}

void *thread2(void *arg) {
  pthread_mutex_lock(&ma);
  data1 += 5;
  pthread_mutex_unlock(&ma);
  pthread_mutex_lock(&mb);
  data2 -= 4;
  pthread_mutex_unlock(&mb);
  data1 = data1 + 1;
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  if (data1 == 17)
    assert(0);
  return 0;
}
