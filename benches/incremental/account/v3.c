// account v3 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 1, y = 2, z = 4;
int balance;
int deposit_done = 0, withdraw_done = 0;

void *deposit(void *arg) {
  pthread_mutex_lock(&m);
  balance = balance + y;
  deposit_done = 1;
  pthread_mutex_unlock(&m);
  return 0;
}

void *withdraw(void *arg) {
  pthread_mutex_lock(&m);
  balance = balance - z;
  pthread_mutex_unlock(&m);
  return 0;
}

void *check(void *arg) {
  pthread_mutex_lock(&m);
  if (deposit_done && withdraw_done)
    assert(balance == x - z + y);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t a, b, c;
  balance = x;
  pthread_create(&a, 0, deposit, 0);
  pthread_create(&b, 0, withdraw, 0);
  pthread_create(&c, 0, check, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  return 0;
}
