//! Every shape of `perf script` the benchmark matrix measures (scripts/gen-shapes-perf.py,
//! scripts/bench-matrix.sh) parses to the same folded export on one thread, on the default
//! threads, from a pipe, and in small chunks crossing samples: a speed-up that splits the
//! input differently must not change a byte. The inputs are made here, small (about
//! 1.2 MB each, over one 1 MiB parser chunk), in the same text as the generator's. The
//! line-by-line reader the viewer streams with gives the same too.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded, Snapshots};

/// Bytes of `perf script` per shape: past one 1 MiB parser chunk.
const SIZE: usize = 1_200_000;

const PERIOD: u64 = 1_001_001;

const SHAPES: [&str; 9] = [
    "repeated",
    "distinct-roots",
    "wide-one-root",
    "short-names",
    "wide-short",
    "long-cpp",
    "deep",
    "dwarf-inlined",
    "system-wide",
];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn frame(out: &mut String, addr: u64, sym: &str, off: u64, dso: &str) {
    writeln!(out, "\t{addr:16x} {sym}+0x{off:x} ({dso})").unwrap();
}

fn lib(i: usize) -> String {
    format!(
        "/usr/lib/x86_64-linux-gnu/libbench{:02}.so.{}",
        i % 40,
        i % 7
    )
}

fn cpp(i: usize) -> String {
    format!("ns{}::Class{}::method{i}(long)", i % 97, i % 389)
}

fn short(i: usize) -> String {
    format!("ns{}::Module{}::handler_{i}", i % 97, i % 439)
}

fn long_cpp(i: usize) -> String {
    const ARGS: [&str; 3] = [
        "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        "std::vector<unsigned long, std::allocator<unsigned long> >",
        "std::pair<int const, std::shared_ptr<bench::Session> >",
    ];
    let (a, b) = (ARGS[i % 3], ARGS[(i / 3) % 3]);
    format!(
        "bench::detail{}::Container{}<{a}, bench::Alloc<{b}> >::operation{i}<bench::Visitor{}>({a} const&, unsigned long, {b}&&) const",
        i % 53,
        i % 211,
        i % 17
    )
}

/// The `perf script` text of `shape`, about [`SIZE`] bytes.
fn generate(shape: &str, seed: u64) -> String {
    let mut r = Rng(seed | 1);
    let mut out = String::with_capacity(SIZE + (64 << 10));
    let mut t = 1000.0_f64;
    // repeated: the stacks it repeats.
    let stacks: Vec<Vec<usize>> = (0..60)
        .map(|_| {
            let depth = r.between(5, 30);
            (0..depth)
                .map(|d| if d == 0 { r.below(16) } else { r.below(2000) })
                .collect()
        })
        .collect();
    while out.len() < SIZE {
        t += 0.001_001;
        match shape {
            "repeated" => repeated(&mut r, &mut out, t, &stacks),
            "distinct-roots" | "short-names" | "long-cpp" => distinct(&mut r, &mut out, t, shape),
            "wide-one-root" | "wide-short" => wide(&mut r, &mut out, t, shape),
            "deep" => deep(&mut r, &mut out, t),
            "dwarf-inlined" => dwarf(&mut r, &mut out, t),
            "system-wide" => system_wide(&mut r, &mut out, t),
            _ => unreachable!("{shape}"),
        }
        out.push('\n');
    }
    out
}

fn repeated(r: &mut Rng, out: &mut String, t: f64, stacks: &[Vec<usize>]) {
    let tid = 3100 + r.below(4);
    writeln!(out, "app {tid:5} {t:.6}: {PERIOD:10} cpu-clock:ppp: ").unwrap();
    // Skewed: the first stacks most often.
    let top = r.below(stacks.len()) + 1;
    let s = &stacks[r.below(top)];
    for &f in s.iter().rev() {
        frame(
            out,
            0x7f00_0000_1000 + 0x40 * f as u64,
            &cpp(f),
            0x9,
            &lib(f),
        );
    }
}

fn distinct(r: &mut Rng, out: &mut String, t: f64, shape: &str) {
    let p = r.below(16);
    let tid = 4000 + p;
    writeln!(
        out,
        "worker-{p} {tid:5} [{:03}] {t:.6}: {PERIOD:10} cpu-clock:ppp: ",
        tid % 2
    )
    .unwrap();
    let (lo, hi) = if shape == "long-cpp" {
        (6, 30)
    } else {
        (8, 20)
    };
    let depth = r.between(lo, hi);
    let frames: Vec<usize> = (0..depth)
        .map(|d| if d == 0 { r.below(64) } else { r.below(20_000) })
        .collect();
    for &f in frames.iter().rev() {
        match shape {
            "short-names" => {
                frame(
                    out,
                    0x1000 + 0x40 * (f / 40) as u64,
                    &short(f),
                    0x1,
                    &lib(f),
                );
            }
            "long-cpp" => {
                frame(
                    out,
                    0x7f00_0000_1000 + 0x40 * f as u64,
                    &long_cpp(f),
                    0x17,
                    &lib(f),
                );
            }
            _ => frame(
                out,
                0x7f00_0000_1000 + 0x40 * f as u64,
                &cpp(f),
                0x2c,
                &lib(f),
            ),
        }
    }
}

fn wide(r: &mut Rng, out: &mut String, t: f64, shape: &str) {
    let tid = 7100 + r.below(4);
    writeln!(out, "wide {tid:5} {t:.6}: {PERIOD:10} cpu-clock:ppp: ").unwrap();
    let depth = r.between(6, 16);
    let child = r.below(2000);
    let frames: Vec<usize> = std::iter::once(child)
        .chain((0..depth - 2).map(|_| r.below(20_000)))
        .collect();
    for &f in frames.iter().rev() {
        let name = if shape == "wide-short" {
            short(f)
        } else {
            cpp(f)
        };
        frame(out, 0x1000 + 0x40 * f as u64, &name, 0x17, &lib(f));
    }
    frame(out, 0x1139, "main", 0x19, "/usr/bin/wide");
}

fn deep(r: &mut Rng, out: &mut String, t: f64) {
    let tid = 5150 + r.below(8);
    writeln!(out, "java {tid:5} {t:.6}: {PERIOD:10} cpu-clock:ppp: ").unwrap();
    let jit = "/tmp/perf-5150.map";
    let rec = ["expr", "term", "factor", "unary", "call"];
    let depth = r.between(100, 300);
    for _ in 0..r.between(1, 6) {
        let f = r.below(20_000);
        let name = format!("Lcom/bench/svc{}/Handler{};::step{f}", f % 31, f % 257);
        frame(out, 0x7f3a_1000_0000 + 0x80 * f as u64, &name, 0x23, jit);
    }
    let mut k = r.below(5);
    for _ in 0..depth {
        let name = format!("Lcom/bench/parse/Parser;::{}", rec[k]);
        frame(out, 0x7f3a_0f00_0000 + 0x400 * k as u64, &name, 0x4b, jit);
        k = (k + if r.chance(25) { 4 } else { 1 }) % 5;
    }
    let libjvm = "/usr/lib/jvm/java-17/lib/server/libjvm.so";
    frame(
        out,
        0x7f3a_2a42_0000,
        "JavaCalls::call_helper",
        0x2c8,
        libjvm,
    );
    frame(out, 0x7f3a_2a41_0000, "JavaThread::run", 0x1a4, libjvm);
}

fn dwarf(r: &mut Rng, out: &mut String, t: f64) {
    writeln!(out, "server 24451 {t:.6}: {PERIOD:10} cpu-clock:ppp: ").unwrap();
    for _ in 0..r.between(6, 24) {
        let f = r.below(10_000);
        let addr = 0x10000 + 0x30 * f as u64 + r.below(0x30) as u64;
        if r.chance(33) {
            for _ in 0..r.between(1, 3) {
                let g = r.below(10_000);
                let name = format!("bench::inl{}::helper{g}", g % 41);
                frame(out, addr, &name, addr & 0xff, "inlined");
            }
        }
        let name = format!("bench::mod{}::func{f}", f % 67);
        frame(out, addr, &name, addr & 0xfff, "/opt/bench/bin/server");
    }
    if r.chance(5) {
        out.push_str("\tffffffffffffffff [unknown] ([unknown])\n");
    } else {
        frame(out, 0x2d4c0, "main", 0x150, "/opt/bench/bin/server");
        frame(
            out,
            0x27249,
            "__libc_start_call_main",
            0x79,
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
        );
        frame(out, 0x27304, "__libc_start_main_impl", 0x84, "inlined");
        frame(out, 0x2e1f0, "_start", 0x20, "/opt/bench/bin/server");
    }
}

fn system_wide(r: &mut Rng, out: &mut String, t: f64) {
    const COMMS: [&str; 6] = [
        "systemd",
        "kworker/u8:2",
        "Web Content",
        "postgres",
        "rustc",
        "bash",
    ];
    let cpu = r.below(8);
    if r.chance(10) {
        writeln!(
            out,
            "swapper {:5}/{:<5} [{cpu:03}] {t:.6}: {PERIOD:10} cpu-clock:ppp: ",
            0, 0
        )
        .unwrap();
        for name in [
            "default_idle",
            "do_idle",
            "cpu_startup_entry",
            "start_secondary",
        ] {
            frame(out, 0xffff_ffff_8200_0000, name, 0x2d, "[kernel.kallsyms]");
        }
    } else {
        let k = r.below(200);
        let pid = 1000 + 37 * k;
        let tid = pid + k % 5;
        writeln!(
            out,
            "{} {pid:5}/{tid:<5} [{cpu:03}] {t:.6}: {PERIOD:10} cpu-clock:ppp: ",
            COMMS[k % COMMS.len()]
        )
        .unwrap();
        for _ in 0..r.between(2, 9) {
            let k = if r.chance(80) {
                r.below(40)
            } else {
                r.below(2040)
            };
            let name = format!("kfunc_{k}");
            frame(
                out,
                0xffff_ffff_8100_0000 + 0x1f3 * k as u64,
                &name,
                0x10,
                "[kernel.kallsyms]",
            );
        }
        for _ in 0..r.between(3, 14) {
            let f = r.below(30_000);
            if r.chance(8) {
                let addr = 0x7f00_0000_0000 + r.below(1 << 30) as u64;
                writeln!(out, "\t{addr:16x} [unknown] ({})", lib(f)).unwrap();
            } else {
                frame(
                    out,
                    0x7f00_0000_1000 + 0x40 * f as u64,
                    &cpp(f),
                    0x9,
                    &lib(f),
                );
            }
        }
    }
}

/// The binary's standard output for `args`; it must succeed.
fn flametui(args: &[&str], stdin: Option<&[u8]>) -> String {
    let out = crate::cli::run(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The folded export of `file` loaded with `opts`, through the library.
fn folded(file: &str, opts: &LoadOptions) -> String {
    let Ok(Loaded::Single(p)) = input::load_path(file, opts) else {
        panic!("{file}: not one profile")
    };
    export::folded_lines(&p.tree)
        .into_iter()
        .map(|l| l + "\n")
        .collect()
}

#[test]
fn every_shape_exports_the_same_on_any_threads_and_chunks() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-shapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, shape) in SHAPES.into_iter().enumerate() {
        let text = generate(shape, 0x5eed + i as u64);
        let path = dir.join(format!("{shape}.txt"));
        std::fs::write(&path, &text).unwrap();
        let file = path.to_str().unwrap();
        let one = flametui(&["--export", "folded", "--threads", "1", file], None);
        let samples = text.matches("\n\n").count();
        assert!(
            one.lines().count() > 10,
            "{shape}: {} lines",
            one.lines().count()
        );
        let total: u64 = one
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            total,
            samples as u64 * 1_001_001,
            "{shape}: every sample once, by its period"
        );
        // The default threads (one per core), and more, so one core still crosses chunks.
        for args in [
            &["--export", "folded", file][..],
            &["--export", "folded", "--threads", "2", file],
            &["--export", "folded", "--threads", "3", "-"],
        ] {
            let stdin = args.contains(&"-").then_some(text.as_bytes());
            let got = flametui(args, stdin);
            assert!(got == one, "{shape}: {args:?} differs from --threads 1");
        }
        // Chunks of 4 KiB: each sample's chance to straddle a boundary.
        for threads in [2, 3] {
            let opts = LoadOptions {
                format: FormatChoice::Perf,
                threads: Some(threads),
                chunk_size: Some(4096),
                ..LoadOptions::default()
            };
            let got = folded(file, &opts);
            assert!(
                got == one,
                "{shape}: {threads} threads in 4 KiB chunks differ"
            );
        }
        // Line by line, as the viewer reads while showing snapshots on one thread (the
        // export reads a chunk at a time).
        let opts = LoadOptions {
            format: FormatChoice::Perf,
            threads: Some(1),
            snapshots: Some(Snapshots {
                every: Duration::from_secs(3600),
                sink: Arc::new(|_| {}),
                intervals: false,
            }),
            ..LoadOptions::default()
        };
        let got = folded(file, &opts);
        assert!(got == one, "{shape}: line by line differs from in chunks");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
