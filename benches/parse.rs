//! Parser throughput per format (`Throughput::Bytes`) on generated inputs, plus export.
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_wrap,
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

/// `@[kstack, ustack, comm] = count()` as bpftrace prints it: frames indented by 4
/// spaces, leaf first, a `, ` line between the stacks.
fn bpftrace_text(n: usize) -> String {
    let mut s = String::from("Attaching 1 probe...\n\n\n");
    for (frames, w) in stacks(n) {
        let (user, kernel) = frames.split_at(frames.len() / 2);
        s.push_str("@[\n");
        for (d, f) in kernel.iter().rev().enumerate() {
            let _ = writeln!(s, "    {f}+{}", 17 * d + 3);
        }
        s.push_str(", \n");
        for (d, f) in user.iter().rev().enumerate() {
            let _ = writeln!(s, "    {f}+{}", 11 * d + 5);
        }
        let _ = writeln!(s, ", mysqld]: {w}");
    }
    s
}

/// A pprof profile of `n` samples: one function and one location per name of [`FUNCS`]
/// (location `i + 1` calls function `i + 1`), two metrics as in a Go CPU profile.
fn pprof_bytes(n: usize) -> Vec<u8> {
    use flametui::input::pprof_proto as proto;
    use prost::Message;
    let id = |f: &str| FUNCS.iter().position(|&g| g == f).unwrap() as u64 + 1;
    let mut strings: Vec<Vec<u8>> = vec![Vec::new()];
    strings.extend(["samples", "count", "cpu", "nanoseconds"].map(|s| s.as_bytes().to_vec()));
    strings.extend(FUNCS.map(|f| f.as_bytes().to_vec()));
    let p = proto::Profile {
        sample_type: vec![
            proto::ValueType { r#type: 1, unit: 2 },
            proto::ValueType { r#type: 3, unit: 4 },
        ],
        location: (1..=FUNCS.len() as u64)
            .map(|i| proto::Location {
                id: i,
                mapping_id: 0,
                address: 0x1000 + i,
                line: vec![proto::Line {
                    function_id: i,
                    line: 1,
                }],
            })
            .collect(),
        function: (1..=FUNCS.len() as u64)
            .map(|i| proto::Function {
                id: i,
                name: i as i64 + 4,
                system_name: 0,
                filename: 0,
                start_line: 0,
            })
            .collect(),
        string_table: strings,
        ..proto::Profile::default()
    };
    let mut b = p.encode_to_vec();
    for (frames, w) in stacks(n) {
        let s = proto::Sample {
            location_id: frames.iter().rev().map(|f| id(f)).collect(),
            value: vec![w as i64, w as i64 * 10_000_000],
            label: Vec::new(),
        };
        b.push(2 << 3 | 2); // field 2, length-delimited
        b.extend(s.encode_length_delimited_to_vec());
    }
    b
}

/// A speedscope file as py-spy writes it: one sampled profile per thread (4), weights in
/// seconds, frames with a file and a line.
fn speedscope_json(n: usize) -> String {
    let frames: Vec<String> = FUNCS
        .iter()
        .enumerate()
        .map(|(i, f)| {
            format!(
                r#"{{"name":"{f}","file":"app/mod{i}.py","line":{}}}"#,
                10 + i
            )
        })
        .collect();
    let index = |f: &str| FUNCS.iter().position(|g| *g == f).unwrap();
    let mut threads = vec![(Vec::new(), Vec::new()); 4];
    for (i, (stack, w)) in stacks(n).into_iter().enumerate() {
        let ids: Vec<String> = stack.iter().map(|f| index(f).to_string()).collect();
        let (samples, weights) = &mut threads[i % 4];
        samples.push(format!("[{}]", ids.join(",")));
        weights.push(format!("{}", w as f64 * 0.010_309_278_350_515_464));
    }
    let profiles: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(t, (s, w))| {
            format!(
                r#"{{"type":"sampled","name":"Thread {t}","unit":"seconds","startValue":0,"endValue":{},"samples":[{}],"weights":[{}]}}"#,
                s.len(),
                s.join(","),
                w.join(",")
            )
        })
        .collect();
    format!(
        r#"{{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{{"frames":[{}]}},"profiles":[{}],"exporter":"bench"}}"#,
        frames.join(","),
        profiles.join(",")
    )
}

/// A `.cpuprofile` as node writes it: the call tree of `trees` generated stacks as nodes
/// (children lists), then `samples` samples cycling over their leaves with time deltas.
fn cpuprofile_json(trees: usize, samples: usize) -> String {
    use std::collections::HashMap;
    let mut nodes: Vec<(usize, &str, Vec<usize>)> = vec![(0, "(root)", Vec::new())];
    let mut child: HashMap<(usize, &str), usize> = HashMap::new();
    let mut leaves = Vec::new();
    for (stack, _) in stacks(trees) {
        let mut at = 0;
        for f in stack {
            at = *child.entry((at, f)).or_insert_with(|| {
                nodes.push((at, f, Vec::new()));
                let id = nodes.len() - 1;
                nodes[at].2.push(id);
                id
            });
        }
        leaves.push(at);
    }
    let body: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(id, (_, f, children))| {
            let kids: Vec<String> = children.iter().map(|c| (c + 1).to_string()).collect();
            format!(
                r#"{{"id":{},"callFrame":{{"functionName":"{f}","scriptId":"7","url":"https://example.com/app/work.js","lineNumber":{},"columnNumber":4}},"hitCount":1,"children":[{}]}}"#,
                id + 1,
                id % 500,
                kids.join(",")
            )
        })
        .collect();
    let ids: Vec<String> = (0..samples)
        .map(|i| (leaves[i % leaves.len()] + 1).to_string())
        .collect();
    let deltas: Vec<String> = (0..samples).map(|i| (900 + i % 250).to_string()).collect();
    format!(
        r#"{{"nodes":[{}],"startTime":30150135765,"endTime":30151704121,"samples":[{}],"timeDeltas":[{}]}}"#,
        body.join(","),
        ids.join(","),
        deltas.join(",")
    )
}

/// DTrace `@[ustack()] = count()` output: `n` stacks of 6 to 13 frames (module, backtick,
/// function, offset)
/// (leaf first) over 2,000 functions in 8 modules, each with its count, under the header.
fn dtrace_text(n: usize) -> String {
    let mut out =
        String::from("CPU     ID                    FUNCTION:NAME\n  1  81231   :tick-30s \n\n");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for _ in 0..n {
        out.push('\n');
        for _ in 0..6 + next(8) {
            let f = next(2_000);
            let _ = writeln!(out, "              mod{}`func{f}+0x{:x}", f % 8, next(512));
        }
        let _ = writeln!(out, "               {}", 1 + next(50));
    }
    out
}

fn bench_parsers(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (name, format, text) in [
        ("perf", FormatChoice::Perf, perf_text(20_000).into_bytes()),
        (
            "folded",
            FormatChoice::Folded,
            folded_text(50_000).into_bytes(),
        ),
        ("stap", FormatChoice::Stap, stap_text(20_000).into_bytes()),
        (
            "bpftrace",
            FormatChoice::Bpftrace,
            bpftrace_text(20_000).into_bytes(),
        ),
        ("pprof", FormatChoice::Pprof, pprof_bytes(50_000)),
        (
            "speedscope",
            FormatChoice::Auto,
            speedscope_json(50_000).into_bytes(),
        ),
        (
            "cpuprofile",
            FormatChoice::Auto,
            cpuprofile_json(2_000, 200_000).into_bytes(),
        ),
        (
            "dtrace (inferno's collapser)",
            FormatChoice::Dtrace,
            dtrace_text(20_000).into_bytes(),
        ),
    ] {
        let opts = LoadOptions {
            format,
            ..LoadOptions::default()
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(load_reader(&text[..], name, &opts).unwrap()));
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

fn bench_tree_and_finder(c: &mut Criterion) {
    use flametui::profile::CallTree;
    use flametui::profile::finder::{Narrowing, find, find_narrowing};
    use flametui::profile::functions::function_totals;
    let data = stacks(100_000);
    c.bench_function("build tree, 100k stacks", |b| {
        b.iter(|| {
            let mut t = CallTree::new();
            for (frames, w) in &data {
                t.insert(frames.iter(), *w);
            }
            t.finish();
            black_box(t)
        });
    });
    // 100k distinct names: the fuzzy finder scores each once per keystroke.
    let mut t = CallTree::new();
    for i in 0..100_000u32 {
        let name = format!(
            "{}::{}_{i}",
            FUNCS[i as usize % FUNCS.len()],
            FUNCS[(i as usize / 7) % FUNCS.len()]
        );
        t.insert(["main", name.as_str()], 1 + u64::from(i % 13));
    }
    t.finish();
    let weights: Vec<u64> = function_totals(&t).iter().map(|f| f.total).collect();
    c.bench_function("finder, first keystroke, 100k names", |b| {
        b.iter(|| black_box(find(&t, &weights, "l", 500)));
    });
    // Typing "logflush" one key at a time, as the finder does (each key narrows the last
    // key's matches); the time is for the whole word, 8 keystrokes.
    c.bench_function("finder, typing 8 keys, 100k names", |b| {
        b.iter(|| {
            let mut memo = Narrowing::default();
            for n in 1..="logflush".len() {
                black_box(find_narrowing(
                    &t,
                    &weights,
                    &"logflush"[..n],
                    500,
                    &mut memo,
                ));
            }
        });
    });
}

/// A `perf script` whose stacks are nearly all distinct (as long, DWARF and system-wide
/// recordings are): 8 to 20 frames over 20,000 names, the shape of
/// scripts/gen-distinct-perf.py, smaller.
fn distinct_perf_text(samples: usize) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut s = String::new();
    for i in 0..samples {
        let _ = writeln!(
            s,
            "worker-{} {} [000] {i}.000100:    1001001 cpu-clock:ppp: ",
            i % 16,
            4000 + i % 16
        );
        let depth = 8 + next(13);
        for d in 0..depth {
            let f = if d + 1 == depth {
                next(64)
            } else {
                next(20_000)
            };
            let _ = writeln!(
                s,
                "\t7f{f:010x} ns{}::Class{}::method{f}(long)+0x{d:x} (/usr/lib/libbench{:02}.so)",
                f % 97,
                f % 389,
                f % 40
            );
        }
        s.push('\n');
    }
    s
}

fn bench_distinct_stacks(c: &mut Criterion) {
    use flametui::profile::CallTree;
    let text = distinct_perf_text(20_000);
    let mut group = c.benchmark_group("distinct stacks");
    group.throughput(Throughput::Bytes(text.len() as u64));
    for threads in [1, 2] {
        let opts = LoadOptions {
            format: FormatChoice::Perf,
            threads: Some(threads),
            ..LoadOptions::default()
        };
        group.bench_function(format!("parse perf, {threads} threads"), |b| {
            b.iter(|| black_box(load_reader(text.as_bytes(), "bench", &opts).unwrap()));
        });
    }
    let half = text.len() / 2;
    let cut = half + text[half..].find("\n\n").unwrap() + 2;
    let tree_of = |t: &str| {
        let opts = LoadOptions {
            format: FormatChoice::Perf,
            threads: Some(1),
            ..LoadOptions::default()
        };
        match load_reader(t.as_bytes(), "bench", &opts).unwrap() {
            Loaded::Single(p) => p.tree,
            Loaded::Diff { .. } => unreachable!(),
        }
    };
    let (a, b) = (tree_of(&text[..cut]), tree_of(&text[cut..]));
    group.bench_function("merge two halves", |bench| {
        bench.iter_batched(
            || a.clone(),
            |mut t: CallTree| {
                t.merge_from(&b);
                black_box(t)
            },
            criterion::BatchSize::LargeInput,
        );
    });
    let whole = tree_of(&text);
    group.bench_function("export folded", |b| {
        b.iter(|| export::write_folded(std::io::sink(), &whole, export::Destination::Data));
    });
    // The export of two parser threads' trees: merged then written, or written as their
    // union (what `--export folded` does).
    group.bench_function("export folded of two halves, merged first", |bench| {
        bench.iter_batched(
            || a.clone(),
            |mut t: CallTree| {
                t.merge_from(&b);
                t.finish();
                export::write_folded(std::io::sink(), &t, export::Destination::Data)
            },
            criterion::BatchSize::LargeInput,
        );
    });
    group.bench_function("export folded of two halves, as their union", |bench| {
        bench.iter(|| {
            let parts = std::slice::from_ref(&b);
            export::write_folded_parts(std::io::sink(), &a, parts, export::Destination::Data)
        });
    });
    // The viewer's per-profile index, built before the first frame.
    group.bench_function("view index", |b| {
        b.iter(|| black_box(flametui::view::TreeIndex::new(&whole)));
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_parsers,
    bench_export,
    bench_tree_and_finder,
    bench_distinct_stacks
);
criterion_main!(benches);
