//! Source lines from `perf script -F +srcline` (issue 32), against what perf itself says
//! of the same samples. `testdata/srcline/hot.c` was recorded twice (see the README):
//! `perf-srcline.txt.gz` with frame pointers, `perf-srcline-dwarf.txt.gz` with DWARF
//! unwinding (perf then prints the inlined `mix` as a frame of its own), and
//! `perf-srcline-dwarf-plain.txt.gz` the same DWARF recording without `srcline`.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use flametui::export;
use flametui::input::{LoadOptions, Snapshots};
use flametui::profile::{NodeId, Profile};

use crate::testdata;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// The frame-pointer recording's period (`perf record -F 999`).
const FP_PERIOD: u64 = 1_001_001;
/// The DWARF recording's period (`-F 499`).
const DWARF_PERIOD: u64 = 2_004_008;

/// `perf report -i hot.data --no-children --sort srcline --stdio -F overhead,sample,period,srcline`
/// of the frame-pointer recording: the samples whose leaf is at each line of hot.c (all
/// 1096 samples of the recording). Lines 10-12 are `mix`, inlined into `work`, 34-35
/// `work`'s loop, 24-25 `spin`'s.
const FP_SELF: [(u32, u64); 7] = [
    (10, 98),
    (11, 79),
    (12, 394),
    (24, 109),
    (25, 139),
    (34, 184),
    (35, 93),
];

/// The same of the DWARF recording: 545 of its 546 samples (the other one's leaf is in
/// the kernel, `_raw_spin_unlock_irqrestore+25`, whose srcline perf prints as
/// `[kernel.kallsyms][ffffffff82250979]`).
const DWARF_SELF: [(u32, u64); 7] = [
    (10, 51),
    (11, 41),
    (12, 192),
    (24, 58),
    (25, 65),
    (34, 90),
    (35, 48),
];

fn load(name: &str, opts: &LoadOptions) -> Profile {
    Profile::from_path(&testdata(name), opts).unwrap()
}

/// `(function, file, line) → (self, total)` over the whole profile.
fn by_function(p: &Profile) -> BTreeMap<(String, String, u32), (u64, u64)> {
    let lines = p.samples.lines();
    let names = p.tree.names();
    let mut out = BTreeMap::new();
    for f in lines.functions() {
        let kind = names.kind(f);
        let name = format!("{} {:?} {}", names.resolve(f), kind.library, kind.inlined);
        for (line, cost) in lines.of_function(f) {
            let file = lines.path(line.file).to_owned();
            out.insert(
                (name.clone(), file, line.number),
                (cost.self_weight, cost.total),
            );
        }
    }
    out
}

/// `(node's path, file, line) → (self, total)`: the lines of every node.
fn by_node(p: &Profile) -> BTreeMap<(String, String, u32), (u64, u64)> {
    let lines = p.samples.lines();
    let mut out = BTreeMap::new();
    for id in p.tree.ids().filter(|&id| id != NodeId::ROOT) {
        for (line, cost) in lines.of_node(id) {
            out.insert(
                (
                    p.tree.path_string(id),
                    lines.path(line.file).to_owned(),
                    line.number,
                ),
                (cost.self_weight, cost.total),
            );
        }
    }
    out
}

/// The self weight at each line of `hot.c`, whatever the function.
fn self_per_line(p: &Profile) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    for ((_, file, number), (self_weight, _)) in by_function(p) {
        if self_weight > 0 {
            assert_eq!(file, "hot.c");
            *out.entry(number).or_insert(0) += self_weight;
        }
    }
    out
}

fn weights(figures: &[(u32, u64)], period: u64) -> BTreeMap<u32, u64> {
    figures.iter().map(|&(l, n)| (l, n * period)).collect()
}

#[test]
fn each_lines_self_is_perf_reports() {
    let fp = load("perf-srcline.txt.gz", &LoadOptions::default());
    assert_eq!(fp.stats.skipped_lines(), 0);
    assert_eq!(fp.stats.samples, 1096);
    assert_eq!(self_per_line(&fp), weights(&FP_SELF, FP_PERIOD));
    let dwarf = load("perf-srcline-dwarf.txt.gz", &LoadOptions::default());
    assert_eq!(dwarf.stats.skipped_lines(), 0);
    assert_eq!(dwarf.stats.samples, 546);
    assert_eq!(self_per_line(&dwarf), weights(&DWARF_SELF, DWARF_PERIOD));
    // By function: with frame pointers, perf prints no frame for the inlined `mix`: its
    // lines are `work`'s leaf lines; with DWARF they are the inlined frame's.
    let f = by_function(&fp);
    let work = |n: u32| f[&("work Some(\"hot\") false".to_owned(), "hot.c".to_owned(), n)];
    assert_eq!(work(12), (394 * FP_PERIOD, 394 * FP_PERIOD));
    let d = by_function(&dwarf);
    let mix = |n: u32| d[&("mix Some(\"hot\") true".to_owned(), "hot.c".to_owned(), n)];
    // Line 12 is also under the kernel sample's stack: in its total, not its self.
    assert_eq!(mix(12), (192 * DWARF_PERIOD, 193 * DWARF_PERIOD));
}

#[test]
fn a_call_sites_line_holds_the_callees_time_as_total() {
    // perf 6.1's `--children --sort srcline` prints no line for callers (it prints
    // `work+<address>`), so the callers' totals are held to the callees' self sums, and
    // to the count of each caller line in the perf script text.
    let fp = by_function(&load("perf-srcline.txt.gz", &LoadOptions::default()));
    let line = |f: &str, n: u32| fp[&(format!("{f} Some(\"hot\") false"), "hot.c".to_owned(), n)];
    // With frame pointers perf prints the return address's line: the instruction after
    // `call spin` (line 36) is on line 38, the closing brace. spin's 109 + 139 samples.
    assert_eq!(line("work", 38), (0, 248 * FP_PERIOD));
    assert_eq!(line("main", 45), (0, 1096 * FP_PERIOD));
    let dwarf = by_function(&load("perf-srcline-dwarf.txt.gz", &LoadOptions::default()));
    let line =
        |f: &str, n: u32| dwarf[&(format!("{f} Some(\"hot\") false"), "hot.c".to_owned(), n)];
    // DWARF unwinding gives the call's own line: spin's 58 + 65 samples.
    assert_eq!(line("work", 36), (0, 123 * DWARF_PERIOD));
    // Line 35 is work's own (48) and where the inlined mix sits (51 + 41 + 192 + 1).
    assert_eq!(line("work", 35), (48 * DWARF_PERIOD, 333 * DWARF_PERIOD));
    assert_eq!(line("main", 45), (0, 546 * DWARF_PERIOD));
}

/// Every name on the tree with its library and whether it is inlined.
fn kinds(p: &Profile) -> BTreeSet<(String, Option<String>, bool)> {
    let names = p.tree.names();
    p.tree
        .ids()
        .filter(|&id| id != NodeId::ROOT)
        .map(|id| p.tree.node(id).name)
        .map(|n| {
            let k = names.kind(n);
            (
                names.resolve(n).to_owned(),
                k.library.map(str::to_owned),
                k.inlined,
            )
        })
        .collect()
}

#[test]
fn srcline_lines_change_no_frame() {
    // With frame pointers: the text without its srcline lines.
    let text = String::from_utf8(
        Command::new("gzip")
            .args(["-dc", &testdata("perf-srcline.txt.gz")])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let plain: String = text
        .lines()
        .filter(|l| !l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(plain.len() < text.len());
    let opts = LoadOptions::default();
    let with = load("perf-srcline.txt.gz", &opts);
    let without = Profile::from_reader(plain.as_bytes(), "plain", &opts).unwrap();
    assert!(without.samples.lines().is_empty());
    assert_eq!(
        export::folded_lines(&with.tree),
        export::folded_lines(&without.tree)
    );
    assert_eq!(kinds(&with), kinds(&without));
    // With DWARF: perf marks an inlined frame ` (inlined)` after its srcline line (and
    // prints no DSO): the same frames, `mix` and `__libc_start_main_impl` inlined.
    let with = load("perf-srcline-dwarf.txt.gz", &opts);
    let without = load("perf-srcline-dwarf-plain.txt.gz", &opts);
    assert_eq!(
        export::folded_lines(&with.tree),
        export::folded_lines(&without.tree)
    );
    let k = kinds(&with);
    assert_eq!(k, kinds(&without));
    assert!(k.contains(&("mix".to_owned(), Some("hot".to_owned()), true)));
    assert_eq!(with.stats.samples, without.stats.samples);
    assert_eq!(
        with.stats.line_counts.in_samples,
        with.stats.lines - with.stats.line_counts.blank
    );
    // The CLI's folded export (names only) too.
    let folded = |name: &str| {
        let out = Command::new(BIN)
            .args(["--export", "folded"])
            .arg(testdata(name))
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(
        folded("perf-srcline-dwarf.txt.gz"),
        folded("perf-srcline-dwarf-plain.txt.gz")
    );
}

#[test]
fn annotate_prints_perfs_figures_for_the_hot_lines() {
    let out = Command::new(BIN)
        .args(["--annotate", "^(work|spin)$", "--exact", "--source-path"])
        .arg(testdata("srcline"))
        .arg(testdata("perf-srcline.txt.gz"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Total: 1,097,097,096 ns\n"), "{text}");
    let row = |needle: &str| {
        text.lines()
            .find(|l| l.ends_with(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in\n{text}"))
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // perf report's 394, 184, 93, 109 and 139 samples of 1,001,001 ns.
    assert_eq!(row("return x ^ (x >> 29);"), "394,394,394 394,394,394 12:");
    assert_eq!(
        row("for (unsigned long i = 0; i < n; i++)"),
        "184,184,184 184,184,184 34:"
    );
    assert_eq!(row("s += mix(i + s);"), "93,093,093 93,093,093 35:");
    assert_eq!(row("s += i % 7 * (s | 1);"), "109,109,109 109,109,109 24:");
    assert_eq!(
        row("if ((i & 0xfffff) == 0)"),
        "139,139,139 139,139,139 25:"
    );
    assert!(
        text.contains(
            "ROUTINE ======================== work in hot.c\n  \
             848,848,848 1,097,097,096 (flat, cum) 100.00% of Total\n"
        ),
        "{text}"
    );
    // The call of spin, at the return address's line.
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().eq([".", "248,248,248", "38:", "}"])),
        "{text}"
    );
}

#[test]
fn lines_are_the_same_however_the_input_is_parsed() {
    for name in ["perf-srcline.txt.gz", "perf-srcline-dwarf.txt.gz"] {
        let one = load(
            name,
            &LoadOptions {
                threads: Some(1),
                ..LoadOptions::default()
            },
        );
        let (functions, nodes) = (by_function(&one), by_node(&one));
        assert!(nodes.len() >= 10, "{nodes:?}");
        for chunk in [4096, 10_000, 65_536] {
            let two = load(
                name,
                &LoadOptions {
                    threads: Some(2),
                    chunk_size: Some(chunk),
                    ..LoadOptions::default()
                },
            );
            assert_eq!(by_function(&two), functions, "{name}, chunks of {chunk}");
            assert_eq!(by_node(&two), nodes, "{name}, chunks of {chunk}");
        }
        // Streamed (as from a pipe into the viewer): the whole profile at the end has
        // them too.
        let streamed = load(
            name,
            &LoadOptions {
                threads: Some(2),
                chunk_size: Some(4096),
                snapshots: Some(Snapshots {
                    every: std::time::Duration::ZERO,
                    intervals: false,
                    sink: std::sync::Arc::new(|_| {}),
                }),
                ..LoadOptions::default()
            },
        );
        assert_eq!(by_function(&streamed), functions, "{name} streamed");
        assert_eq!(by_node(&streamed), nodes, "{name} streamed");
    }
}

/// Bad srcline lines are skipped and counted; no frame is made of one, and the frames
/// are those of the input without them.
#[test]
fn hostile_srcline_lines_are_skipped_and_counted() {
    let long = format!("  {}.c:3", "x".repeat(100_000));
    let lines = [
        "app 1 1.0: 5 cpu-clock: ",
        "  a.c:1",
        "\t10 f+0x1 (/bin/app)",
        "  a.c:4294967296",
        "\t20 g+0x1 (/bin/app)",
        long.as_str(),
        "\t30 h+0x1 (/bin/app)",
        "  a.c:7",
        "  a.c:8",
        "\t40 [unknown] ([unknown])",
        "  ??:0",
        "",
        "  a.c:9",
        "app 1 2.0: 5 cpu-clock: ",
        "\t10 f+0x1 (/bin/app)",
        "  a.c:4294967295",
        "\t20 g+0x1 (/bin/app)",
        "  a.c:garbage",
        "\t30 h+0x1 (/bin/app)",
        "  a.c:3 (inlined)",
        "",
        // No callchain: the frame on the event line, its srcline line next.
        "app 1 3.0: 5 cpu-clock: 50 k+0x1 (/bin/app)",
        "  b.c:5",
        "app 1 4.0: 5 cpu-clock: 50 k+0x1 (/bin/app)",
        "  b.c:5",
        "  b.c:6",
        "",
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let plain: String = lines
        .iter()
        .filter(|l| !l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    let opts = LoadOptions::default();
    let p = Profile::from_reader(text.as_bytes(), "hostile", &opts).unwrap();
    let q = Profile::from_reader(plain.as_bytes(), "plain", &opts).unwrap();
    assert_eq!(export::folded_lines(&p.tree), export::folded_lines(&q.tree));
    assert_eq!(
        p.stats.skipped,
        BTreeMap::from([
            ("perf srcline file name too long", 1),
            ("perf srcline line number out of range", 2),
            ("perf srcline line without a frame", 4),
            ("unreadable perf stack line", 1),
        ])
    );
    // The lines read, each its frame's (h's twice, k's once).
    let got: BTreeSet<(String, String, u32)> = by_node(&p).into_keys().collect();
    let want: BTreeSet<(String, String, u32)> = [
        ("app;[unknown];h", "a.c", 7),
        ("app;h", "a.c", 3),
        ("app;k", "b.c", 5),
    ]
    .iter()
    .map(|&(p, f, n)| (p.to_owned(), f.to_owned(), n))
    .collect();
    assert_eq!(got, want);
}

/// `perf report -i fp.data --no-children --sort srcline -F sample,srcline -g none` of
/// `perf-data-srcline.data.gz` (frame pointers, `-F 999`, 736 samples of `hot 20000000`).
const DATA_SELF: [(u32, u64); 7] = [
    (10, 55),
    (11, 74),
    (12, 251),
    (24, 77),
    (25, 91),
    (34, 124),
    (35, 64),
];

/// A directory holding `hot` (the binary of the perf.data recording) under its name.
fn symfs_with_hot() -> std::path::PathBuf {
    symfs_with("srcline/hot.gz", "srcline")
}

/// A directory (named by `tag`) holding the binary `gz` (gzipped, in testdata) as `hot`.
fn symfs_with(gz: &str, tag: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-{tag}-symfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = crate::testdata_gunzipped(gz);
    let tmp = dir.join(format!("hot.{:?}", std::thread::current().id()));
    std::fs::write(&tmp, bin).unwrap();
    std::fs::rename(&tmp, dir.join("hot")).unwrap();
    dir
}

/// A perf.data recording's lines come from its binary's DWARF: per function and line,
/// the figures of `perf script -F +srcline` of the same recording (perf's own answer,
/// `perf-data-srcline.script.txt.gz`), and each line's self is `perf report`'s. Only the
/// file names differ: DWARF's whole path, perf's base name.
#[test]
fn a_perf_data_recordings_lines_are_perf_scripts_srclines() {
    let opts = LoadOptions {
        perf_data: flametui::input::PerfDataOptions {
            symfs: vec![symfs_with_hot()],
            kallsyms: Some(std::path::PathBuf::from("/dev/null")),
            buildid_dir: None,
            lines: true,
        },
        ..LoadOptions::default()
    };
    let data = load("perf-data-srcline.data.gz", &opts);
    // Lines are read only when asked for (the text outputs that show none need not).
    let mut without = opts.clone();
    without.perf_data.lines = false;
    let plain = load("perf-data-srcline.data.gz", &without);
    assert!(plain.samples.lines().is_empty());
    assert_eq!(plain.tree.total(), data.tree.total());
    let script = load("perf-data-srcline.script.txt.gz", &LoadOptions::default());
    assert_eq!(data.stats.samples, 736);
    // The binary's frames (libc's debug file, which perf found here, is not given).
    let base = |m: BTreeMap<(String, String, u32), (u64, u64)>| -> BTreeMap<_, _> {
        m.into_iter()
            .filter(|((_, file, _), _)| file.ends_with("hot.c"))
            .map(|((f, file, n), c)| {
                let name = file.rsplit('/').next().unwrap_or(&file).to_owned();
                ((f, name, n), c)
            })
            .collect()
    };
    let from_dwarf = base(by_function(&data));
    assert!(from_dwarf.len() >= 8, "{from_dwarf:?}");
    assert_eq!(from_dwarf, base(by_function(&script)));
    // Paths from `main` (libc's frame below it is `[libc.so.6]` without its binary).
    let from_main = |m: BTreeMap<(String, String, u32), (u64, u64)>| -> BTreeMap<_, _> {
        base(m)
            .into_iter()
            .map(|((path, file, n), c)| {
                let at = path.find(";main").unwrap_or(0);
                ((path[at..].to_owned(), file, n), c)
            })
            .collect()
    };
    let nodes = from_main(by_node(&data));
    assert!(nodes.len() >= 9, "{nodes:?}");
    assert_eq!(nodes, from_main(by_node(&script)));
    assert!(
        data.samples
            .lines()
            .functions()
            .iter()
            .flat_map(|&f| data.samples.lines().of_function(f))
            .all(|(l, _)| data.samples.lines().path(l.file).ends_with("/hot.c"))
    );
    let mut self_lines = BTreeMap::new();
    for ((_, _, n), (s, _)) in &from_dwarf {
        if *s > 0 {
            *self_lines.entry(*n).or_insert(0) += s;
        }
    }
    assert_eq!(self_lines, weights(&DATA_SELF, FP_PERIOD));
}

/// A directory holding the stripped `hot` (`testdata/stripped/hot.gz`) under its name.
fn symfs_with_stripped_hot() -> std::path::PathBuf {
    symfs_with("stripped/hot.gz", "stripped")
}

/// `perf script -i strip.data -F ip,sym,symoff -G` counted per address: the leaves of the
/// recording of `hot.c` built without `-g` and stripped, in `spin` and `work`.
const STRIPPED_SELF: [(&str, u32, u64); 17] = [
    ("spin", 0x2f, 1),
    ("spin", 0x35, 51),
    ("spin", 0x38, 1),
    ("spin", 0x3b, 1),
    ("spin", 0x42, 4),
    ("spin", 0x4a, 11),
    ("spin", 0x4d, 6),
    ("spin", 0x53, 51),
    ("spin", 0x5b, 10),
    ("spin", 0x5e, 146),
    ("work", 0x24, 97),
    ("work", 0x2f, 116),
    ("work", 0x32, 107),
    ("work", 0x36, 91),
    ("work", 0x3d, 292),
    ("work", 0x40, 84),
    ("work", 0x43, 98),
];

/// A binary without lines gets its cost per instruction, as `perf annotate` counts it:
/// each address's self is perf's count of leaves there, and the listing disassembles the
/// function (the instructions `perf annotate --stdio -s spin` prints, in its syntax).
#[test]
fn a_stripped_binarys_functions_are_listed_per_instruction() {
    let symfs = symfs_with_stripped_hot();
    let opts = LoadOptions {
        perf_data: flametui::input::PerfDataOptions {
            symfs: vec![symfs.clone()],
            kallsyms: Some(std::path::PathBuf::from("/dev/null")),
            buildid_dir: None,
            lines: true,
        },
        ..LoadOptions::default()
    };
    let p = load("perf-data-stripped.data.gz", &opts);
    let lines = p.samples.lines();
    let names = p.tree.names();
    let mut got = Vec::new();
    for f in lines.functions() {
        let name = names.resolve(f);
        if name != "spin" && name != "work" {
            continue;
        }
        for (line, c) in lines.of_function(f) {
            let code = lines.code(line.file).expect("a code file");
            assert!(lines.path(line.file).ends_with("/hot"));
            assert!(code.bytes.len() > 0x40, "{}", code.bytes.len());
            if c.self_weight > 0 {
                got.push((name, line.number, c.self_weight / FP_PERIOD));
            }
        }
    }
    got.sort_unstable();
    assert_eq!(got, STRIPPED_SELF);
    // The text form: instructions by offset, as objdump writes them.
    let out = Command::new(BIN)
        .args(["--annotate", "^spin$", "--exact", "--symfs"])
        .arg(&symfs)
        .args(["--kallsyms", "/dev/null"])
        .arg(testdata("perf-data-stripped.data.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("ROUTINE ======================== spin in "),
        "{text}"
    );
    assert!(text.contains("at 0x11c0, no source lines"), "{text}");
    let row = |offset: &str| {
        text.lines()
            .find(|l| l.contains(&format!(" {offset}: ")))
            .unwrap_or_else(|| panic!("{offset} in {text}"))
            .to_owned()
    };
    assert!(row("+5e").contains("146,146,146"), "{text}");
    assert!(
        row("+5e").ends_with("test    $0xfffff,%ecx"),
        "{}",
        row("+5e")
    );
    assert!(row("+20").ends_with("add     $0x1,%rcx"), "{}", row("+20"));
    assert!(row("+64").ends_with("jne     0x11e0"), "{}", row("+64"));
    let _ = std::fs::remove_dir_all(&symfs);
}
