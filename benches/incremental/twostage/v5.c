// twostage v5 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
int data1 = 0, data2 = 0;

/* Two stages, each under its own lock: not atomic as a whole. */
void *writer(void *arg) {
  pthread_mutex_lock(&m1);
  data1 = 1;
  pthread_mutex_unlock(&m1);
  pthread_mutex_lock(&m2);
  data2 = data1 + 2;
  pthread_mutex_unlock(&m2);
  return 0;
}

void *reader(void *arg) {
  pthread_mutex_lock(&m1);
  int a = data1;
  pthread_mutex_unlock(&m1);
  pthread_mutex_lock(&m2);
  int b = data2;
  pthread_mutex_unlock(&m2);
  if (a > 0)
    assert(b == 0 || b == a + 1);
  return 0;
}

int main(void) {
  pthread_t w, r1, r2;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r1, 0, reader, 0);
  pthread_create(&r2, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r1, 0);
  pthread_join(r2, 0);
  return 0;
}
