/* rec.c - test workload for flametui's perf test data.
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The binary is called "rec" and so is its hottest function, so the
 * process name (comm) and a function name are the same string. rec()
 * recurses four levels deep and takes about half of the time;
 * other_work() takes the other half. main() calls both.
 *
 * other_work() writes its result through a volatile local so that it has
 * a stack slot: gcc -O1 -fno-omit-frame-pointer drops the frame pointer in
 * frameless leaf functions, and frame-pointer unwinding would then skip
 * main. rec() calls itself, so it keeps its frame pointer anyway.
 */
#include <stdio.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long rec(int depth, unsigned long n) {
    unsigned long x = (unsigned long)depth;
    for (unsigned long i = 0; i < n; ++i)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    if (depth > 0)
        x += rec(depth - 1, n); /* not a tail call: the add comes after */
    return x;
}

__attribute__((noinline)) unsigned long other_work(unsigned long n) {
    volatile unsigned long out;
    unsigned long x = n;
    for (unsigned long i = 0; i < n; ++i)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    out = x;
    return out;
}

int main(void) {
    for (unsigned long round = 0; round < 20; ++round) {
        sink = rec(3, 2500000 + round);   /* 4 levels x 2.5M iterations */
        sink = other_work(6000000 + round);
    }
    printf("%lu\n", (unsigned long)sink);
    return 0;
}
