//! Parser throughput per format (`Throughput::Bytes`) on generated inputs, plus export.
#![allow(
    clippy::unwrap_used,
    clippy::format_push_string,
    clippy::format_collect
)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flametui::export;
use flametui::input::{FormatChoice, LoadOptions, Loaded, load_reader};

const FUNCS: [&str; 12] = [
    "main",
    "run",
    "std::vector<int>::push_back",
    "parse_line",
    "memcpy",
    "read",
    "tokio::runtime::task::Harness::poll",
    "do_syscall_64",
    "entry_SYSCALL_64",
    "vfs_read",
    "JOIN::exec",
    "log_write_flush_to_disk_low",
];

/// Deterministic pseudo-random stacks: (frames root first, weight).
fn stacks(n: usize) -> Vec<(Vec<&'static str>, u64)> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let depth = 4 + (x % 24) as usize;
            let frames = (0..depth)
                .map(|d| FUNCS[((x >> (d % 40)) as usize + d) % FUNCS.len()])
                .collect();
            (frames, 1 + x % 7)
        })
        .collect()
}

fn perf_text(n: usize) -> String {
    let mut s = String::new();
    for (i, (frames, w)) in stacks(n).iter().enumerate() {
        let _ = writeln!(
            s,
            "worker 4242/4243 [001] {i}.000100: {} cpu-clock:pppH: ",
            w * 250_000
        );
        for (d, f) in frames.iter().rev().enumerate() {
            let _ = writeln!(
                s,
                "\t    7f00{d:08x} {f}+0x{d:x} (/usr/lib/x86_64-linux-gnu/libfoo.so.1)"
            );
        }
        s.push('\n');
    }
    s
}

fn folded_text(n: usize) -> String {
    stacks(n)
        .iter()
        .map(|(f, w)| format!("{} {w}\n", f.join(";")))
        .collect()
}

fn stap_text(n: usize) -> String {
    let mut s = String::new();
    for (frames, w) in stacks(n) {
        for (d, f) in frames.iter().rev().enumerate() {
            let _ = writeln!(
                s,
                " 0x{:x} : {f}+0x{d:x}/0x200 [/usr/sbin/mysqld]",
                0x40_0000 + d
            );
        }
        let _ = writeln!(s, "\t{w}");
    }
    s
}

fn bench_parsers(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (name, format, text) in [
        ("perf", FormatChoice::Perf, perf_text(20_000)),
        ("folded", FormatChoice::Folded, folded_text(50_000)),
        ("stap", FormatChoice::Stap, stap_text(20_000)),
    ] {
        let opts = LoadOptions {
            format,
            ..LoadOptions::default()
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(load_reader(text.as_bytes(), name, &opts).unwrap()));
        });
    }
    group.finish();
}

fn bench_export(c: &mut Criterion) {
    let text = perf_text(20_000);
    let Loaded::Single(p) = load_reader(text.as_bytes(), "bench", &LoadOptions::default()).unwrap()
    else {
        return;
    };
    c.bench_function("export_folded", |b| {
        b.iter(|| black_box(export::folded_lines(&p.tree)));
    });
}

criterion_group!(benches, bench_parsers, bench_export);
criterion_main!(benches);
