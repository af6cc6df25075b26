#include <pthread.h>

struct queue {
    pthread_mutex_t mutex;
    pthread_cond_t nonempty;
    int items;
};

struct queue fast = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
struct queue slow = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

/* Each producer feeds one of the two queues, chosen at run time. */
void *producer(void *arg) {
    struct queue *q = arg ? &fast : &slow;
    pthread_mutex_lock(&q->mutex);
    pthread_cond_signal(&q->nonempty);
    q->items++;
    pthread_mutex_unlock(&q->mutex);
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, producer, (void *)1);
    pthread_create(&t2, 0, producer, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return fast.items + slow.items;
}
