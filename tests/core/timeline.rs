//! The timeline: sample tables, slices and the heat map, through the library and the
//! binary, on a generated recording whose spikes and stalls are known to the sample
//! (`testdata/perf-timeline.txt.gz`, see `scripts/gen-timeline-perf.py`) and on a real
//! recording with a phase change (`testdata/perf-phases.txt.gz`).

use crate::testdata;
use std::collections::BTreeMap;
use std::process::{Command, Output};

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::heatmap::{DEFAULT_ROW_NS, heat_map};
use flametui::profile::slice::{TaskFilter, select_tasks};
use flametui::profile::{Slice, slice_tree};
use flametui::timeline;
use proptest::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Exit status and stderr of a run expected to fail.
fn failure(args: &[&str]) -> (Option<i32>, String) {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn recording(name: &str, threads: usize) -> Loaded {
    let opts = LoadOptions {
        threads: Some(threads),
        chunk_size: Some(4096),
        ..LoadOptions::default()
    };
    input::load_path(&testdata(name), &opts).unwrap()
}

const TIMELINE: &str = "perf-timeline.txt.gz";

/// What the generator puts in the 20 ms cell starting `ms` after the first sample: 5
/// server samples (none in the stall), 2 worker samples, 20 cron samples in the spike.
fn expected_cell(ms: u64) -> u64 {
    let server = if (3000..3400).contains(&ms) { 0 } else { 5 };
    let cron = if (1500..1700).contains(&ms) { 20 } else { 0 };
    server + 2 + cron
}

#[test]
fn heat_map_cells_are_exact() {
    let csv = stdout(&["--heatmap", "csv", &testdata(TIMELINE)]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("second,offset_ms,samples"));
    let mut cells = 0;
    let mut total = 0;
    for line in lines {
        let v: Vec<u64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let [second, offset, samples] = v[..] else {
            panic!("{line}")
        };
        assert_eq!(samples, expected_cell(second * 1000 + offset), "{line}");
        cells += 1;
        total += samples;
    }
    assert_eq!((cells, total), (250, 1850));
    // With a task filter, after a range: only the spike's cells, 20 samples each.
    let csv = stdout(&[
        "--heatmap",
        "csv",
        "--comms",
        "cron",
        "--time",
        "1.6,5",
        &testdata(TIMELINE),
    ]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert_eq!(rows[0], "1,600,20");
    assert_eq!(rows[4], "1,680,20");
}

#[test]
fn a_range_keeps_exactly_its_samples() {
    let folded = stdout(&[
        "--time",
        "1.5,1.7",
        "--export",
        "folded",
        &testdata(TIMELINE),
    ]);
    assert_eq!(
        folded,
        "cron;__libc_start_call_main;main;run_job;sha256_block 200000000\n\
         server;__libc_start_call_main;main;serve;handle_request;parse_request 100000000\n\
         server;__libc_start_call_main;main;serve;handle_request;write_response 100000000\n\
         worker;start_thread;worker_loop;compress_block 200000000\n"
    );
    // The stall: only the worker ran.
    let stall = stdout(&["--time", "3,3.4", "--export", "folded", &testdata(TIMELINE)]);
    assert_eq!(
        stall,
        "worker;start_thread;worker_loop;compress_block 400000000\n"
    );
    // Shares of the recording (first to last sample: 4.996 s): [0.4996, 0.9992).
    let top = stdout(&[
        "--time",
        "10%,20%",
        "--top",
        "1",
        "--exact",
        &testdata(TIMELINE),
    ]);
    assert!(top.contains("(total 1,000,000,000 ns)"), "{top}");
    let print = stdout(&["--time", "10%,20%", "--print", &testdata(TIMELINE)]);
    assert!(
        print.contains("perf-timeline.txt.gz [0.4996–0.9992 s]: perf script — 175 samples"),
        "{print}"
    );
}

#[test]
fn task_filters_are_exact_and_combine() {
    let samples = |args: &[&str]| {
        let mut all = vec!["--print"];
        all.extend_from_slice(args);
        let t = testdata(TIMELINE);
        all.push(&t);
        let text = stdout(&all);
        let header = text.lines().next().unwrap().to_owned();
        header
            .split(" — ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse::<u64>()
            .unwrap()
    };
    assert_eq!(samples(&[]), 1850);
    assert_eq!(samples(&["--comms", "cron"]), 200);
    assert_eq!(samples(&["--comms", "cron,worker"]), 700);
    assert_eq!(samples(&["--pids", "1000"]), 1650);
    assert_eq!(samples(&["--tids", "1001"]), 500);
    assert_eq!(samples(&["--pids", "1000", "--tids", "1001,2000"]), 500);
    assert_eq!(samples(&["--comms", "server", "--time", "4,4.2"]), 50);
    // A transform applies to the slice.
    let gc = stdout(&[
        "--time",
        "4,4.2",
        "--focus",
        "^gc_collect$",
        "--export",
        "folded",
        &testdata(TIMELINE),
    ]);
    assert_eq!(gc, "gc_collect;gc_mark 200000000\n");
}

#[test]
fn range_against_range_names_the_spike() {
    let t = testdata(TIMELINE);
    let table = stdout(&[
        "--compare-time",
        "0.5,1",
        "--time",
        "1.5,1.7",
        "--top",
        "3",
        &t,
    ]);
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.contains("Δ pp"))
        .skip(1)
        .collect();
    assert!(
        rows[0].contains("+33.33") && rows[0].ends_with("  run_job"),
        "{table}"
    );
    assert!(
        rows[1].contains("+33.33") && rows[1].ends_with("  sha256_block"),
        "{table}"
    );
    assert!(table.starts_with("BEFORE "), "{table}");
    assert!(
        table.contains("[0.50–1.00 s]") && table.contains("[1.50–1.70 s]"),
        "{table}"
    );
    // The differential file: BEFORE is the --compare-time range.
    let diff = stdout(&[
        "--compare-time",
        "0.5,1",
        "--time",
        "1.5,1.7",
        "--export",
        "folded",
        &t,
    ]);
    assert!(
        diff.lines()
            .any(|l| l == "cron;__libc_start_call_main;main;run_job;sha256_block 0 200000000"),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l == "worker;start_thread;worker_loop;compress_block 500000000 200000000"),
        "{diff}"
    );
    // The GC phase against the seconds before it, within one process.
    let gc = stdout(&[
        "--compare-time",
        "3.8,4",
        "--time",
        "4,4.2",
        "--comms",
        "server",
        "--top",
        "2",
        &t,
    ]);
    let rows: Vec<&str> = gc
        .lines()
        .skip_while(|l| !l.contains("Δ pp"))
        .skip(1)
        .collect();
    assert!(
        rows[0].contains("+100.00") && rows[0].ends_with("  gc_collect"),
        "{gc}"
    );
    assert!(rows[1].ends_with("  gc_mark"), "{gc}");
}

#[test]
fn svg_of_a_range() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("spike.svg");
    let out = run(&[
        "--time",
        "1.5,1.7",
        "--comms",
        "cron",
        "--export",
        "svg",
        "-o",
        svg.to_str().unwrap(),
        &testdata(TIMELINE),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("sha256_block") && !text.contains("compress_block"));
}

#[test]
fn inputs_without_a_timeline_are_refused_by_name() {
    for (file, flags) in [
        ("folded-small.txt", &["--time", "0,1", "--print"][..]),
        ("stap-seed-b0e1.txt", &["--heatmap", "csv"][..]),
        (
            "folded-small.txt",
            &["--compare-time", "0,1", "--time", "1,2"][..],
        ),
    ] {
        let mut args = flags.to_vec();
        let path = testdata(file);
        args.push(&path);
        let (code, err) = failure(&args);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(file) && err.contains("no timeline is available"),
            "{err}"
        );
    }
    let (code, err) = failure(&[
        "--comms",
        "gzip",
        "--top",
        "3",
        &testdata("folded-small.txt"),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--comms") && err.contains("no task per sample"),
        "{err}"
    );
    // perf script printed without its time field.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-untimed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let untimed = dir.join("untimed.txt");
    std::fs::write(
        &untimed,
        "a 12 cpu-clock: \n\t1 f+0x1 (/x)\n\nb 13 cpu-clock: \n\t1 g+0x1 (/x)\n\n",
    )
    .unwrap();
    let untimed = untimed.to_str().unwrap();
    let (code, err) = failure(&["--time", "0,1", "--print", untimed]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("untimed.txt") && err.contains("-F +time"),
        "{err}"
    );
    // Tasks need no time.
    let one = stdout(&["--tids", "13", "--export", "folded", untimed]);
    assert_eq!(one, "b;g 1\n");
    // pids asked of a perf script that printed tids only.
    let (code, err) = failure(&["--pids", "1", "--print", &testdata("perf-gzip-fp.txt.gz")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("perf script -F +pid"), "{err}");
}

#[test]
fn bad_ranges_and_empty_slices() {
    let t = testdata(TIMELINE);
    for bad in ["2,1", "a,b", "1", "0%,120%"] {
        let (code, err) = failure(&["--time", bad, "--print", &t]);
        assert_eq!(code, Some(2), "{bad}: {err}");
    }
    let (code, err) = failure(&["--compare-time", "0,1", "--print", &t]);
    assert_eq!(code, Some(2), "--compare-time needs --time: {err}");
    let (code, err) = failure(&["--time", "6,7", "--print", &t]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--time 6,7 selects no sample") && err.contains("4.996 s"),
        "{err}"
    );
    let (code, err) = failure(&["--time", "50%,1", "--print", &t]);
    assert_eq!(code, Some(2), "{err}");
    let (code, err) = failure(&["--comms", "nobody", "--print", &t]);
    assert_eq!(code, Some(1), "{err}");
}

#[test]
fn comms_listed_in_a_message_are_escaped() {
    let text = "ev\x1b]0;il\x07 1/1 1.000000: 1 cpu-clock: \n\t1 f (/x)\n\n\
                it's 2/2 2.000000: 1 cpu-clock: \n\t1 g (/x)\n\n";
    let rec = input::load_reader(text.as_bytes(), "names.txt", &LoadOptions::default()).unwrap();
    let args = timeline::SliceArgs {
        tasks: TaskFilter {
            comms: Some(vec!["evil".into()]),
            ..TaskFilter::default()
        },
        ..timeline::SliceArgs::default()
    };
    let err = timeline::apply(rec, &args).unwrap_err().to_string();
    assert_eq!(
        err,
        r"names.txt: --comms 'evil' selects no sample (no task is named 'evil'; comms here, most samples first: 'ev\x1b]0;il\x07', 'it'\''s')"
    );
}

#[test]
fn samples_do_not_depend_on_threads_or_streaming() {
    let one = recording(TIMELINE, 1);
    let two = recording(TIMELINE, 2);
    assert_eq!(one.samples().len(), 1850);
    assert!(one.samples().has_timeline() && one.samples().has_pids());
    assert_eq!(one.samples().tasks().len(), 3);
    let map = |r: &Loaded| heat_map(r.samples(), &Slice::default(), DEFAULT_ROW_NS);
    assert_eq!(map(&one), map(&two));
    let folded = |r: &Loaded, slice: &Slice| {
        let tree = slice_tree(&r.main().tree, r.samples(), slice);
        export::folded_lines(&tree)
    };
    let spike = Slice {
        range: Some((1_500_000_000, 1_700_000_000)),
        tasks: None,
    };
    assert_eq!(folded(&one, &spike), folded(&two, &spike));
    assert_eq!(
        folded(&two, &Slice::default()),
        export::folded_lines(&two.main().tree)
    );
    // Streaming keeps the samples too.
    let opts = LoadOptions {
        snapshots: Some(input::Snapshots {
            every: std::time::Duration::ZERO,
            intervals: false,
            sink: std::sync::Arc::new(|_| {}),
        }),
        ..LoadOptions::default()
    };
    let live = input::load_path(&testdata(TIMELINE), &opts).unwrap();
    assert_eq!(folded(&live, &spike), folded(&one, &spike));
    assert_eq!(map(&live), map(&one));
}

#[test]
fn a_real_phase_change() {
    // testdata/phases.c: phase A hashes (fnv_block) for ~1 s, then phase B sorts (qsort).
    let p = testdata("perf-phases.txt.gz");
    let a = stdout(&["--time", "0,0.8", "--export", "folded", &p]);
    let b = stdout(&["--time", "1.1,100%", "--export", "folded", &p]);
    let weight = |folded: &str, name: &str| -> u64 {
        folded
            .lines()
            .filter(|l| l.contains(name))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum()
    };
    let total = |folded: &str| weight(folded, "");
    assert!(weight(&a, "fnv_block") * 100 >= total(&a) * 99, "{a}");
    assert_eq!(weight(&a, "cmp_int") + weight(&a, "msort"), 0, "{a}");
    assert_eq!(weight(&b, "fnv_block"), 0, "{b}");
    assert!(
        (weight(&b, "cmp_int") + weight(&b, "msort")) * 100 >= total(&b) * 85,
        "{b}"
    );
    // Two ranges that meet add up to the whole.
    let rec = recording("perf-phases.txt.gz", 2);
    let tree = &rec.main().tree;
    let cut = 950_000_000;
    let part = |range| {
        let s = Slice {
            range: Some(range),
            tasks: None,
        };
        slice_tree(tree, rec.samples(), &s).total()
    };
    assert_eq!(part((0, cut)) + part((cut, u64::MAX)), tree.total());
}

/// One generated perf sample: (comm index, tid, time in µs, frames root first, period).
type GenSample = (usize, i64, u64, Vec<usize>, u64);

const COMMS: [&str; 3] = ["app", "io worker", "gc"];
const FUNCS: [&str; 6] = ["main", "run", "read", "parse", "alloc", "mark"];

fn sample() -> impl Strategy<Value = GenSample> {
    (
        0..COMMS.len(),
        1i64..4,
        0u64..3_000_000,
        prop::collection::vec(0..FUNCS.len(), 0..5),
        1u64..1000,
    )
}

/// A range bound: a sample's time (when the flag is set) or any nanosecond.
fn bound() -> impl Strategy<Value = (bool, prop::sample::Index, u64)> {
    (
        any::<bool>(),
        any::<prop::sample::Index>(),
        0u64..3_000_000_000,
    )
}

fn perf_text<'a>(samples: impl IntoIterator<Item = &'a GenSample>) -> String {
    let mut text = String::new();
    for (comm, tid, us, frames, period) in samples {
        text.push_str(&format!(
            "{} 77/{tid} [000] {}.{:06}: {period} cpu-clock:pppH: \n",
            COMMS[*comm],
            100 + us / 1_000_000,
            us % 1_000_000
        ));
        for &f in frames.iter().rev() {
            text.push_str(&format!("\t7f00 {}+0x1 (/bin/app)\n", FUNCS[f]));
        }
        text.push('\n');
    }
    text
}

fn folded_of(text: &str) -> Vec<String> {
    match input::load_reader(text.as_bytes(), "filtered", &LoadOptions::default()) {
        Ok(Loaded::Single(p)) => export::folded_lines(&p.tree),
        Ok(Loaded::Diff { .. }) => panic!("diff"),
        // Nothing left after filtering.
        Err(_) => Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The tree of a slice equals the tree of the input text with only the slice's
    /// samples in it, whatever the order of the samples and the number of threads.
    #[test]
    fn slice_tree_equals_the_filtered_input(
        samples in prop::collection::vec(sample(), 1..60),
        a in bound(),
        b in bound(),
        comms in prop::option::of(prop::collection::btree_set(0..COMMS.len(), 0..3)),
        tids in prop::option::of(prop::collection::btree_set(1i64..4, 0..3)),
        threads in 1usize..3,
    ) {
        let text = perf_text(&samples);
        let opts = LoadOptions {
            threads: Some(threads),
            chunk_size: Some(64),
            ..LoadOptions::default()
        };
        let rec = input::load_reader(text.as_bytes(), "all", &opts).unwrap();
        let first = samples.iter().map(|s| s.2).min().unwrap() * 1000;
        // Bounds at a sample's own time, or anywhere.
        let at = |(on_sample, pick, ns): (bool, prop::sample::Index, u64)| {
            if on_sample { pick.get(&samples).2 * 1000 - first } else { ns }
        };
        let (a, b) = (at(a), at(b));
        let (start, end) = (a.min(b), a.max(b));
        let filter = TaskFilter {
            comms: comms.clone().map(|c| c.iter().map(|&i| COMMS[i].to_owned()).collect()),
            pids: None,
            tids: tids.clone().map(|t| t.into_iter().collect()),
        };
        let slice = Slice {
            range: Some((start, end)),
            tasks: select_tasks(rec.samples(), &filter).unwrap(),
        };
        let got = export::folded_lines(&slice_tree(&rec.main().tree, rec.samples(), &slice));
        let kept = samples.iter().filter(|(comm, tid, us, _, _)| {
            let rel = us * 1000 - first;
            (start..end).contains(&rel)
                && comms.as_ref().is_none_or(|c| c.contains(comm))
                && tids.as_ref().is_none_or(|t| t.contains(tid))
        });
        prop_assert_eq!(got, folded_of(&perf_text(kept)));
    }

    /// Heat map cells count the samples of their 20 ms, as counted from the input.
    #[test]
    fn heat_map_counts_every_sample_once(samples in prop::collection::vec(sample(), 1..60)) {
        let text = perf_text(&samples);
        let rec = input::load_reader(text.as_bytes(), "all", &LoadOptions::default())
            .unwrap();
        let map = heat_map(rec.samples(), &Slice::default(), DEFAULT_ROW_NS);
        let first = samples.iter().map(|s| s.2).min().unwrap();
        let mut expected: BTreeMap<(u64, u32), u64> = BTreeMap::new();
        for s in &samples {
            let rel = s.2 - first;
            *expected.entry((rel / 1_000_000, ((rel % 1_000_000) / 20_000) as u32)).or_default() += 1;
        }
        let got: BTreeMap<(u64, u32), u64> =
            map.cells.iter().map(|c| ((c.second, c.row), c.samples)).collect();
        prop_assert_eq!(got, expected);
    }
}
