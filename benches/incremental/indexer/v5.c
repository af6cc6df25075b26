// indexer v5 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

#define SIZE 4

int table[SIZE];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* Compare-and-swap made atomic by a lock. */
int cas(int *p, int expected, int value) {
  int ok = 0;
  pthread_mutex_lock(&m);
  if (*p == expected) {
    *p = value;
    ok = 1;
  }
  pthread_mutex_unlock(&m);
  return ok;
}

/* Open addressing with linear probing. */
void insert(int w) {
  int h = (w * 7) % SIZE;
  for (int k = 0; k < SIZE; k++) {
    if (cas(&table[h], 0, w))
      return;
    h = (h + 1) % SIZE;
  }
}

void *t1(void *arg) {
  insert(1);
  insert(2);
  insert(3);
  return 0;
}

void *t2(void *arg) {
  insert(5);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  int used = 0;
  for (int k = 0; k < SIZE; k++)
    if (table[k] != 0)
      used++;
  assert(used == 4);
  assert(table[3] == 1);
  return 0;
}
