// Return values through pthread_exit / return and pthread_join.
// expect: safe
// Reasoning: the first thread returns arg + 1 through pthread_exit, the
// second returns arg * 2; main joins both and reads 4 and 6.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

void *plus1(void *arg) {
  pthread_exit((void *)((long)arg + 1));
  return 0;
}

void *times2(void *arg) {
  return (void *)((long)arg * 2);
}

int main(void) {
  pthread_t a, b;
  void *ra, *rb;
  pthread_create(&a, 0, plus1, (void *)3L);
  pthread_create(&b, 0, times2, (void *)3L);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  assert((long)ra == 4 && (long)rb == 6);
  return 0;
}
