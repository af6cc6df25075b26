#include <pthread.h>
#include <assert.h>

int a = 0;
int x = 0;
int cond = 0;

void *thread1(void *arg) {
  a = 1;
  cond = 1;
  return 0;
}

void *thread2(void *arg) {
  while (!cond) {
  }
  x = a;
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(x == 1);
  return 0;
}
