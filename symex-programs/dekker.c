// Dekker-style flags: each thread raises its flag and enters only if the
// other flag is down; otherwise it backs off (no retry).
// expect: safe
// Reasoning: under sequential consistency, the later of the two flag writes
// is followed by a read that sees the other flag raised, so at most one
// thread enters; in_cs is 1 inside the critical section.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int flag0, flag1;
int in_cs;

void *p0(void *arg) {
  flag0 = 1;
  if (flag1 == 0) {
    in_cs++;
    assert(in_cs == 1);
    in_cs--;
  }
  flag0 = 0;
  return 0;
}

void *p1(void *arg) {
  flag1 = 1;
  if (flag0 == 0) {
    in_cs++;
    assert(in_cs == 1);
    in_cs--;
  }
  flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0);
  return 0;
}
