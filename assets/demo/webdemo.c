/* The program behind `flametui --demo`: a tiny web service. In the first half of the run
 * one worker parses requests while the other idles; in the second both compress responses
 * (a phase change for the heat map: one CPU busy, then two); a database writer writes and
 * syncs a file every 10 ms (off-CPU time, in the kernel); the acceptor sleeps. Threads are
 * named, as `top -H` and perf show them. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int phase;
static volatile unsigned long sink;

#define WORK(name, rounds, mul)                                                    \
    __attribute__((noinline)) static unsigned long name(unsigned long x) {         \
        for (int i = 0; i < (rounds); i++) x = x * (mul) + (x >> 7) + i;           \
        return x;                                                                  \
    }
WORK(json_decode, 4000, 6364136223846793005UL)
WORK(validate_headers, 1500, 1442695040888963407UL)
WORK(route_lookup, 700, 2862933555777941757UL)
WORK(deflate_block, 5000, 3202034522624059733UL)
WORK(crc32_update, 1800, 3935559000370003845UL)
WORK(write_response, 600, 2685821657736338717UL)

__attribute__((noinline)) static unsigned long parse_request(unsigned long x) {
    return route_lookup(validate_headers(json_decode(x)));
}
__attribute__((noinline)) static unsigned long compress_response(unsigned long x) {
    return write_response(crc32_update(deflate_block(x)));
}
__attribute__((noinline)) static unsigned long handle_request(unsigned long x) {
    return phase == 0 ? parse_request(x) : compress_response(x);
}

static void wait_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void *worker(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "http-worker-%ld", (long)arg);
    pthread_setname_np(pthread_self(), name);
    unsigned long x = (unsigned long)arg;
    while (phase < 2) {
        if (phase == 0 && (long)arg == 2) {
            wait_ms(5); /* one worker is enough for the first half's load */
            continue;
        }
        x = handle_request(x);
    }
    sink = x;
    return NULL;
}

__attribute__((noinline)) static void commit_batch(int fd, const char *buf, size_t n) {
    if (write(fd, buf, n) < 0) perror("write");
    if (fdatasync(fd) < 0) perror("fdatasync");
}

static void *db_writer(void *path) {
    pthread_setname_np(pthread_self(), "db-writer");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror("open"); return NULL; }
    static char buf[64 << 10];
    memset(buf, 'x', sizeof buf);
    while (phase < 2) {
        commit_batch(fd, buf, sizeof buf);
        wait_ms(10);
    }
    close(fd);
    unlink(path);
    return NULL;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "demo-db.tmp";
    long half = argc > 2 ? atol(argv[2]) : 1500;
    pthread_setname_np(pthread_self(), "acceptor");
    pthread_t t[3];
    pthread_create(&t[0], NULL, worker, (void *)1L);
    pthread_create(&t[1], NULL, worker, (void *)2L);
    pthread_create(&t[2], NULL, db_writer, (void *)path);
    for (int i = 0; i < 10; i++) wait_ms(half / 10);
    phase = 1;
    for (int i = 0; i < 10; i++) wait_ms(half / 10);
    phase = 2;
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    return 0;
}
