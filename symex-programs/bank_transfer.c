// Accounts with embedded mutexes; each transfer locks its two accounts in
// index order.  The amount of the first transfer is a symbolic input.
// expect: safe
// Reasoning: both transfers lock the lower-indexed account first, so they
// cannot deadlock, and each moves money under both locks, so the total is
// conserved: 100 + 100 + 100 after both joins.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

struct account {
  pthread_mutex_t lock;
  int balance;
};

struct account acc[3];
int amount;

void transfer(int from, int to, int value) {
  int lo = from < to ? from : to;
  int hi = from < to ? to : from;
  pthread_mutex_lock(&acc[lo].lock);
  pthread_mutex_lock(&acc[hi].lock);
  acc[from].balance -= value;
  acc[to].balance += value;
  pthread_mutex_unlock(&acc[hi].lock);
  pthread_mutex_unlock(&acc[lo].lock);
}

void *t1(void *arg) {
  transfer(0, 2, (int)(long)arg);
  return 0;
}

void *t2(void *arg) {
  transfer(2, 1, 10);
  return 0;
}

int main(void) {
  int v;
  concord_symbolic(&v, sizeof v, "amount");
  __VERIFIER_assume(v >= 0 && v <= 50);
  for (int i = 0; i < 3; i++) {
    pthread_mutex_init(&acc[i].lock, 0);
    acc[i].balance = 100;
  }
  pthread_t a, b;
  pthread_create(&a, 0, t1, (void *)(long)v);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(acc[0].balance + acc[1].balance + acc[2].balance == 300);
  return 0;
}
