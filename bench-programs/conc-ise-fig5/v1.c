#include <pthread.h>
#include <assert.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int a;
  int b;
  if (x > 0)          // L1
    a = x + 1;        // L2
  else                // L3
    a = x - 2;        // L4
  if (y > 0)          // L5
    b = a + 1;        // L6
  else                // L7
    b = a - 1;        // L8
  assert(b != 0);     // L9
  return 0;
}
