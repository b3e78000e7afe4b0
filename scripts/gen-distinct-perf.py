#!/usr/bin/env python3
"""Writes a synthetic `perf script` whose stacks are nearly all distinct, for benchmarks.

    scripts/gen-distinct-perf.py [SAMPLES] > distinct.perf.txt     (default 250000)

Real long recordings, DWARF call graphs and system-wide profiles have many distinct
stacks; a profile copied many times has few. This makes the former, deterministically
(seeded), in the exact text `perf script` prints with its default fields:

    comm  tid [cpu]   time:     period cpu-clock:ppp:
    \tADDR SYMBOL+0xOFF (DSO)
    ...
    <blank line>

Each sample has 8 to 20 frames drawn from 20,000 function names in 40 libraries (C++-like
names with argument lists, which the collapser strips), under 16 processes; the period is
1001001 (999 Hz). 250,000 samples make about 350 MB.
"""

import random
import sys

FUNCTIONS = 20_000
LIBRARIES = 40
PROCESSES = 16


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 250_000
    rng = random.Random(20261201)
    libs = [f"/usr/lib/x86_64-linux-gnu/libbench{i:02}.so.{i % 7}" for i in range(LIBRARIES)]
    funcs = []
    for i in range(FUNCTIONS):
        ns, cls = i % 97, i % 389
        name = f"ns{ns}::Class{cls}::method{i}(long)"
        funcs.append((name, libs[i % LIBRARIES], 0x1000 + 0x40 * i))
    procs = [(f"worker-{p}", 4000 + p) for p in range(PROCESSES)]
    out = sys.stdout
    write = out.write
    t = 1000.0
    for _ in range(samples):
        comm, tid = procs[rng.randrange(PROCESSES)]
        t += 0.001001
        write(f"{comm:>16} {tid:>6} [{tid % 2:03}] {t:12.6f}:    1001001 cpu-clock:ppp: \n")
        depth = rng.randint(8, 20)
        # A few hot roots keep the tree's top shared, as in real programs.
        frames = [rng.randrange(64)] + [rng.randrange(FUNCTIONS) for _ in range(depth - 1)]
        for f in reversed(frames):
            name, dso, base = funcs[f]
            off = rng.randrange(1, 0x40)
            write(f"\t{0x7f0000000000 + base + off:x} {name}+0x{off:x} ({dso})\n")
        write("\n")


if __name__ == "__main__":
    main()
