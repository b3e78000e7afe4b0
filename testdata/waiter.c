/* Test workload for off-CPU recordings (flametui).
 * Threads:
 *   holder       : takes the mutex, holds it ~50 ms (sleeping), releases, repeat
 *   mutex-waiter : blocks on that mutex (~50 ms per wait), then burns CPU briefly
 *   signaller    : signals the condition variable every ~30 ms
 *   cond-waiter  : waits on the condition variable, then burns CPU briefly
 *   sleeper      : nanosleep 20 ms in a loop, then burns CPU briefly
 * Total run time ~1 s.
 * Build: gcc -O1 -g -fno-omit-frame-pointer -pthread -o waiter waiter.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cond_seq;
static atomic_int stop;
static volatile unsigned long sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ~1-2 ms of CPU work. The volatile local keeps a stack frame (and so a
 * frame pointer) in this leaf function; gcc 12 -O1 otherwise emits no
 * push %rbp here, and frame-pointer unwinding then skips the caller. */
__attribute__((noinline)) static void burn_cpu(void)
{
    volatile unsigned long x = sink;
    for (long i = 0; i < 1000000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink = x;
}

__attribute__((noinline)) static void hold_lock_for_a_while(void)
{
    pthread_mutex_lock(&mtx);
    sleep_ms(50);
    pthread_mutex_unlock(&mtx);
}

static void *holder(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "lock-holder");
    while (!atomic_load(&stop)) {
        hold_lock_for_a_while();
        sleep_ms(1); /* give the waiter a chance to grab it */
    }
    return NULL;
}

__attribute__((noinline)) static void wait_for_mutex(void)
{
    pthread_mutex_lock(&mtx);
    pthread_mutex_unlock(&mtx);
}

static void *mutex_waiter(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "mutex-waiter");
    while (!atomic_load(&stop)) {
        wait_for_mutex();
        burn_cpu();
    }
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "signaller");
    while (!atomic_load(&stop)) {
        sleep_ms(30);
        pthread_mutex_lock(&cmtx);
        cond_seq++;
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&cmtx);
    }
    pthread_mutex_lock(&cmtx);
    cond_seq++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&cmtx);
    return NULL;
}

__attribute__((noinline)) static void wait_for_cond(void)
{
    pthread_mutex_lock(&cmtx);
    int seen = cond_seq;
    while (cond_seq == seen && !atomic_load(&stop))
        pthread_cond_wait(&cond, &cmtx);
    pthread_mutex_unlock(&cmtx);
}

static void *cond_waiter(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "cond-waiter");
    while (!atomic_load(&stop)) {
        wait_for_cond();
        burn_cpu();
    }
    return NULL;
}

__attribute__((noinline)) static void do_sleep(void)
{
    sleep_ms(20);
}

static void *sleeper(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "sleeper");
    while (!atomic_load(&stop)) {
        do_sleep();
        burn_cpu();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[5];
    void *(*fns[5])(void *) = { holder, mutex_waiter, signaller, cond_waiter, sleeper };
    double t0 = now_s();

    for (int i = 0; i < 5; i++)
        pthread_create(&t[i], NULL, fns[i], NULL);
    sleep_ms(1000);
    atomic_store(&stop, 1);
    for (int i = 0; i < 5; i++)
        pthread_join(t[i], NULL);
    printf("waiter done in %.3f s (sink=%lu)\n", now_s() - t0, sink);
    return 0;
}
