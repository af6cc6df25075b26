#include <pthread.h>
#include <assert.h>

int initialized = 0;
int config = 0;
int init_count = 0;

void get_config(void) {
  if (initialized == 0) {
    config = 42;
    int n = init_count;
    init_count = n + 1;
    initialized = 1;
  }
}

void *worker(void *arg) {
  get_config();
  int c = config;
  assert(c == 42);
  return 0;
}

int main(void) {
  pthread_t th[2];
  int i;
  for (i = 0; i < 2; i++)
    pthread_create(&th[i], 0, worker, 0);
  for (i = 0; i < 2; i++)
    pthread_join(th[i], 0);
  assert(init_count == 1);
  return 0;
}
