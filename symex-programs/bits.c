// LLVM bit intrinsics (__builtin_ctz, __builtin_popcount, __builtin_clz).
// expect: violation at line 16
// Reasoning: for x < 64 with ctz(x) == 4 the only value is x == 16 (bit 4
// set, bits 0-3 clear, bit 5 clear), or x == 48 (bits 4 and 5).  popcount
// of 16 is 1 and of 48 is 2, so "popcount(x) == 2" picks x == 48 and
// reach_error is reachable.  The first assertion is true for every x != 0
// (clz of a 32-bit value is at most 31).
#include <assert.h>
#include "concord.h"

int main(void) {
  unsigned x = __VERIFIER_nondet_uint();
  if (x == 0 || x >= 64)
    return 0;
  assert(__builtin_clz(x) <= 31);
  if (__builtin_ctz(x) == 4 && __builtin_popcount(x) == 2) reach_error();
  return 0;
}
