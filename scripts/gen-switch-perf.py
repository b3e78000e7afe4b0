#!/usr/bin/env python3
"""Writes a synthetic system-wide `perf script` of sched:sched_switch events with kernel
and user call chains, for timing the off-CPU conversion (issue 29) at sizes and shapes
you choose. Not a test file: nothing checks its figures.

    python3 scripts/gen-switch-perf.py OUT [--switches N] [--threads T] [--cpus C]
                                         [--stacks S] [--depth D] [--seed X]

Each CPU runs one task at a time; a switch on a CPU sends its current task off (a random
state among R, S, D, with its stack from a pool of S stacks up to D frames deep) and
brings in a waiting thread (or the idle task), so blocks migrate between CPUs as real ones
do. Deterministic for a seed.
"""

import argparse
import random

KERNEL = [
    "__schedule", "schedule", "schedule_hrtimeout_range", "do_epoll_wait",
    "__x64_sys_epoll_wait", "io_schedule", "rwsem_down_read_slowpath", "futex_wait_queue",
    "futex_wait", "do_futex", "__x64_sys_futex", "do_syscall_64",
    "entry_SYSCALL_64_after_hwframe", "jbd2_log_wait_commit", "ext4_sync_file",
    "pipe_read", "vfs_read", "ksys_read", "wait_for_completion", "schedule_timeout",
]
USER = [
    "__libc_start_call_main", "main", "run_server", "handle_connection", "read_request",
    "pthread_cond_wait@@GLIBC_2.3.2", "std::thread::_State_impl::_M_run", "worker_loop",
    "Log::flush", "Buffer::write", "epoll_wait", "__GI___libc_read", "fsync", "start_thread",
    "clone3", "mysql::Table::insert", "InnoDB::redo_commit", "os_event_wait_low",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--switches", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=10_000)
    ap.add_argument("--cpus", type=int, default=16)
    ap.add_argument("--stacks", type=int, default=500)
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    rng = random.Random(a.seed)

    stacks = []
    for _ in range(a.stacks):
        k = ["__schedule", "schedule"] + rng.sample(KERNEL[2:], rng.randint(2, 6))
        u = rng.choices(USER, k=rng.randint(2, max(2, a.depth - len(k))))
        lines = []
        for i, name in enumerate(k):
            lines.append(f"\tffffffff8{rng.randrange(1 << 27):07x} {name}+0x{rng.randrange(1, 0x400):x} ([kernel.kallsyms])\n")
        for name in u:
            lines.append(f"\t    {rng.randrange(1 << 40):x} {name}+0x{rng.randrange(1, 0x400):x} (/usr/sbin/mysqld)\n")
        stacks.append("".join(lines))

    tids = list(range(1000, 1000 + a.threads))
    comm = {t: f"worker-{t % 97}" for t in tids}
    waiting = list(tids)
    rng.shuffle(waiting)
    running = [0] * a.cpus  # idle task on every CPU at first
    t_ns = 5_000_000_000_000
    states = ["S", "S", "S", "D", "R", "R+"]
    with open(a.out, "w") as out:
        for _ in range(a.switches):
            cpu = rng.randrange(a.cpus)
            t_ns += rng.randrange(200, 20_000)
            prev = running[cpu]
            if prev != 0 and rng.random() < 0.1:
                nxt = 0
            else:
                i = rng.randrange(len(waiting))
                nxt = waiting[i]
                waiting[i] = waiting[-1]
                waiting.pop()
            if prev != 0:
                waiting.append(prev)
            running[cpu] = nxt
            pc = comm.get(prev, f"swapper/{cpu}")
            nc = comm.get(nxt, f"swapper/{cpu}")
            state = rng.choice(states) if prev != 0 else "R"
            head = pc if prev != 0 else "swapper"
            out.write(
                f"{head:>16} {prev:>6} [{cpu:03}] {t_ns // 1_000_000_000}.{t_ns // 1000 % 1_000_000:06}: "
                f"sched:sched_switch: prev_comm={pc} prev_pid={prev} prev_prio=120 prev_state={state} "
                f"==> next_comm={nc} next_pid={nxt} next_prio=120\n"
            )
            if prev != 0:
                out.write(rng.choice(stacks))
            out.write("\n")


if __name__ == "__main__":
    main()
