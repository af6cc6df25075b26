// Circular buffer (in the style of SV-COMP circular_buffer): the producer
// publishes the element count before writing the slot.
// expect: violation at line 28
// Reasoning: the consumer can see count == 1 after the producer's count++ but
// before buffer[0] = 1, and reads the initial 0.
#include <pthread.h>
#include <assert.h>
#include "concord.h"

int buffer[2];
int next_in, next_out;
int count;

void *producer(void *arg) {
  for (int i = 1; i <= 2; i++) {
    int slot = next_in;
    count++;
    buffer[slot] = i;
    next_in = (slot + 1) % 2;
  }
  return 0;
}

void *consumer(void *arg) {
  if (count > 0) {
    int v = buffer[next_out];
    next_out = (next_out + 1) % 2;
    assert(v != 0); /* ERR */
  }
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  return 0;
}
