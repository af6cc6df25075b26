// readreadwrite v3 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

int x = 0;

void *reader(void *arg) {
  int a1 = x;
  int a2 = x;
  assert(a1 >= a2);
  int a3 = x;
  assert(a2 <= a3);
  return 0;
}

void *writer(void *arg) {
  x = x + 1;
  return 0;
}

int main(void) {
  pthread_t r, w1, w2;
  pthread_create(&r, 0, reader, 0);
  pthread_create(&w1, 0, writer, 0);
  pthread_create(&w2, 0, writer, 0);
  pthread_join(r, 0);
  pthread_join(w1, 0);
  pthread_join(w2, 0);
  return 0;
}
