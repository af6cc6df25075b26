#include <pthread.h>
#include <semaphore.h>

sem_t ready;
int data;
int seen;

void *consumer(void *arg) {
    sem_trywait(&ready);
    seen = data;
    return arg;
}

int main(void) {
    pthread_t t;
    sem_init(&ready, 0, 0);
    pthread_create(&t, 0, consumer, 0);
    data = 42;
    sem_post(&ready);
    pthread_join(t, 0);
    sem_destroy(&ready);
    return seen;
}
