// Stateful mutexes (in the style of SV-COMP stateful01, safe variant).
// expect: safe
// Reasoning: data1 and data2 are only updated under m1 and m2 respectively;
// additions commute, so after both joins data1 = 10+1+5 = 16 and
// data2 = 10+1-6 = 5 in every interleaving.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int data1 = 10, data2 = 10;
pthread_mutex_t m1, m2;

void *t1(void *arg) {
  pthread_mutex_lock(&m1);
  data1++;
  pthread_mutex_unlock(&m1);
  pthread_mutex_lock(&m2);
  data2++;
  pthread_mutex_unlock(&m2);
  return 0;
}

void *t2(void *arg) {
  pthread_mutex_lock(&m1);
  data1 += 5;
  pthread_mutex_unlock(&m1);
  pthread_mutex_lock(&m2);
  data2 -= 6;
  pthread_mutex_unlock(&m2);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_mutex_init(&m1, 0);
  pthread_mutex_init(&m2, 0);
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(data1 == 16 && data2 == 5);
  pthread_mutex_destroy(&m1);
  pthread_mutex_destroy(&m2);
  return 0;
}
