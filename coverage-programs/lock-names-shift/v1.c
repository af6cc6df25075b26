#include <pthread.h>
#include <stdlib.h>

struct queue {
    pthread_mutex_t a;
    pthread_mutex_t b;
    int items;
};

struct queue *q;

struct queue *new_queue(void) {
    struct queue *n = malloc(sizeof *n);
    pthread_mutex_init(&n->a, 0);
    pthread_mutex_init(&n->b, 0);
    n->items = 0;
    return n;
}

void *worker(void *arg) {
    pthread_mutex_lock(&q->a);
    pthread_mutex_lock(&q->b);
    q->items++;
    pthread_mutex_unlock(&q->b);
    pthread_mutex_unlock(&q->a);
    return arg;
}

int main(void) {
    pthread_t t;
    q = new_queue();
    pthread_create(&t, 0, worker, 0);
    pthread_mutex_lock(&q->a);
    pthread_mutex_lock(&q->b);
    q->items++;
    pthread_mutex_unlock(&q->b);
    pthread_mutex_unlock(&q->a);
    pthread_join(t, 0);
    return q->items;
}
