// Reorder (in the style of SV-COMP reorder_2): a setter writes a then b,
// a checker reads a then b.
// expect: violation at line 21
// Reasoning: the checker can read a == 1 (after the first write) and b == 0
// (before the second write): neither (0,0) nor (1,-1), so the assertion fails.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int a, b;

void *set(void *arg) {
  a = 1;
  b = -1;
  return 0;
}

void *check(void *arg) {
  int la = a;
  int lb = b;
  assert((la == 0 && lb == 0) || (la == 1 && lb == -1) || (la == 0 && lb == -1)); /* ERR */
  return 0;
}

int main(void) {
  pthread_t s, c;
  pthread_create(&s, 0, set, 0);
  pthread_create(&c, 0, check, 0);
  pthread_join(s, 0);
  pthread_join(c, 0);
  return 0;
}
