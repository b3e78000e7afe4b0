#!/usr/bin/env python3
"""Writes testdata/perf-timeline.txt.gz: a synthetic `perf script -F +pid` recording of
5 s with a spike, a stall and a phase change in known windows, for the timeline tests.

Three tasks are sampled by cpu-clock while they run (times relative to the first sample,
which is at 8000.250000 s):

* server (pid 1000, tid 1000): every 4 ms (period 4000000) from 0 to 4.996 s, in
  main;serve;handle_request;{parse_request | write_response} (alternating), except
  - a stall in [3.000, 3.400): no sample (100 samples missing);
  - a GC phase in [4.000, 4.200): main;serve;gc_collect;gc_mark instead (50 samples);
* worker (pid 1000, tid 1001): every 10 ms (period 10000000) from 0.001 s: 500 samples
  of start_thread;worker_loop;compress_block;
* cron (pid 2000, tid 2000): the spike, every 1 ms (period 1000000) in [1.500, 1.700),
  from 1.5005 s: 200 samples of main;run_job;sha256_block.

So a 20 ms cell holds 5 server + 2 worker samples, plus 20 cron samples in the spike and
no server sample in the stall. Deterministic; standard library only; the gzip stream has
no name and no time stamp, so the bytes are reproducible:

    python3 scripts/gen-timeline-perf.py [OUT]      # default testdata/perf-timeline.txt.gz
"""

import gzip
import os
import sys

T0_US = 8000_250_000  # the first sample, in microseconds

LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"


def frames(stack, binary):
    """Frame lines, leaf first, for a root-first list of function names."""
    out = []
    for depth, name in enumerate(reversed(stack)):
        dso = LIBC if name in ("__libc_start_call_main", "start_thread") else binary
        out.append(f"\t    {0x55d0c0001000 + 0x40 * depth + len(name):x} {name}+0x{4 * depth + 3:x} ({dso})")
    return out


def samples():
    """(time in µs, comm, pid, tid, cpu, period, stack root first, binary)."""
    out = []
    for k in range(1250):
        rel = 4000 * k
        if 3_000_000 <= rel < 3_400_000:
            continue
        if 4_000_000 <= rel < 4_200_000:
            stack = ["__libc_start_call_main", "main", "serve", "gc_collect", "gc_mark"]
        else:
            leaf = "parse_request" if k % 2 == 0 else "write_response"
            stack = ["__libc_start_call_main", "main", "serve", "handle_request", leaf]
        out.append((rel, "server", 1000, 1000, 0, 4_000_000, stack, "/usr/bin/server"))
    for k in range(500):
        stack = ["start_thread", "worker_loop", "compress_block"]
        out.append((1000 + 10_000 * k, "worker", 1000, 1001, 1, 10_000_000, stack, "/usr/bin/server"))
    for k in range(200):
        stack = ["__libc_start_call_main", "main", "run_job", "sha256_block"]
        out.append((1_500_500 + 1000 * k, "cron", 2000, 2000, 1, 1_000_000, stack, "/usr/sbin/cron"))
    out.sort(key=lambda s: s[0])
    return out


def text():
    lines = []
    for rel, comm, pid, tid, cpu, period, stack, binary in samples():
        t = T0_US + rel
        lines.append(
            f"{comm:>16} {pid:>5}/{tid:<5} [{cpu:03d}] {t // 1_000_000}.{t % 1_000_000:06d}: "
            f"{period:>10} cpu-clock:pppH: "
        )
        lines.extend(frames(stack, binary))
        lines.append("")
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "testdata", "perf-timeline.txt.gz")
    data = text().encode()
    with open(out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=f, mtime=0) as gz:
            gz.write(data)
    print(f"{out}: {len(data)} bytes of text, {len(samples())} samples")


if __name__ == "__main__":
    main()
