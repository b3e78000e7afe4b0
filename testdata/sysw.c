/* A process with three busy threads of different names, for flametui's task-filter
 * tests on a system-wide recording (MIT OR Apache-2.0). The main thread (`sysw`)
 * computes CRC-32s, `sysw hash` (a name with a space) FNV-1a hashes and `sysw-sort`
 * insertion-sorts arrays, each for SECONDS of wall time (default 4). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 4;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char buf[1 << 15];

__attribute__((noinline)) static uint32_t crc_block(uint32_t crc) {
    for (size_t i = 0; i < sizeof buf; i++) {
        crc ^= buf[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
    }
    return crc;
}

__attribute__((noinline)) static uint64_t fnv_block(uint64_t h) {
    for (size_t i = 0; i < sizeof buf; i++) {
        h ^= buf[i];
        h *= 1099511628211ULL;
    }
    return h;
}

__attribute__((noinline)) static void insertion_sort(int *a, int n) {
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

__attribute__((noinline)) static void *hash_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "sysw hash");
    uint64_t h = 14695981039346656037ULL;
    double end = now() + seconds;
    while (now() < end) h = fnv_block(h);
    printf("fnv %016llx\n", (unsigned long long)h);
    return NULL;
}

__attribute__((noinline)) static void *sort_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "sysw-sort");
    static int a[2048];
    unsigned x = 1;
    long sum = 0;
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < 2048; i++) a[i] = (int)((x = x * 1103515245u + 12345u) >> 8);
        insertion_sort(a, 2048);
        sum += a[1024];
    }
    printf("sort %ld\n", sum);
    return NULL;
}

__attribute__((noinline)) static uint32_t crc_main(void) {
    uint32_t crc = 0xFFFFFFFFu;
    double end = now() + seconds;
    while (now() < end) crc = crc_block(crc);
    return crc;
}

int main(int argc, char **argv) {
    if (argc > 1) seconds = atof(argv[1]);
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 131 + 7);
    pthread_t hash, sort;
    pthread_create(&hash, NULL, hash_main, NULL);
    pthread_create(&sort, NULL, sort_main, NULL);
    printf("crc %08x\n", crc_main());
    pthread_join(hash, NULL);
    pthread_join(sort, NULL);
    return 0;
}
