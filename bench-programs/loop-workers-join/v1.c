#include <pthread.h>
#include <assert.h>

int counter = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
  pthread_mutex_lock(&m);
  int n = counter;
  counter = n + 1;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t th[2];
  int i;
  for (i = 0; i < 2; i++)
    pthread_create(&th[i], 0, worker, 0);
  int r = counter;
  for (i = 0; i < 2; i++)
    pthread_join(th[i], 0);
  assert(r == 2);
  return 0;
}
