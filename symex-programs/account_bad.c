// Bank account with an unprotected withdrawal (account_bad style).  The
// initial balance is a symbolic input.
// expect: violation at line 34
// Reasoning: deposit and withdraw both read-modify-write balance; when their
// reads interleave one update is lost, so balance != initial + 10 - 5.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int balance;

void *deposit(void *arg) {
  int b = balance;
  balance = b + 10;
  return 0;
}

void *withdraw(void *arg) {
  int b = balance;
  balance = b - 5;
  return 0;
}

int main(void) {
  int init;
  concord_symbolic(&init, sizeof init, "init");
  __VERIFIER_assume(init >= 0 && init <= 100);
  balance = init;
  pthread_t d, w;
  pthread_create(&d, 0, deposit, 0);
  pthread_create(&w, 0, withdraw, 0);
  pthread_join(d, 0);
  pthread_join(w, 0);
  assert(balance == init + 5); /* ERR */
  return 0;
}
