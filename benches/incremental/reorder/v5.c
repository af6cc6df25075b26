// reorder v5 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

int a = 0, b = 0;

void *set(void *arg) {
  a = 2;
  return 0;
}

void *check(void *arg) {
  int x = a;
  int y = b;
  if (!(x == 0 && y == -1))
    assert((x == 0 && y == 0) || (x == 1 && y == -1) || (x == 1 && y == 0));
  return 0;
}

int main(void) {
  pthread_t s, c;
  pthread_create(&s, 0, set, 0);
  pthread_create(&c, 0, check, 0);
  pthread_join(s, 0);
  pthread_join(c, 0);
  assert(a == 2);
  return 0;
}
