// Stack where pop waits on a condition variable until an element exists.
// expect: safe
// Reasoning: pop waits (in a while loop, under the mutex) until top > 0, and
// push signals after incrementing top; the popped value is one of the pushed
// values (1 or 2).  No spurious wake-ups are modelled.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int stack[2];
int top;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;

void push(int v) {
  pthread_mutex_lock(&m);
  stack[top] = v;
  top++;
  pthread_cond_signal(&nonempty);
  pthread_mutex_unlock(&m);
}

int pop(void) {
  pthread_mutex_lock(&m);
  while (top == 0)
    pthread_cond_wait(&nonempty, &m);
  top--;
  int v = stack[top];
  pthread_mutex_unlock(&m);
  return v;
}

void *pusher(void *arg) {
  push(1);
  push(2);
  return 0;
}

void *popper(void *arg) {
  int v = pop();
  assert(v == 1 || v == 2);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, pusher, 0);
  pthread_create(&b, 0, popper, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
