#include <pthread.h>
#include <assert.h>

int slot_free = 1;
int claims = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void try_claim(void) {
  if (slot_free == 1) {
    slot_free = 0;
    int n = claims;
    claims = n + 1;
  }
}

void *thread1(void *arg) {
  try_claim();
  return 0;
}

void *thread2(void *arg) {
  try_claim();
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(claims == 1);
  return 0;
}
