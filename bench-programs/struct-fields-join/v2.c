#include <pthread.h>
#include <assert.h>

struct stats {
  int hits;
  int misses;
};

struct stats st = {0, 0};

void *hit_thread(void *arg) {
  st.hits = 5;
  return 0;
}

void *miss_thread(void *arg) {
  st.misses = 3;
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, hit_thread, 0);
  pthread_create(&t2, 0, miss_thread, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  int h = st.hits;
  int m = st.misses;
  assert(h + m == 8);
  return 0;
}
