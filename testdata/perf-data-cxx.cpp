// perf.data naming fixture: C++ names as perf prints them (templates, an integer
// literal argument, an empty parameter pack) and an anonymous-namespace inline
// function inlined twice into a clone, which binutils names from the symbol table
// the first time it is asked. Linked with lld, whose segments share pages.
#include <cstdio>
#include <cstdlib>
namespace {
__attribute__((noinline)) double leaf(double x) {
  for (int i = 0; i < 200; i++) x = x * 1.0000001 + 0.5;
  return x;
}
inline double mid(double x) { return leaf(x) + leaf(x + 1); }
}  // namespace
template <typename T> struct Worker {
  __attribute__((noinline)) T run(T x) {
    for (int i = 0; i < 1000; i++) x = mid(x);
    return x;
  }
};
template <unsigned long N> __attribute__((noinline)) double sized(double x) {
  for (unsigned long i = 0; i < N * 50; i++) x = x * 0.999999 + 1;
  return x;
}
template <typename T, typename... Rest> struct Pack {
  __attribute__((noinline)) static T go(T x) { return sized<4096ul>(x) + 1; }
};
int main(int argc, char **argv) {
  long loops = argc > 1 ? atol(argv[1]) : 100;
  double t = 0;
  Worker<double> w;
  for (long i = 0; i < loops; i++) {
    t += w.run(i);
    t += Pack<double>::go(t);
  }
  printf("%f\n", t);
  return 0;
}
