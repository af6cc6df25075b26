#include <pthread.h>
#include <assert.h>

int balance_a = 100;
int balance_b = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void withdraw_a(int amt) {
  int v = balance_a;
  balance_a = v - amt;
}

void deposit_b(int amt) {
  int v = balance_b;
  balance_b = v + amt;
}

void *transfer(void *arg) {
  pthread_mutex_lock(&m);
  withdraw_a(50);
  deposit_b(50);
  pthread_mutex_unlock(&m);
  return 0;
}

void *audit(void *arg) {
  pthread_mutex_lock(&m);
  int a = balance_a;
  int b = balance_b;
  pthread_mutex_unlock(&m);
  assert(a + b == 100);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, transfer, 0);
  pthread_create(&t2, 0, audit, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
