// bluetooth v1 (Conc-iSE Table 3 chain, written for concord; see README.md)
#include <pthread.h>
#include <assert.h>

extern void __VERIFIER_assume(int);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int pendingIo = 1;
int stoppingFlag = 0, stoppingEvent = 0, stopped = 0;

/* A request may enter the driver unless it is stopping. */
int io_increment(void) {
  int status = -1;
  int stopping = stoppingFlag;
  pthread_mutex_lock(&m);
  if (!stopping) {
    pendingIo = pendingIo + 1;
    status = 0;
  }
  pthread_mutex_unlock(&m);
  return status;
}

void io_decrement(void) {
  pthread_mutex_lock(&m);
  pendingIo = pendingIo - 1;
  int last = pendingIo == 0;
  pthread_mutex_unlock(&m);
  if (last)
    stoppingEvent = 1;
}

void *adder(void *arg) {
  if (io_increment() == 0) {
    assert(!stopped);
    io_decrement();
  }
  return 0;
}

void *stopper(void *arg) {
  pthread_mutex_lock(&m);
  stoppingFlag = 1;
  pthread_mutex_unlock(&m);
  io_decrement();
  /* Wait for the last request to leave (a blocking wait: executions in
     which the event never comes are not executions of the driver). */
  __VERIFIER_assume(stoppingEvent);
  stopped = 1;
  return 0;
}

int main(void) {
  pthread_t a, s;
  pthread_create(&a, 0, adder, 0);
  pthread_create(&s, 0, stopper, 0);
  pthread_join(a, 0);
  pthread_join(s, 0);
  return 0;
}
