#include <pthread.h>
#include <stdlib.h>

struct logger {
    pthread_mutex_t mutex;
    int dropped;
};

struct logger *loggers[2];

/* Each worker reports to one of the two loggers, chosen at run time. */
void *worker(void *arg) {
    long id = (long)arg;
    struct logger *l = loggers[id & 1];
    pthread_mutex_lock(&l->mutex);
    l->dropped++;
    pthread_mutex_unlock(&l->mutex);
    return 0;
}

int main(void) {
    pthread_t t[3];
    for (int k = 0; k < 2; k++) {
        loggers[k] = malloc(sizeof(struct logger));
        pthread_mutex_init(&loggers[k]->mutex, 0);
        loggers[k]->dropped = 0;
    }
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    return loggers[0]->dropped + loggers[1]->dropped;
}
