// Two threads push heap nodes on a shared list without synchronisation.
// expect: violation at line 33
// Reasoning: both threads can read head == NULL before either publishes its
// node; the second store overwrites the first, the list has one node whose
// next is NULL, and main dereferences head->next (a memory error).
#include <pthread.h>
#include <assert.h>
#include <stdlib.h>
#include "concord.h"

struct node {
  int v;
  struct node *next;
};

struct node *head;

void *push(void *arg) {
  struct node *n = malloc(sizeof *n);
  n->v = (int)(long)arg;
  struct node *h = head;
  n->next = h;
  head = n;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, push, (void *)1L);
  pthread_create(&b, 0, push, (void *)2L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  int s = head->v + head->next->v; /* ERR */
  assert(s == 3);
  return 0;
}
