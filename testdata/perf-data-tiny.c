#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long spin(unsigned long n) { unsigned long x = 1; for (unsigned long i = 0; i < n; i++) { x = x * 6364136223846793005UL + 1442695040888963407UL; __asm__ volatile("" : "+r"(x)); } return x; }
static inline unsigned long twice(unsigned long n) { return spin(n) ^ spin(n / 2); }
__attribute__((noinline)) unsigned long work(unsigned long n) { return twice(n); }
__attribute__((noinline)) unsigned long other(unsigned long n) { return spin(n * 3); }
int main(int argc, char **argv) {
  unsigned long loops = argc > 1 ? strtoul(argv[1], 0, 10) : 100, t = 0;
  for (unsigned long i = 0; i < loops; i++) { t += work(200000); t += other(100000); }
  printf("%lu\n", t);
  return 0;
}
