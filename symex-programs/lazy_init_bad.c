// Lazy initialisation with the flag published before the data.
// expect: violation at line 23
// Reasoning: the initialiser sets ready = 1 before obj = 42; the user thread
// can observe ready == 1 in between and read obj == 0.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int ready;
int obj;

void *init(void *arg) {
  if (!ready) {
    ready = 1;
    obj = 42;
  }
  return 0;
}

void *user(void *arg) {
  if (ready) {
    int v = obj;
    assert(v == 42); /* ERR */
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, init, 0);
  pthread_create(&b, 0, user, 0);
  return 0;
}
