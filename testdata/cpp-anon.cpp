// cpp-anon.cpp - test workload for flametui's perf test data.
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Spends its time in functions whose C++ names contain
// "(anonymous namespace)": a plain function, a destructor and a lambda.
// main() also does some work of its own.
//
// Each leaf function writes its result through a volatile local. That puts
// a slot on the stack, so g++ -O1 -fno-omit-frame-pointer keeps the
// push %rbp / mov %rsp,%rbp prologue (it drops it in frameless leaves) and
// frame-pointer unwinding does not skip the caller.
#include <cstdio>
#include <cstdlib>

namespace {

volatile unsigned long sink;

__attribute__((noinline)) unsigned long hot(unsigned long n) {
    volatile unsigned long out;
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; ++i)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    out = x;
    return out;
}

class C {
public:
    explicit C(unsigned long n) : n_(n) {}
    __attribute__((noinline)) ~C() {
        volatile unsigned long out;
        unsigned long x = n_;
        for (unsigned long i = 0; i < n_; ++i)
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        out = x;
        sink = out;
    }
private:
    unsigned long n_;
};

__attribute__((noinline)) unsigned long with_lambda(unsigned long n) {
    auto mix = [n](unsigned long seed) __attribute__((noinline)) {
        volatile unsigned long out;
        unsigned long x = seed;
        for (unsigned long i = 0; i < n; ++i)
            x = (x >> 3) + x * 31 + i;
        out = x;
        return out;
    };
    return mix(7) + mix(11);
}

}  // namespace

int main(int argc, char **argv) {
    unsigned long scale = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1;
    for (unsigned long round = 0; round < 20 * scale; ++round) {
        sink = hot(10000000 + round);        // about half of the time
        { C c(3000000); }                    // the destructor does the work
        sink = with_lambda(1500000);         // two calls of the lambda
        unsigned long y = round;             // work in main itself
        for (unsigned long i = 0; i < 2000000; ++i)
            y = y * 2862933555777941757UL + 3037000493UL;
        sink = y;
    }
    std::printf("%lu\n", (unsigned long)sink);
    return 0;
}
