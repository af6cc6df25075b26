// Ticket lock built on atomic fetch-and-add, protecting a counter.
// bound: 2 (spinning)
// expect: safe
// verdict: inconclusive (the busy-wait loop spins past every bound: runs are cut)
// Reasoning: each thread takes a unique ticket with an atomic increment and
// waits until now_serving equals it, so the critical sections are mutually
// exclusive and in_cs is 1 inside them; paths spinning past the bound are cut.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

unsigned next_ticket, now_serving;
int in_cs;

void *worker(void *arg) {
  unsigned my = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&now_serving, __ATOMIC_SEQ_CST) != my) {
  }
  in_cs++;
  assert(in_cs == 1);
  in_cs--;
  __atomic_fetch_add(&now_serving, 1, __ATOMIC_SEQ_CST);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  return 0;
}
