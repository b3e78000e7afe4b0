//! Golden tests on the repository's own testdata (real perf recordings made for this
//! project, and a synthetic SystemTap sample): exact outputs and the numbers a user sees.

use std::path::PathBuf;

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded, PerfOptions};
use flametui::profile::{NodeId, Unit};
use flametui::report;

fn testdata(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

fn load(name: &str, opts: &LoadOptions) -> flametui::profile::Profile {
    match input::load_path(&testdata(name), opts).unwrap() {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("diff"),
    }
}

#[test]
fn perf_fp_export_equals_inferno_collapse_perf() {
    // folded-small.txt was produced by inferno-collapse-perf 0.12.8 from the same recording.
    let p = load("perf-gzip-fp.txt.gz", &LoadOptions::default());
    let expected = std::fs::read_to_string(testdata("folded-small.txt")).unwrap();
    assert_eq!(export::folded_lines(&p.tree).join("\n") + "\n", expected);
    assert_eq!(p.stats.samples, 1298);
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    assert_eq!(p.tree.total(), 1298 * 1_001_001);
    let procs: Vec<&str> = p
        .tree
        .node(NodeId::ROOT)
        .children
        .iter()
        .map(|&c| p.tree.name(c))
        .collect();
    assert_eq!(procs, ["gzip", "head", "sh"]);
}

#[test]
fn two_event_recording_keeps_first_event_and_reads_tracepoints() {
    let p = load("perf-two-events.txt.gz", &LoadOptions::default());
    assert_eq!(p.stats.event.as_deref(), Some("cpu-clock"));
    assert_eq!(p.stats.events.get("sched:sched_switch"), Some(&30));
    assert_eq!(p.stats.samples, 280);
    // The period is kept even when perf pads the event column (inferno reads 1 here).
    assert_eq!(p.tree.total(), 280 * 250_000);
    let opts = LoadOptions {
        perf: PerfOptions {
            event: Some("sched:sched_switch".into()),
            ..PerfOptions::default()
        },
        ..LoadOptions::default()
    };
    let sw = load("perf-two-events.txt.gz", &opts);
    assert_eq!((sw.stats.samples, sw.tree.total()), (30, 30));
    assert_eq!(sw.stats.unit, Unit::Samples);
    assert!(
        export::folded_lines(&sw.tree)
            .iter()
            .all(|l| l.contains("schedule"))
    );
}

#[test]
fn dwarf_recording_keeps_inlined_frames() {
    let p = load("perf-python-dwarf.txt.gz", &LoadOptions::default());
    assert_eq!(p.stats.samples, 375);
    assert_eq!(p.stats.skipped_lines(), 0);
    assert!(p.tree.max_depth() >= 40);
    assert!(p.tree.names().lookup("__libc_start_main_impl").is_some());
}

#[test]
fn stap_sample_splits_on_and_off_cpu() {
    let p = load("stap-mysqld-on-off.txt", &LoadOptions::default());
    let tree = &p.tree;
    let on = tree.child_named(NodeId::ROOT, "[on-cpu]").unwrap();
    let off = tree.child_named(NodeId::ROOT, "[off-cpu]").unwrap();
    assert_eq!(tree.node(on).total, 310);
    assert_eq!(tree.node(off).total, 5_066_105);
    assert_eq!(tree.node(NodeId::ROOT).children.len(), 2);
    assert_eq!(p.stats.samples, 15);
    assert_eq!(p.stats.offcpu_samples, 7);
    assert_eq!(p.stats.unit, Unit::OnOffCpu);
}

#[test]
fn report_lists_header_top_and_tree() {
    let p = load("perf-dd-nosync.txt.gz", &LoadOptions::default());
    let text = report::report(&p, 5, 5.0);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("perf script") && first.contains("88 samples"),
        "{first}"
    );
    assert!(text.contains("100.00%"), "{text}");
    assert!(text.contains("  dd") || text.contains(" dd\n"), "{text}");
}

#[test]
fn on_off_cpu_report_gives_shares_within_each_half() {
    let p = load("stap-mysqld-on-off.txt", &LoadOptions::default());
    let top = report::top_table(&p, 3);
    let halves: Vec<&str> = top.split("\n\n").collect();
    assert_eq!(halves.len(), 2, "{top}");
    assert!(
        halves[0].contains("total 310 on-CPU") && halves[0].contains("36.13%"),
        "{top}"
    );
    assert!(
        halves[1].contains("off-CPU") && halves[1].contains("99.05%  __schedule"),
        "{top}"
    );
    let head = report::header(&p);
    assert!(
        head.contains("310 on-CPU, samples + 5,066,105 off-CPU"),
        "{head}"
    );
}

#[test]
fn seed_shaped_profiles_have_the_studys_shares() {
    use flametui::profile::diff::function_deltas;
    use flametui::profile::functions::function_totals;
    let share = |p: &flametui::profile::Profile, name: &str| {
        let id = p.tree.names().lookup(name).unwrap();
        let f = function_totals(&p.tree)[id.0 as usize];
        flametui::text::percent(f.total, p.tree.total())
    };
    let b1e1 = load("stap-seed-b1e1.txt", &LoadOptions::default());
    let b0e1 = load("stap-seed-b0e1.txt", &LoadOptions::default());
    let b0e0 = load("stap-seed-b0e0.txt", &LoadOptions::default());
    assert!((share(&b1e1, "_ZN13MYSQL_BIN_LOG16sync_binlog_fileEb") - 36.80).abs() < 1e-9);
    assert!((share(&b0e1, "_ZL27log_write_flush_to_disk_lowv") - 31.23).abs() < 1e-9);
    assert!(
        b0e0.tree
            .names()
            .lookup("_ZL27log_write_flush_to_disk_lowv")
            .is_none()
    );
    let deltas = function_deltas(&b0e1.tree, &b0e0.tree);
    let lw = deltas
        .iter()
        .find(|d| d.name == "_ZL27log_write_flush_to_disk_lowv")
        .unwrap();
    assert!((lw.delta.points() + 31.23).abs() < 1e-9);
    assert_eq!(lw.delta.after, 0);
}

#[test]
fn streaming_sends_growing_snapshots_then_the_whole_profile() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(u64, u64, String)>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let opts = LoadOptions {
        snapshots: Some(input::Snapshots {
            every: std::time::Duration::ZERO,
            sink: Arc::new(move |p: flametui::profile::Profile| {
                sink.lock().unwrap().push((
                    p.stats.samples,
                    p.tree.total(),
                    p.stats.unit.to_string(),
                ));
            }),
        }),
        ..LoadOptions::default()
    };
    let whole = load("perf-dd-fsync.txt.gz", &opts);
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 5, "{} snapshots", seen.len());
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    assert!(
        seen.iter().all(|(_, _, unit)| unit == "ns"),
        "units while streaming: {seen:?}"
    );
    let last = seen.last().unwrap();
    assert!(last.0 <= whole.stats.samples && last.1 <= whole.tree.total());
    assert_eq!(
        export::folded_lines(&whole.tree),
        export::folded_lines(&load("perf-dd-fsync.txt.gz", &LoadOptions::default()).tree)
    );
}

/// The finder's own skim scorer gives fuzzy-matcher's full-matrix score (the one
/// `fuzzy_indices` returns with the highlighted positions) for every function name of the
/// real recordings (C, C++, Rust, Python, kernel names), for queries of each shape.
#[test]
fn finder_scores_equal_fuzzy_matcher_on_real_names() {
    use flametui::profile::skim::Scorer;
    use fuzzy_matcher::FuzzyMatcher;
    use fuzzy_matcher::skim::SkimMatcherV2;
    let mut names = Vec::new();
    for file in [
        "perf-python-dwarf.txt.gz",
        "perf-dd-fsync.txt.gz",
        "perf-gzip-fp.txt.gz",
    ] {
        let p = load(file, &LoadOptions::default());
        names.extend(p.tree.names().iter().map(|(_, n)| n.to_owned()));
    }
    assert!(names.len() > 500, "{}", names.len());
    let mut matched = 0;
    for q in [
        "py",
        "eval",
        "PyEval",
        "_",
        "::",
        "sys_write",
        "ext4",
        "x",
        "k]",
        "lib",
    ] {
        let mut scorer = Scorer::new(q);
        for name in &names {
            // A new matcher each time: fuzzy-matcher's cache makes a reused one's score
            // depend on the names scored before.
            let expected = SkimMatcherV2::default()
                .smart_case()
                .fuzzy_indices(name, q)
                .map(|(score, _)| score);
            matched += usize::from(expected.is_some());
            assert_eq!(scorer.score(name), expected, "{name:?} / {q:?}");
        }
    }
    assert!(matched > 500, "{matched}");
}
