// Directed mode, new version: the patch adds a third class (lines 16-17)
// on the else side of `v > 10`.  x = 3 when v < -10, so the assertion on
// line 27 fails on that path.
#include <pthread.h>
#include <assert.h>

extern int __VERIFIER_nondet_int(void);

int x = 0;

void *classify(void *arg) {
  int v = __VERIFIER_nondet_int();
  if (v > 10)
    x = 1;
  else
  if (v < -10)
    x = 3;
  else
    x = 2;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, classify, 0);
  pthread_join(t, 0);
  assert(x != 3);
  return 0;
}
