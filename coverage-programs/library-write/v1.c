#include <pthread.h>
#include <stdio.h>

char msg[32];
int ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    snprintf(msg, sizeof msg, "job %d", 1);
    ready = 1;
    pthread_mutex_unlock(&m);
    return arg;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_mutex_lock(&m);
    if (ready)
        puts(msg);
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return 0;
}
