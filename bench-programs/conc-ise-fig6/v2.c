#include <pthread.h>
#include <assert.h>

int x = 0;
int y = 0;
int z = 0;

void body1(void) {
  x += 2;             // 1
  z = x + 1;          // 2
  y = x - 1;          // 3
  if (z > 0)          // 4
    z = 0;            // 5
  else                // 6
    z--; } void body2(void) {   // 7 (end of thread 1 body, start of thread 2 body)
  z++;                // 8
  x -= 2;             // 9
  if (x == 0)         // 10
    y += 2;           // 11 (modified)
  else                // 12
    z++;              // 13
  assert(y != 2);     // 14
}

void *thread1(void *arg) {
  body1();
  return 0;
}

void *thread2(void *arg) {
  body2();
  return 0;
}

int main(void) {
  pthread_t t1;
  pthread_t t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
