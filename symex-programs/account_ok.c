// Bank account with every update under the mutex; symbolic initial balance.
// expect: safe
// Reasoning: the two updates are serialised by the mutex and commute, so the
// final balance is init + 10 - 5 for every input in [0, 100].
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int balance;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *deposit(void *arg) {
  pthread_mutex_lock(&m);
  balance = balance + 10;
  pthread_mutex_unlock(&m);
  return 0;
}

void *withdraw(void *arg) {
  pthread_mutex_lock(&m);
  balance = balance - 5;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  int init = __VERIFIER_nondet_int();
  __VERIFIER_assume(init >= 0 && init <= 100);
  balance = init;
  pthread_t d, w;
  pthread_create(&d, 0, deposit, 0);
  pthread_create(&w, 0, withdraw, 0);
  pthread_join(d, 0);
  pthread_join(w, 0);
  assert(balance == init + 5);
  return 0;
}
