// Readers-writers lock built from a mutex and a condition variable.
// expect: safe
// Reasoning: the writer enters only when readers == 0 and sets writing under
// the mutex; a reader enters only when writing == 0 and increments readers
// under the mutex; waits are in while loops and every exit broadcasts.  So a
// reader never sees writing == 1 and the writer never sees readers > 0.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int readers, writing;
int data;

void *reader(void *arg) {
  pthread_mutex_lock(&m);
  while (writing)
    pthread_cond_wait(&cv, &m);
  readers++;
  pthread_mutex_unlock(&m);
  assert(writing == 0);
  int v = data;
  pthread_mutex_lock(&m);
  readers--;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  return (void *)(long)v;
}

void *writer(void *arg) {
  pthread_mutex_lock(&m);
  while (readers > 0 || writing)
    pthread_cond_wait(&cv, &m);
  writing = 1;
  pthread_mutex_unlock(&m);
  assert(readers == 0);
  data = 7;
  pthread_mutex_lock(&m);
  writing = 0;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t r, w;
  pthread_create(&r, 0, reader, 0);
  pthread_create(&w, 0, writer, 0);
  pthread_join(r, 0);
  pthread_join(w, 0);
  return 0;
}
