#include <pthread.h>

int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* Exported for a plugin host that calls it by name; nothing in this
   program calls it. */
void on_reload(void) {
    pthread_mutex_lock(&m);
    counter = 0;
    pthread_mutex_unlock(&m);
}

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    return arg;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return counter;
}
