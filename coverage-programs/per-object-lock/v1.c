#include <pthread.h>

struct logger {
    pthread_mutex_t mutex;
    int dropped;
};

struct logger audit = {PTHREAD_MUTEX_INITIALIZER, 0};
struct logger access_log = {PTHREAD_MUTEX_INITIALIZER, 0};

/* Each worker reports to one of the two loggers, chosen at run time. */
void *worker(void *arg) {
    long id = (long)arg;
    struct logger *l = (id & 1) ? &audit : &access_log;
    pthread_mutex_lock(&l->mutex);
    pthread_mutex_unlock(&l->mutex);
    l->dropped++;
    return 0;
}

int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    return audit.dropped + access_log.dropped;
}
