#include <pthread.h>
#include <assert.h>

extern int __VERIFIER_nondet_int(void);

int x = 0;

void *thread1(void *arg) {
  if (x <= 11)
    x = 10;
  x = 20;
  return 0;
}

void *thread2(void *arg) {
  int a = x;
  int b = x;
  assert(a <= b);
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  x = __VERIFIER_nondet_int();
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
