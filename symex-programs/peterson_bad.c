// Broken Peterson: each thread gives the turn to itself instead of the
// other thread.
// bound: 1 (busy waiting: a loop bound of 1 keeps the baseline exploration small)
// expect: violation at line 21, 33
// Reasoning: p0 sets flag0 and turn = 0; p1 sets flag1 and then turn = 1
// after p0 passed its check (flag1 was still 0); p1's check sees turn == 1
// and also passes, so both are in the critical section and in_cs == 2.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int flag0, flag1, turn;
int in_cs;

void *p0(void *arg) {
  flag0 = 1;
  turn = 0;
  while (flag1 == 1 && turn == 1) {
  }
  in_cs++;
  assert(in_cs == 1); /* ERR */
  in_cs--;
  flag0 = 0;
  return 0;
}

void *p1(void *arg) {
  flag1 = 1;
  turn = 1;
  while (flag0 == 1 && turn == 0) {
  }
  in_cs++;
  assert(in_cs == 1); /* ERR */
  in_cs--;
  flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0);
  return 0;
}
