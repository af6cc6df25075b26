// fibbench v3 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

int i = 1, j = 1;

void *t1(void *arg) {
  for (int k = 0; k < 2; k++)
    i += j;
  return 0;
}

void *t2(void *arg) {
  for (int k = 0; k < 2; k++)
    j += i;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(i < 8 && j < 8);
  return 0;
}
