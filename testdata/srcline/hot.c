/* Workload of perf-srcline.txt.gz: known hot lines for `perf script -F +srcline`.
 * gcc -O2 -g -fno-omit-frame-pointer -o hot hot.c */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15UL;
	return x ^ (x >> 29);
}

__attribute__((noinline)) static void tick(unsigned long s)
{
	sink = s;
}

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) {
		s += i % 7 * (s | 1);
		if ((i & 0xfffff) == 0)
			tick(s); /* a call: spin gets a frame (a leaf gets none) */
	}
	return s;
}

__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += mix(i + s);
	s += spin(n / 2);
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 30000000;
	unsigned long s = 0;
	for (int round = 0; round < 10; round++)
		s += work(n + round);
	printf("%lu\n", s);
	return 0;
}
