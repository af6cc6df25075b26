#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

int state;
int finished;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* The parent's worker: marks its job running, then done, then counts
   it under m. */
void *worker(void *arg) {
    state = 1;
    state = 2;
    pthread_mutex_lock(&m);
    finished++;
    pthread_mutex_unlock(&m);
    return arg;
}

int main(void) {
    pid_t pid = fork();
    if (pid == 0)
        _exit(0); /* the child only leaves */
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_mutex_lock(&m);
    int seen = state;
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    waitpid(pid, 0, 0);
    return seen + finished;
}
