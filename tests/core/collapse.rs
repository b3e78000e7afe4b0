//! The formats read through inferno's collapsers (DTrace, macOS sample, VTune, Visual
//! Studio, GHC `.prof`, xctrace): detection without `--format`, the exact stacks and weights
//! of hand-made files in each tool's output format (worked out by hand from inferno's
//! rules, written beside each case), gzip, bad input, and inferno's own collapse of the
//! same file as an oracle.

use std::collections::BTreeMap;
use std::io::{BufReader, Write};
use std::process::Command;

use flametui::error::Error;
use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded};
use flametui::profile::{Format, Profile};
use inferno::collapse::Collapse;

use crate::testdata;

/// Every hand-made file, its format and the folded stacks it must give.
struct Case {
    file: &'static str,
    format: Format,
    choice: FormatChoice,
    stacks: &'static [(&'static str, u64)],
}

/// DTrace: frames leaf first, offsets (`+0x6f`) dropped, an unsymbolised address kept,
/// each `count()` as the stack's weight.
const DTRACE: &[(&str, u64)] = &[
    (
        "kvd`_start;kvd`_start_crt;kvd`main;kvd`kv_open;kvd`kv_load_segment;libc.so.1`__read",
        3,
    ),
    (
        "kvd`_start;kvd`_start_crt;kvd`main;kvd`serve_client;kvd`kv_put;kvd`kv_checksum;kvd`crc32c_update",
        17,
    ),
    (
        "kvd`_start;kvd`_start_crt;kvd`main;kvd`serve_client;kvd`kv_put",
        21,
    ),
    (
        "kvd`_start;kvd`_start_crt;kvd`main;kvd`serve_client;0x41ab20",
        40,
    ),
];

/// macOS sample: each leaf of the call graph with its own count, frames ``module`func``
/// (`.dylib` dropped); leaves in inferno's idle list (`read`, `__psynch_cvwait`) are left
/// out. The main thread's line has no `(in …)`, so inferno takes the text up to its first
/// `)` as the module: that quirk is kept, as `inferno-collapse-sample` writes it.
const SAMPLE: &[(&str, u64)] = &[
    (
        "Thread_98121   DispatchQueue_1: com.apple.main-thread  (serial`Thread_98121   DispatchQueue_1: com.apple.main-thread;dyld`start;kvd`main;kvd`serve_client;kvd`kv_put;kvd`crc32c_update",
        450,
    ),
    (
        "Thread_98121   DispatchQueue_1: com.apple.main-thread  (serial`Thread_98121   DispatchQueue_1: com.apple.main-thread;dyld`start;kvd`main;kvd`kv_open;kvd`kv_load_segment",
        308,
    ),
    (
        "Thread_98130;libsystem_pthread`thread_start;libsystem_pthread`_pthread_start;kvd`flush_worker;libsystem_kernel`fsync",
        31,
    ),
];

/// VTune: one space of indent per level, `CPU Time:Self` seconds × 1000 rounded (0.3079 s →
/// 308), rows with no self time write no stack.
const VTUNE: &[(&str, u64)] = &[
    (
        "[Unknown]`Total;ntdll.dll`RtlUserThreadStart;KERNEL32.DLL`BaseThreadInitThunk;kvd.exe`main",
        4,
    ),
    (
        "[Unknown]`Total;ntdll.dll`RtlUserThreadStart;KERNEL32.DLL`BaseThreadInitThunk;kvd.exe`main;kvd.exe`serve_client",
        125,
    ),
    (
        "[Unknown]`Total;ntdll.dll`RtlUserThreadStart;KERNEL32.DLL`BaseThreadInitThunk;kvd.exe`main;kvd.exe`serve_client;kvd.exe`kv_put(kv_store*, char const*);kvd.exe`crc32c_update",
        451,
    ),
    (
        "[Unknown]`Total;ntdll.dll`RtlUserThreadStart;KERNEL32.DLL`BaseThreadInitThunk;kvd.exe`main;kvd.exe`serve_client;VCRUNTIME140.dll`memcpy",
        31,
    ),
    (
        "[Unknown]`Total;ntdll.dll`RtlUserThreadStart;KERNEL32.DLL`BaseThreadInitThunk;kvd.exe`main;kvd.exe`kv_open;kvd.exe`kv_load_segment",
        308,
    ),
];

/// Visual Studio: the level-0 row is replaced by level 1's, each row weighs its number of
/// calls, less its children's once they are left when they were called fewer times
/// (Serve: 1,200 − Read's 900 = 300; Put's 1,500 > 1,200 takes nothing); Main and Open
/// (1 call, as many as their children's) write none.
const VSPROF: &[(&str, u64)] = &[
    (
        "Kvd.Program.Main(string[]);Kvd.Server.Serve(class Kvd.Client)",
        300,
    ),
    (
        "Kvd.Program.Main(string[]);Kvd.Server.Serve(class Kvd.Client);Kvd.Store.Put(string,uint8[])",
        1500,
    ),
    (
        "Kvd.Program.Main(string[]);Kvd.Server.Serve(class Kvd.Client);Kvd.Store.Put(string,uint8[]);Kvd.Crc32c.Update(uint8[])",
        3000,
    ),
    (
        "Kvd.Program.Main(string[]);Kvd.Server.Serve(class Kvd.Client);System.IO.Stream.Read(uint8[],int32,int32)",
        900,
    ),
    (
        "Kvd.Program.Main(string[]);Kvd.Store.Open(string);Kvd.Store.LoadSegment(int32)",
        64,
    ),
];

/// GHC: `MODULE.COST_CENTRE` frames by indentation, the individual `%time` × 10 as weight
/// (so 1000 in all), rows of 0.0 kept with weight 0.
const GHCPROF: &[(&str, u64)] = &[
    ("MAIN.MAIN", 0),
    ("MAIN.MAIN;Main.CAF", 0),
    ("MAIN.MAIN;Main.CAF;Main.main", 20),
    ("MAIN.MAIN;Main.CAF;Main.main;Kv.Store.put", 240),
    (
        "MAIN.MAIN;Main.CAF;Main.main;Kv.Store.put;Kv.Crc.crc32c",
        560,
    ),
    ("MAIN.MAIN;Main.CAF;Main.main;Kv.Store.load", 160),
    ("MAIN.MAIN;GHC.IO.Handle.FD.CAF", 20),
];

/// xctrace: one per `<row>`; backtraces 11 and 20 differ only by an address, so their
/// 2 + 2 rows make one stack of 4; the Rust name in `$LT$…$GT$` form is tidied by inferno.
const XCTRACE: &[(&str, u64)] = &[
    ("start;main;serve_client;kv_put;crc32c_update", 4),
    (
        "start;main;kv_open;<kvd::store::Segment as core::ops::drop::Drop>::drop",
        2,
    ),
    ("start;main;serve_client;0x19b5229d8", 1),
];

const CASES: [Case; 6] = [
    Case {
        file: "dtrace-ustack.txt",
        format: Format::Dtrace,
        choice: FormatChoice::Dtrace,
        stacks: DTRACE,
    },
    Case {
        file: "sample-macos.txt",
        format: Format::Sample,
        choice: FormatChoice::Sample,
        stacks: SAMPLE,
    },
    Case {
        file: "vtune-topdown.csv",
        format: Format::Vtune,
        choice: FormatChoice::Vtune,
        stacks: VTUNE,
    },
    Case {
        file: "vsprof-calltree.csv",
        format: Format::Vsprof,
        choice: FormatChoice::Vsprof,
        stacks: VSPROF,
    },
    Case {
        file: "ghc-kvbench.prof",
        format: Format::Ghcprof,
        choice: FormatChoice::Ghcprof,
        stacks: GHCPROF,
    },
    Case {
        file: "xctrace-time-profile.xml",
        format: Format::Xctrace,
        choice: FormatChoice::Xctrace,
        stacks: XCTRACE,
    },
];

fn single(loaded: Loaded) -> Profile {
    match loaded {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("differential"),
    }
}

fn forced(choice: FormatChoice) -> LoadOptions {
    LoadOptions {
        format: choice,
        ..LoadOptions::default()
    }
}

/// Folded lines as a map (zero-weight stacks kept: GHC writes them).
fn folded_text(text: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for l in text.lines().filter(|l| !l.is_empty()) {
        let (s, w) = l.rsplit_once(' ').unwrap();
        *m.entry(s.to_owned()).or_insert(0) += w.parse::<u64>().unwrap();
    }
    m
}

fn stacks(p: &Profile) -> BTreeMap<String, u64> {
    folded_text(&export::folded_lines(&p.tree).join("\n"))
}

fn expected(case: &Case) -> BTreeMap<String, u64> {
    case.stacks
        .iter()
        .map(|&(s, w)| (s.to_owned(), w))
        .collect()
}

#[test]
fn each_format_is_detected_and_loads_the_hand_computed_stacks() {
    for case in &CASES {
        let p = single(input::load_path(&testdata(case.file), &LoadOptions::default()).unwrap());
        assert_eq!(p.stats.format, Some(case.format), "{}", case.file);
        assert_eq!(stacks(&p), expected(case), "{}", case.file);
        let total: u64 = case.stacks.iter().map(|s| s.1).sum();
        assert_eq!(p.tree.total(), total, "{}", case.file);
        assert_eq!(p.stats.read_error, None);
        let accounting = flametui::report::line_accounting(&p);
        assert!(
            accounting.contains("folded lines from inferno's collapser"),
            "{accounting}"
        );
        // Forced, the same.
        let f = single(input::load_path(&testdata(case.file), &forced(case.choice)).unwrap());
        assert_eq!(stacks(&f), stacks(&p), "{} forced", case.file);
    }
}

#[test]
fn gzip_input_reads_the_same() {
    for case in &CASES {
        let raw = std::fs::read(testdata(case.file)).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&raw).unwrap();
        let gz = gz.finish().unwrap();
        let name = format!("{}.gz", case.file);
        let p = single(input::load_reader(&gz[..], &name, &LoadOptions::default()).unwrap());
        assert_eq!(p.stats.format, Some(case.format), "{name}");
        assert_eq!(stacks(&p), expected(case), "{name}");
    }
}

/// inferno's own collapser on the file, its output read as folded stacks.
fn infernos(case: &Case) -> String {
    let file = std::fs::File::open(testdata(case.file)).unwrap();
    let reader = BufReader::new(file);
    let mut out = Vec::new();
    match case.format {
        Format::Dtrace => inferno::collapse::dtrace::Folder::default().collapse(reader, &mut out),
        Format::Sample => inferno::collapse::sample::Folder::default().collapse(reader, &mut out),
        Format::Vtune => inferno::collapse::vtune::Folder::default().collapse(reader, &mut out),
        Format::Vsprof => inferno::collapse::vsprof::Folder::default().collapse(reader, &mut out),
        Format::Ghcprof => inferno::collapse::ghcprof::Folder::default().collapse(reader, &mut out),
        Format::Xctrace => inferno::collapse::xctrace::Folder::default().collapse(reader, &mut out),
        f => panic!("{f} is not inferno's"),
    }
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn equals_infernos_own_collapse_read_as_folded() {
    for case in &CASES {
        let text = infernos(case);
        // The hand computation and inferno agree…
        assert_eq!(folded_text(&text), expected(case), "{}", case.file);
        // …and flametui's profile is inferno's folded text read by the folded parser.
        let p = single(input::load_path(&testdata(case.file), &LoadOptions::default()).unwrap());
        let f = single(
            input::load_reader(text.as_bytes(), "f", &forced(FormatChoice::Folded)).unwrap(),
        );
        assert_eq!(stacks(&p), stacks(&f), "{}", case.file);
        assert_eq!(p.stats.samples, f.stats.samples, "{}", case.file);
    }
}

fn error_of(text: &str, name: &str, choice: FormatChoice) -> Error {
    match input::load_reader(text.as_bytes(), name, &forced(choice)) {
        Err(e) => e,
        Ok(_) => panic!("{name}: loaded"),
    }
}

#[test]
fn bad_input_is_an_error_naming_the_file_and_never_a_panic() {
    let vtune = "Function Stack,CPU Time:Self,Module\nTotal,0.0,[Unknown]\n   deep,0.1,a.dll\n";
    let sample = "Call graph:\n    5 Thread_1\n    +   5 main  (in a) + 1  [0x1]\n";
    let xml = "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node><row><backtrace id=\"1\">";
    // A level jump: inferno's Visual Studio collapser asserts (panics) on it.
    let vsprof = format!(
        "{}\n0,\"a.exe\",0,100.00,0.00,0.00,0.00,\"\",\n1,\"Main()\",1,1.00,1.00,0.00,0.00,\"a.exe\",\n3,\"Deep()\",1,1.00,1.00,0.00,0.00,\"a.exe\",\n",
        "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,"
    );
    let cases = [
        (
            vtune,
            "v.csv",
            FormatChoice::Auto,
            "VTune",
            "Skipped indentation",
        ),
        (
            sample,
            "s.txt",
            FormatChoice::Sample,
            "macOS sample",
            "Skipped indentation",
        ),
        (
            xml,
            "x.xml",
            FormatChoice::Auto,
            "xctrace",
            "Unexpected EOF",
        ),
        (
            &vsprof,
            "p.csv",
            FormatChoice::Auto,
            "Visual Studio",
            "failed",
        ),
    ];
    for (text, name, choice, format, says) in cases {
        let e = error_of(text, name, choice).to_string();
        assert!(
            e.starts_with(&format!("{name}: not readable as {format} input: ")),
            "{e}"
        );
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
    // Forced onto another format's file: nothing of it is read.
    let dtrace = std::fs::read_to_string(testdata("dtrace-ustack.txt")).unwrap();
    let e = error_of(&dtrace, "d.txt", FormatChoice::Ghcprof).to_string();
    assert!(
        e.starts_with("d.txt: no usable samples in GHC prof input"),
        "{e}"
    );
}

#[test]
fn a_truncated_gzip_is_a_read_error_naming_the_file() {
    let raw = std::fs::read(testdata("dtrace-ustack.txt")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    gz.write_all(&raw).unwrap();
    let gz = gz.finish().unwrap();
    // Cut inside the last stack: inferno's DTrace collapser refuses a stack cut short, and
    // writes nothing before the end, so the cut is the error (not a partial profile).
    let cut = &gz[..gz.len() - 120];
    match input::load_reader(cut, "d.gz", &LoadOptions::default()) {
        Err(e @ Error::Read { .. }) => assert!(e.to_string().starts_with("d.gz: "), "{e}"),
        other => panic!("not a read error: {:?}", other.map(|_| ())),
    }
    // Cut after a whole stack: the ones before load, with the read error kept.
    let text = String::from_utf8(raw).unwrap();
    let end = text.find("               21\n\n").unwrap() + 19;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    gz.write_all(&text.as_bytes()[..end]).unwrap();
    let gz = gz.finish().unwrap();
    let cut = gz[..gz.len() - 8].to_vec(); // no trailer: the stream ends early
    let p = single(input::load_reader(&cut[..], "d.gz", &LoadOptions::default()).unwrap());
    assert!(p.stats.read_error.is_some());
    assert_eq!(p.tree.total(), 3 + 17 + 21);
}

#[test]
fn a_sample_call_graph_past_the_first_lines_is_still_detected() {
    // `sample` says yes only at the end of its call graph: here past 64 lines and 64 KiB.
    let mut text = String::from("Analysis of sampling big (pid 7) every 1 millisecond\n\n");
    text.push_str("Call graph:\n");
    for i in 0..3000 {
        text.push_str(&format!(
            "    1 Thread_{i}\n    + 1 start  (in dyld) + 4  [0x1]\n    +   1 work_{i}  (in big) + 8  [0x2]\n"
        ));
    }
    text.push_str("\nTotal number in stack (recursive counted multiple, when >=5):\n");
    assert!(text.len() > 128 << 10);
    let p =
        single(input::load_reader(text.as_bytes(), "big.txt", &LoadOptions::default()).unwrap());
    assert_eq!(p.stats.format, Some(Format::Sample));
    assert_eq!(p.tree.total(), 3000);
    let s = stacks(&p);
    assert_eq!(s.get("Thread_2999;dyld`start;big`work_2999"), Some(&1));
}

#[test]
fn help_names_every_format_and_the_cli_reads_each() {
    let bin = env!("CARGO_BIN_EXE_flametui");
    let help = Command::new(bin).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for f in [
        "folded", "perf", "stap", "bpftrace", "pprof", "dtrace", "sample", "vtune", "xctrace",
        "vsprof", "ghcprof",
    ] {
        assert!(help.contains(&format!("- {f}:")), "{f}: {help}");
    }
    for name in [
        "DTrace",
        "macOS sample",
        "VTune",
        "xctrace",
        "Visual Studio",
        "GHC",
    ] {
        assert!(help.contains(name), "{name}: {help}");
    }
    for (case, flag) in CASES
        .iter()
        .zip(["dtrace", "sample", "vtune", "vsprof", "ghcprof", "xctrace"])
    {
        let out = Command::new(bin)
            .args(["--format", flag, "--export", "folded", &testdata(case.file)])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        // The export leaves out stacks of weight 0 (GHC's cost centres that cost
        // nothing): they have no width in a flame graph.
        let mut want = expected(case);
        want.retain(|_, w| *w > 0);
        assert_eq!(folded_text(&text), want, "{flag}");
    }
}

#[test]
fn collapse_recursion_is_infernos_recursive_collapser() {
    use flametui::profile::transform::Transform;
    // Direct recursion only: `a;b;a;b` stays, `fib;fib;fib` becomes one frame.
    let text = "main;fib;fib;fib;add 5\nmain;fib;print 2\nmain;a;b;a;b 1\nmain;fib;fib 4\nx;x 7\n";
    let mut out = Vec::new();
    let mut opt = inferno::collapse::recursive::Options::default();
    opt.nthreads = 1;
    inferno::collapse::recursive::Folder::from(opt)
        .collapse(text.as_bytes(), &mut out)
        .unwrap();
    let infernos = folded_text(&String::from_utf8(out).unwrap());
    let loaded = input::load_reader(text.as_bytes(), "r.folded", &LoadOptions::default())
        .unwrap()
        .transformed(&[Transform::CollapseRecursion]);
    assert_eq!(stacks(&single(loaded)), infernos);
    assert_eq!(infernos.get("main;fib;add"), Some(&5));
    assert_eq!(infernos.get("main;fib"), Some(&4));
    assert_eq!(infernos.get("x"), Some(&7));
}
