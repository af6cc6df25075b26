// Two threads push heap nodes on a shared list under a mutex.
// expect: safe
// Reasoning: each push links its node in front of the current head inside
// the critical section, so after both joins the list holds both nodes and
// their values sum to 1 + 2 = 3.
#include <pthread.h>
#include <assert.h>
#include <stdlib.h>
#include "concord.h"

struct node {
  int v;
  struct node *next;
};

struct node *head;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *push(void *arg) {
  struct node *n = malloc(sizeof *n);
  n->v = (int)(long)arg;
  pthread_mutex_lock(&m);
  n->next = head;
  head = n;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, push, (void *)1L);
  pthread_create(&b, 0, push, (void *)2L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(head->v + head->next->v == 3);
  return 0;
}
