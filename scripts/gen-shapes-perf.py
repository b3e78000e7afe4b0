#!/usr/bin/env python3
"""Writes a synthetic `perf script` of one SHAPE, for benchmarks across shapes of input.

    scripts/gen-shapes-perf.py SHAPE [--seed N] [--samples N | --mb MB]
                               [--names N] [--depth MIN-MAX] [--fanout N] > shape.perf.txt
    scripts/gen-shapes-perf.py --list

One shape of profile is not all of them: how many stacks repeat, how wide the tree is
under one root, how long the names are and how deep the stacks go each load a collapser
differently. Each shape here is deterministic for its seed and written in the exact text
perf 6.1's `perf script` prints for a `-g` recording with its default fields:

    comm tid time:     period cpu-clock:ppp:          (a recording of one command)
    comm tid [cpu] time:     period cpu-clock:ppp:    (`-a`, `--cpu`)
    comm   pid/tid  [cpu] time: ...                   (`-F comm,pid,tid,cpu,...`)
    \t      ADDR(%16x) SYMBOL+0xOFF (DSO)
    \t      ADDR [unknown] (DSO)                       (no symbol)
    \t      ADDR INLINED+0xOFF (inlined)               (`--call-graph dwarf`, inline frames)
    <blank line>

The shapes:

    repeated        few distinct stacks (400) repeated with skewed weights, as in a
                    recording of one program doing one job
    distinct-roots  nearly distinct stacks of 8-20 frames under 64 hot roots in 16
                    processes, C++ names with argument lists (scripts/gen-distinct-perf.py)
    wide-one-root   every stack under one root `main` of one process, with --fanout
                    (20,000) distinct children a dozen samples each, C++ names
    short-names     as distinct-roots, with short names without argument lists
                    (`ns93::Module434::handler_4943+0x1`), short addresses, 40 libraries
    wide-short      wide-one-root with short-names' names: the two together
    long-cpp        long C++ names: templates, argument lists, const, 6-30 frames
    deep            100-300 frames: a recursive descent under a Java-like frame chain
    dwarf-inlined   a `--call-graph dwarf` recording: a third of the frames come with
                    one to three `(inlined)` frames at the same address, unwinding that
                    stops in `[unknown]` now and then
    system-wide     `comm pid/tid [cpu]` tasks of a machine: 2-9 kernel frames
                    (`[kernel.kallsyms]`) over 3-14 user frames from --names (30,000)
                    names, 8% `[unknown]` frames, idle `swapper` samples

--samples defaults to 250,000; --mb writes samples until the output has that many MB.
"""

import argparse
import bisect
import random
import sys

SHAPES = (
    "repeated",
    "distinct-roots",
    "wide-one-root",
    "short-names",
    "wide-short",
    "long-cpp",
    "deep",
    "dwarf-inlined",
    "system-wide",
)

PERIOD = 1001001  # 999 Hz cpu-clock


def frame(addr: int, sym: str, off: int, dso: str) -> str:
    """A stack line as perf script prints it (`%16lx`, then the symbol and the DSO)."""
    return f"\t{addr:16x} {sym}+0x{off:x} ({dso})\n"


def unknown(addr: int, dso: str) -> str:
    return f"\t{addr:16x} [unknown] ({dso})\n"


def libraries(n: int) -> list:
    return [f"/usr/lib/x86_64-linux-gnu/libbench{i:02}.so.{i % 7}" for i in range(n)]


def cpp_name(i: int) -> str:
    return f"ns{i % 97}::Class{i % 389}::method{i}(long)"


def short_name(i: int) -> str:
    return f"ns{i % 97}::Module{i % 439}::handler_{i}"


TEMPLATE_ARGS = (
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
    "std::vector<unsigned long, std::allocator<unsigned long> >",
    "std::unique_ptr<bench::Node, std::default_delete<bench::Node> >",
    "std::pair<int const, std::shared_ptr<bench::Session> >",
    "std::chrono::duration<long, std::ratio<1l, 1000000000l> >",
)


def long_cpp_name(i: int) -> str:
    a = TEMPLATE_ARGS[i % len(TEMPLATE_ARGS)]
    b = TEMPLATE_ARGS[(i // 5) % len(TEMPLATE_ARGS)]
    return (
        f"bench::detail{i % 53}::Container{i % 211}<{a}, bench::Alloc<{b}> >"
        f"::operation{i}<bench::Visitor{i % 17}>({a} const&, unsigned long, {b}&&) const"
    )


class Out:
    """Buffered writes that count bytes, so --mb can stop at a size."""

    def __init__(self, limit: int):
        self.parts = []
        self.size = 0
        self.pending = 0
        self.limit = limit

    def write(self, s: str) -> None:
        self.parts.append(s)
        self.pending += len(s)
        if self.pending > 1 << 20:
            self.flush()

    def flush(self) -> None:
        data = "".join(self.parts)
        sys.stdout.write(data)
        self.size += len(data.encode())
        self.parts = []
        self.pending = 0

    def full(self) -> bool:
        return self.limit > 0 and self.size + self.pending >= self.limit


def header_task(comm: str, tid: int, t: float) -> str:
    """`perf record -g -- CMD`: no CPU field."""
    return f"{comm} {tid:5d} {t:5.6f}: {PERIOD:10d} cpu-clock:ppp: \n"


def header_cpu(comm: str, tid: int, cpu: int, t: float) -> str:
    """`perf record -a -g`: the CPU too."""
    return f"{comm} {tid:5d} [{cpu:03d}] {t:5.6f}: {PERIOD:10d} cpu-clock:ppp: \n"


def header_pid_tid(comm: str, pid: int, tid: int, cpu: int, t: float) -> str:
    """`perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,dso`."""
    return f"{comm} {pid:5d}/{tid:<5d} [{cpu:03d}] {t:5.6f}: {PERIOD:10d} cpu-clock:ppp: \n"


def funcs_table(names: int, name_of, libs: list, base_of) -> list:
    """Each function's stack lines, ready to print (four offsets each)."""
    table = []
    for i in range(names):
        dso = libs[i % len(libs)]
        base = base_of(i)
        table.append([frame(base + off, name_of(i), off, dso) for off in (0x1, 0x9, 0x17, 0x2c)])
    return table


def gen(args, rng: random.Random, out: Out) -> None:
    shape = args.shape
    t = 1000.0
    n = 0

    def more() -> bool:
        return not out.full() if args.mb else n < args.samples

    if shape in ("distinct-roots", "short-names", "long-cpp"):
        names = args.names or (5_000 if shape == "long-cpp" else 20_000)
        lo, hi = args.depth or ((6, 30) if shape == "long-cpp" else (8, 20))
        libs = libraries(40)
        if shape == "short-names":
            table = funcs_table(names, short_name, libs, lambda i: 0x1000 + 0x40 * (i // 40))
        elif shape == "long-cpp":
            table = funcs_table(names, long_cpp_name, libs, lambda i: 0x7f0000001000 + 0x40 * i)
        else:
            table = funcs_table(names, cpp_name, libs, lambda i: 0x7f0000001000 + 0x40 * i)
        procs = [(f"worker-{p}", 4000 + p) for p in range(16)]
        while more():
            comm, tid = procs[rng.randrange(16)]
            t += 0.001001
            out.write(header_cpu(comm, tid, tid % 2, t))
            depth = rng.randint(lo, hi)
            # A few hot roots keep the tree's top shared, as in real programs.
            frames = [rng.randrange(64)] + [rng.randrange(names) for _ in range(depth - 1)]
            for f in reversed(frames):
                out.write(table[f][rng.randrange(4)])
            out.write("\n")
            n += 1
    elif shape in ("wide-one-root", "wide-short"):
        names = args.names or 20_000
        fanout = args.fanout or 20_000
        lo, hi = args.depth or (6, 16)
        libs = libraries(40)
        if shape == "wide-short":
            table = funcs_table(names, short_name, libs, lambda i: 0x1000 + 0x40 * (i // 40))
        else:
            table = funcs_table(names, cpp_name, libs, lambda i: 0x7f0000001000 + 0x40 * i)
        main_line = frame(0x1139, "main", 0x19, "/usr/bin/wide")
        tids = [7100 + i for i in range(4)]
        while more():
            tid = tids[rng.randrange(4)]
            t += 0.001001
            out.write(header_task("wide", tid, t))
            depth = rng.randint(lo, hi)
            child = rng.randrange(fanout) % names
            frames = [child] + [rng.randrange(names) for _ in range(depth - 2)]
            for f in reversed(frames):
                out.write(table[f][rng.randrange(4)])
            out.write(main_line)
            out.write("\n")
            n += 1
    elif shape == "repeated":
        names = args.names or 2_000
        lo, hi = args.depth or (5, 30)
        libs = libraries(10)
        table = funcs_table(names, cpp_name, libs, lambda i: 0x7f0000001000 + 0x40 * i)
        stacks = []
        for _ in range(400):
            depth = rng.randint(lo, hi)
            stacks.append([rng.randrange(16)] + [rng.randrange(names) for _ in range(depth - 1)])
        # Skewed: a few stacks take most samples.
        weights = [1.0 / (k + 1) for k in range(len(stacks))]
        cum = []
        acc = 0.0
        for w in weights:
            acc += w
            cum.append(acc)
        procs = [("app", 3100), ("app", 3101), ("app-io", 3102), ("app-gc", 3103)]
        while more():
            comm, tid = procs[rng.randrange(4)]
            t += 0.001001
            out.write(header_task(comm, tid, t))
            s = stacks[bisect.bisect_left(cum, rng.random() * acc)]
            for f in reversed(s):
                out.write(table[f][rng.randrange(4)])
            out.write("\n")
            n += 1
    elif shape == "deep":
        names = args.names or 20_000
        lo, hi = args.depth or (100, 300)
        libs = ["/usr/lib/jvm/java-17/lib/server/libjvm.so", "/tmp/perf-5150.map"]
        java = [f"Lcom/bench/svc{i % 31}/Handler{i % 257};::step{i}" for i in range(names)]
        rec = [f"Lcom/bench/parse/Parser;::{n}" for n in ("expr", "term", "factor", "unary", "call")]
        jit = "/tmp/perf-5150.map"
        java_lines = [frame(0x7f3a10000000 + 0x80 * i, s, 0x23, jit) for i, s in enumerate(java)]
        rec_lines = [frame(0x7f3a0f000000 + 0x400 * i, s, 0x4b, jit) for i, s in enumerate(rec)]
        base = [
            frame(0x7f3a2b001234, "start_thread", 0x2f3, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
            frame(0x7f3a2a400000, "thread_native_entry", 0x111, libs[0]),
            frame(0x7f3a2a410000, "JavaThread::run", 0x1a4, libs[0]),
            frame(0x7f3a2a420000, "JavaCalls::call_helper", 0x2c8, libs[0]),
            frame(0x7f3a0e000000, "Interpreter", 0x0, jit),
        ]
        tids = [5150 + i for i in range(8)]
        while more():
            tid = tids[rng.randrange(8)]
            t += 0.001001
            out.write(header_task("java", tid, t))
            depth = rng.randint(lo, hi)
            top = rng.randint(3, 12)
            leaf = rng.randint(1, 6)
            mid = max(1, depth - len(base) - top - leaf)
            # Innermost first: leaf work, the recursion, the service frames, the thread.
            for _ in range(leaf):
                out.write(java_lines[rng.randrange(names)])
            k = rng.randrange(5)
            for _ in range(mid):
                out.write(rec_lines[k])
                k = (k + rng.choice((1, 1, 1, 4))) % 5
            for _ in range(top):
                out.write(java_lines[rng.randrange(256)])
            for line in reversed(base):
                out.write(line)
            out.write("\n")
            n += 1
    elif shape == "dwarf-inlined":
        names = args.names or 10_000
        lo, hi = args.depth or (6, 24)
        exe = "/opt/bench/bin/server"
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        inl = [f"bench::inl{i % 41}::helper{i}" for i in range(names)]
        fns = [f"bench::mod{i % 67}::func{i}" for i in range(names)]
        tail = [
            "\t            2d4c0 main+0x150 (/opt/bench/bin/server)\n",
            f"\t           27249 __libc_start_call_main+0x79 ({libc})\n",
            "\t           27304 __libc_start_main_impl+0x84 (inlined)\n",
            "\t            2e1f0 _start+0x20 (/opt/bench/bin/server)\n",
        ]
        while more():
            t += 0.001001
            out.write(header_task("server", 24451, t))
            depth = rng.randint(lo, hi)
            for _ in range(depth):
                f = rng.randrange(names)
                addr = 0x10000 + 0x30 * f + rng.randrange(0x30)
                if rng.random() < 1 / 3:
                    for _ in range(rng.randint(1, 3)):
                        g = rng.randrange(names)
                        out.write(f"\t{addr:16x} {inl[g]}+0x{addr & 0xff:x} (inlined)\n")
                out.write(frame(addr, fns[f], addr & 0xfff, exe))
            if rng.random() < 0.05:
                # DWARF unwinding that gave up: perf prints the garbage it found.
                out.write(unknown(0xffffffffffffffff, "[unknown]"))
            else:
                for line in tail:
                    out.write(line)
            out.write("\n")
            n += 1
    elif shape == "system-wide":
        names = args.names or 30_000
        lo, hi = args.depth or (3, 14)
        libs = libraries(40) + ["/usr/lib/x86_64-linux-gnu/libc.so.6"] * 10
        users = funcs_table(names, cpp_name, libs, lambda i: 0x7f0000001000 + 0x40 * i)
        ksyms = [
            "do_syscall_64", "entry_SYSCALL_64_after_hwframe", "__x64_sys_read", "ksys_read",
            "vfs_read", "new_sync_read", "filemap_read", "copy_page_to_iter", "__schedule",
            "schedule", "do_nanosleep", "hrtimer_nanosleep", "__x64_sys_futex", "do_futex",
            "futex_wait", "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
            "__sysvec_apic_timer_interrupt", "hrtimer_interrupt", "tick_sched_timer",
            "exc_page_fault", "do_user_addr_fault", "handle_mm_fault", "__handle_mm_fault",
            "do_anonymous_page", "clear_page_erms", "tcp_sendmsg", "tcp_sendmsg_locked",
            "__tcp_push_pending_frames", "tcp_write_xmit", "ip_finish_output2",
            "__dev_queue_xmit", "ext4_file_write_iter", "generic_perform_write",
            "iomap_file_buffered_write", "pipe_read", "pipe_write", "__wake_up_common_lock",
            "try_to_wake_up", "select_task_rq_fair",
        ]
        ksyms += [f"kfunc_{i}" for i in range(2000)]
        klines = [
            frame(0xFFFFFFFF81000000 + 0x1F3 * i, s, 0x10 + i % 0x90, "[kernel.kallsyms]")
            for i, s in enumerate(ksyms)
        ]
        idle = [
            frame(0xFFFFFFFF81F00000, "default_idle", 0x14, "[kernel.kallsyms]"),
            frame(0xFFFFFFFF82000000, "default_idle_call", 0x2d, "[kernel.kallsyms]"),
            frame(0xFFFFFFFF82000100, "do_idle", 0x1d7, "[kernel.kallsyms]"),
            frame(0xFFFFFFFF82000200, "cpu_startup_entry", 0x1d, "[kernel.kallsyms]"),
            frame(0xFFFFFFFF82000300, "start_secondary", 0x11b, "[kernel.kallsyms]"),
            frame(0xFFFFFFFF82000400, "secondary_startup_64_no_verify", 0xe5, "[kernel.kallsyms]"),
        ]
        tasks = []
        comms = (
            "systemd", "sshd", "bash", "postgres", "nginx", "node", "java", "python3",
            "kworker/u8:2", "Web Content", "Chrome_IOThread", "gnome-shell", "rg", "cc1plus",
            "rustc", "ld", "containerd", "dockerd", "cargo", "make",
        )
        for k in range(200):
            pid = 1000 + 37 * k
            tasks.append((comms[k % len(comms)], pid, pid + (k % 5)))
        while more():
            t += 0.000251
            cpu = rng.randrange(8)
            if rng.random() < 0.1:
                out.write(header_pid_tid("swapper", 0, 0, cpu, t))
                for line in idle:
                    out.write(line)
                out.write("\n")
                n += 1
                continue
            comm, pid, tid = tasks[rng.randrange(len(tasks))]
            out.write(header_pid_tid(comm, pid, tid, cpu, t))
            for _ in range(rng.randint(2, 9)):
                # Kernel paths are few and hot: the named entry points most of the time.
                k = rng.randrange(40) if rng.random() < 0.8 else rng.randrange(len(klines))
                out.write(klines[k])
            for _ in range(rng.randint(lo, hi)):
                if rng.random() < 0.08:
                    out.write(unknown(0x7F0000000000 + rng.randrange(1 << 30), libs[rng.randrange(40)]))
                else:
                    out.write(users[rng.randrange(names)][rng.randrange(4)])
            out.write("\n")
            n += 1
    else:
        raise SystemExit(f"unknown shape {shape!r}; one of: {', '.join(SHAPES)}")


def depth_range(s: str):
    lo, _, hi = s.partition("-")
    return (int(lo), int(hi or lo))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("shape", nargs="?", choices=SHAPES)
    p.add_argument("--list", action="store_true", help="print the shapes and exit")
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--samples", type=int, default=250_000)
    p.add_argument("--mb", type=float, default=0, help="write until this many MB instead")
    p.add_argument("--names", type=int, default=0, help="distinct function names")
    p.add_argument("--depth", type=depth_range, default=None, help="frames per stack, MIN-MAX")
    p.add_argument("--fanout", type=int, default=0, help="wide shapes: children of main")
    args = p.parse_args()
    if args.list:
        print("\n".join(SHAPES))
        return
    if not args.shape:
        p.error("a shape is needed (--list shows them)")
    out = Out(int(args.mb * 1024 * 1024))
    gen(args, random.Random(args.seed), out)
    out.flush()


if __name__ == "__main__":
    main()
