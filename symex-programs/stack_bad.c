// Stack (in the style of SV-COMP stack_false): push and pop are each
// protected by the lock, but the popper does not wait for an element.
// expect: violation at line 23
// Reasoning: if the popper runs before the pusher, top == 0 and the
// underflow assertion inside pop fails.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int stack[2];
int top;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void push(int v) {
  pthread_mutex_lock(&m);
  stack[top] = v;
  top++;
  pthread_mutex_unlock(&m);
}

int pop(void) {
  pthread_mutex_lock(&m);
  assert(top > 0); /* ERR */
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
  pop();
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
