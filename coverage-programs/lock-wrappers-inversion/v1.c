#include <pthread.h>
#include <stdlib.h>

/* A yarn-style lock layer: the lock is allocated in one place for every
   caller, taken and released through wrappers. */
typedef struct lock_s {
    pthread_mutex_t mutex;
    long value;
} lock;

lock *new_lock(long value) {
    lock *l = malloc(sizeof *l);
    pthread_mutex_init(&l->mutex, 0);
    l->value = value;
    return l;
}

void possess(lock *l) { pthread_mutex_lock(&l->mutex); }

void release(lock *l) { pthread_mutex_unlock(&l->mutex); }

/* Take two locks in the order given, bump both values, let go. */
void hold_both(lock *outer, lock *inner) {
    possess(outer);
    possess(inner);
    outer->value++;
    inner->value++;
    release(inner);
    release(outer);
}

lock *pool_have;
lock *space_use;

void *getter(void *arg) {
    hold_both(pool_have, space_use);
    return arg;
}

void *dropper(void *arg) {
    hold_both(space_use, pool_have);
    return arg;
}

int main(void) {
    pthread_t a, b;
    pool_have = new_lock(0);
    space_use = new_lock(1);
    pthread_create(&a, 0, getter, 0);
    pthread_create(&b, 0, dropper, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
