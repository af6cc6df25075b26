#include <pthread.h>
#include <assert.h>

int limit = 0;
int used = 0;

void load_limit(void) {
  limit = 8;
}

void *worker(void *arg) {
  int l = limit;
  used = l;
  return 0;
}

int main(void) {
  pthread_t t;
  load_limit();
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  assert(used == 8);
  return 0;
}
