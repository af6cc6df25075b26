// Directed mode, old version: a worker sorts a nondeterministic input into
// two classes; main checks the class after joining.  x is 1 or 2, never 3:
// the assertion holds on both paths (v > 10 and v <= 10).
#include <pthread.h>
#include <assert.h>

extern int __VERIFIER_nondet_int(void);

int x = 0;

void *classify(void *arg) {
  int v = __VERIFIER_nondet_int();
  if (v > 10)
    x = 1;
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
