// libc string and memory calls on shared buffers.
// expect: violation at line 28
// Reasoning: the writer copies "hello" into msg, then sets ready under the
// lock, then (the bug) overwrites msg with "HELLO" without the lock.  The
// reader sees ready == 1 only after the first copy, so strlen(msg) is 5
// with either string, but strcmp can see "HELLO": the second assertion
// fails on the interleaving where the overwrite precedes the check.
#include <pthread.h>
#include <assert.h>
#include <string.h>
#include "concord.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
char msg[8];
int ready;

void *writer(void *arg) {
  memcpy(msg, "hello", 6);
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  memcpy(msg, "HELLO", 6);
  return 0;
}

void check(void) {
  assert(strlen(msg) == 5);
  assert(strcmp(msg, "hello") == 0); /* ERR */
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pthread_mutex_lock(&m);
  int r = ready;
  pthread_mutex_unlock(&m);
  if (r)
    check();
  pthread_join(t, 0);
  return 0;
}
