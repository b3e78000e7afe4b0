/* A workload with a phase change, for flametui's timeline tests (MIT OR Apache-2.0).
 * Phase A hashes a buffer for about 1 s, then phase B sorts arrays for about 1 s:
 * `flametui --time 0,0.9` shows phase_a, `--time 1.1,2` phase_b. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t fnv_block(const unsigned char *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

__attribute__((noinline)) static uint64_t phase_a_hash(double seconds) {
    static unsigned char buf[1 << 16];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 31);
    uint64_t h = 14695981039346656037ULL;
    double end = now() + seconds;
    while (now() < end) h = fnv_block(buf, sizeof buf, h);
    return h;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

__attribute__((noinline)) static long phase_b_sort(double seconds) {
    enum { N = 1 << 15 };
    static int v[N];
    unsigned s = 1;
    long sum = 0;
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < N; i++) v[i] = (int)(s = s * 1103515245u + 12345u);
        qsort(v, N, sizeof v[0], cmp_int);
        sum += v[N / 2];
    }
    return sum;
}

int main(void) {
    volatile uint64_t h = phase_a_hash(1.0);
    volatile long s = phase_b_sort(1.0);
    printf("%llu %ld\n", (unsigned long long)h, (long)s);
    return 0;
}
