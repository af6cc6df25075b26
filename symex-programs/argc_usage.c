// SV-COMP style main with a usage check, then a racy counter.
// expect: violation at line 34
// Reasoning: concord runs main with argc = 1 and argv = {program, NULL} by
// default, so the usage branch (argc != 1) is not taken and the threads
// start.  argv[0] is the program name (non-NULL, non-empty), so the second
// check passes too.  The two unlocked increments can lose one update: c can
// be 1 at the assertion.
#include <pthread.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "concord.h"

int c;

void *inc(void *arg) {
  c = c + 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 1) {
    printf("usage: %s\n", argv[0]);
    exit(-1);
  }
  if (argv[0] == 0 || strlen(argv[0]) == 0 || argv[1] != 0)
    return 2;
  pthread_t a, b;
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2); /* ERR */
  return 0;
}
