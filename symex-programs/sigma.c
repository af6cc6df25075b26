// Sigma (in the style of SV-COMP sigma_false): each thread takes a slot
// index with a racy increment and marks its slot.
// expect: violation at line 27
// Reasoning: both threads can read idx == 0, write the same slot, and then
// the sum of the array is 1 instead of 2.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int sigma[2];
int idx;

void *worker(void *arg) {
  int i = idx;
  idx = i + 1;
  sigma[i] = 1;
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int k = 0; k < 2; k++)
    pthread_create(&t[k], 0, worker, 0);
  for (int k = 0; k < 2; k++)
    pthread_join(t[k], 0);
  int sum = sigma[0] + sigma[1];
  assert(sum == 2); /* ERR */
  return 0;
}
