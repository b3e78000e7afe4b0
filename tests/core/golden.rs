//! Golden tests on the repository's own testdata (real perf recordings made for this
//! project, and a synthetic SystemTap sample): exact outputs and the numbers a user sees.

use crate::testdata;

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded, PerfOptions};
use flametui::profile::{NodeId, Unit};
use flametui::report;

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
        .children(NodeId::ROOT)
        .map(|c| p.tree.name(c))
        .collect();
    assert_eq!(procs, ["gzip", "head", "sh"]);
}

/// `load()` again, at most 20 times, until its trees are left apart as `apart` says:
/// whether the second parser thread got any chunk depends on the scheduler, and on a busy
/// machine the first thread may take them all.
fn until_apart(
    apart: bool,
    load: impl Fn() -> (Loaded, Vec<flametui::profile::CallTree>),
) -> (Loaded, Vec<flametui::profile::CallTree>) {
    let mut got = load();
    for _ in 1..20 {
        if got.1.is_empty() != apart {
            break;
        }
        got = load();
    }
    got
}

/// The folded export of a profile and the trees left apart beside it.
fn folded_of_parts(loaded: &Loaded, parts: &[flametui::profile::CallTree]) -> String {
    let mut out = Vec::new();
    export::write_folded_parts(
        &mut out,
        &loaded.main().tree,
        parts,
        export::Destination::Data,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn parser_threads_trees_left_apart_export_the_same_folded_text() {
    let opts = |no_timeline| LoadOptions {
        threads: Some(2),
        chunk_size: Some(4096),
        perf: PerfOptions {
            no_timeline,
            ..PerfOptions::default()
        },
        ..LoadOptions::default()
    };
    for (name, apart) in [
        // Real recordings of one event: the workers' trees stay apart.
        ("perf-gzip-fp.txt.gz", true),
        ("perf-system-wide.txt.gz", true),
        // Two events: each event's trees are merged (a metric each).
        ("perf-two-events.txt.gz", false),
    ] {
        let path = testdata(name);
        let whole = input::load_path(&path, &opts(true)).unwrap();
        let mut want = export::folded_lines(&whole.main().tree).join("\n");
        want.push('\n');
        let (loaded, parts) = until_apart(apart, || {
            input::load_path_parts(&path, &opts(true)).unwrap()
        });
        assert_eq!(!parts.is_empty(), apart, "{name}");
        assert_eq!(folded_of_parts(&loaded, &parts), want, "{name}");
        // One event's tree is left in the parse's order (the export orders each family);
        // the metrics of several events are made from ordered trees, as load_path's.
        let ordered = |t: &flametui::profile::CallTree| {
            t.ids().all(|id| {
                let names: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
                names.is_sorted()
            })
        };
        if !apart {
            assert!(ordered(&loaded.main().tree), "{name}");
        }
        let mut tree = loaded.main().tree.clone();
        tree.finish();
        assert!(ordered(&tree), "{name}");
        assert_eq!(
            loaded.main().stats.samples,
            whole.main().stats.samples,
            "{name}"
        );
        // Sample records name nodes of one tree: with them, the trees are merged.
        let (_, parts) = input::load_path_parts(&path, &opts(false)).unwrap();
        assert!(parts.is_empty(), "{name}");
    }
}

#[test]
fn folded_parts_of_different_decimals_export_as_the_merged_tree() {
    // A folded file parsed on two threads: the chunks of its second half have fractional
    // counts, so the threads' trees have different scales.
    let mut text = String::new();
    for i in 0..3000 {
        let w = if i < 1500 {
            "2".to_owned()
        } else {
            format!("0.{}5", i % 10)
        };
        text.push_str(&format!("main;f{};g{} {w}\n", i % 40, i % 7));
    }
    let opts = |threads| LoadOptions {
        threads: Some(threads),
        chunk_size: Some(1024),
        ..LoadOptions::default()
    };
    let whole = input::load_reader(text.as_bytes(), "f", &opts(1)).unwrap();
    let mut want = export::folded_lines(&whole.main().tree).join("\n");
    want.push('\n');
    let (loaded, parts) = until_apart(true, || {
        input::load_reader_parts(text.as_bytes(), "f", &opts(2)).unwrap()
    });
    assert!(!parts.is_empty());
    assert_eq!(folded_of_parts(&loaded, &parts), want);
    assert!(want.contains("main;f0;g0 12.25\n"), "{want}");
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
    assert_eq!(tree.children(NodeId::ROOT).count(), 2);
    assert_eq!(p.stats.samples, 15);
    assert_eq!(p.stats.offcpu_samples, 7);
    assert_eq!(p.stats.unit, Unit::OnOffCpu);
}

#[test]
fn report_lists_header_top_and_tree() {
    let p = load("perf-dd-nosync.txt.gz", &LoadOptions::default());
    let text = report::report(&p, 5, 5.0, flametui::report::Figures::Exact);
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
    let top = report::top_table(&p, 3, flametui::report::Figures::Exact);
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
    let head = report::header(&p, flametui::report::Figures::Exact);
    assert!(
        head.contains("310 on-CPU, samples; 5,066,105 off-CPU"),
        "{head}"
    );
}

/// The seed study's answers, per half: on-CPU ticks and off-CPU script units are never
/// added (before, `31.23%` of the sum of both was shown for the redo flush).
#[test]
fn seed_shaped_profiles_have_the_studys_shares() {
    use flametui::profile::diff::function_deltas;
    use flametui::profile::functions::function_totals_in;
    use flametui::profile::scope::{OFF_CPU, ON_CPU};
    let share = |p: &flametui::profile::Profile, half: &str, name: &str| {
        let scope = p.tree.child_named(NodeId::ROOT, half).unwrap();
        let id = p.tree.names().lookup(name).unwrap();
        let f = function_totals_in(&p.tree, scope)[id.0 as usize];
        flametui::text::share(f.total, p.tree.node(scope).total).to_string()
    };
    let b1e1 = load("stap-seed-b1e1.txt", &LoadOptions::default());
    let b0e1 = load("stap-seed-b0e1.txt", &LoadOptions::default());
    let b0e0 = load("stap-seed-b0e0.txt", &LoadOptions::default());
    let sync = "_ZN13MYSQL_BIN_LOG16sync_binlog_fileEb";
    let flush = "_ZL27log_write_flush_to_disk_lowv";
    assert_eq!(share(&b1e1, OFF_CPU, sync), "47.30");
    assert_eq!(share(&b1e1, ON_CPU, sync), "6.92");
    assert_eq!(share(&b0e1, ON_CPU, flush), "4.10");
    assert_eq!(share(&b0e1, OFF_CPU, flush), "42.86");
    assert!(b0e0.tree.names().lookup(flush).is_none());
    let deltas = function_deltas(&b0e1.tree, &b0e0.tree);
    let row = |half: &str| {
        deltas
            .iter()
            .find(|d| d.name == flush && d.half == Some(half))
            .unwrap()
    };
    assert_eq!(format!("{:+.2}", row(ON_CPU).delta.change()), "-4.10");
    assert_eq!(format!("{:+.2}", row(OFF_CPU).delta.change()), "-42.86");
    assert_eq!(row(OFF_CPU).delta.after, 0);
    // No row adds the halves.
    assert!(deltas.iter().all(|d| d.half.is_some()));
}

#[test]
fn streaming_sends_growing_snapshots_then_the_whole_profile() {
    // One parser thread reading lines, and workers parsing chunks of the stream.
    // (The workers' snapshots merge trees, which spaces them further apart: how many
    // there are depends on the machine's speed; the trickling tests check they grow.)
    streams_growing_snapshots(Some(1), None, 5);
    streams_growing_snapshots(Some(2), Some(64 * 1024), 1);
}

fn streams_growing_snapshots(threads: Option<usize>, chunk_size: Option<usize>, at_least: usize) {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(u64, u64, String)>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let opts = LoadOptions {
        snapshots: Some(input::Snapshots {
            every: std::time::Duration::ZERO,
            intervals: false,
            sink: Arc::new(move |p: flametui::profile::Profile| {
                // Each snapshot carries its samples' records (the heat map grows).
                assert_eq!(p.samples.len() as u64, p.stats.samples);
                assert!(
                    p.samples
                        .samples()
                        .iter()
                        .all(|s| (s.leaf.0 as usize) < p.tree.len())
                );
                sink.lock().unwrap().push((
                    p.stats.samples,
                    p.tree.total(),
                    p.stats.unit.to_string(),
                ));
            }),
        }),
        threads,
        chunk_size,
        ..LoadOptions::default()
    };
    let whole = load("perf-dd-fsync.txt.gz", &opts);
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= at_least, "{} snapshots", seen.len());
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    assert!(
        seen.iter().all(|(_, _, unit)| unit == "ns"),
        "units while streaming: {seen:?}"
    );
    let last = seen.last().unwrap();
    assert!(last.0 <= whole.stats.samples && last.1 <= whole.tree.total());
    let file = load("perf-dd-fsync.txt.gz", &LoadOptions::default());
    assert_eq!(
        export::folded_lines(&whole.tree),
        export::folded_lines(&file.tree)
    );
    assert_eq!(whole.stats.lines, file.stats.lines);
    assert_eq!(whole.stats.samples, file.stats.samples);
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

/// The self and total share of `name` as `--top` prints them (`49.75%`, `52.34%`).
fn top_shares(p: &flametui::profile::Profile, name: &str) -> (String, String) {
    let table = report::top_table(p, 1000, flametui::report::Figures::Exact);
    let row = table
        .lines()
        .find(|l| l.ends_with(&format!("  {name}")))
        .unwrap_or_else(|| panic!("{name} not in\n{table}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    (cols[1].to_owned(), cols[3].to_owned())
}

/// Figures of `perf report -i anon.data --stdio --sort sym` (testdata/README.md): frames
/// in an anonymous namespace were dropped, their time given to `main` (inferno does that).
#[test]
fn cpp_anonymous_namespace_frames_equal_perf_report() {
    let p = load("perf-cpp-anon.txt.gz", &LoadOptions::default());
    assert_eq!(p.stats.samples, 593);
    assert_eq!(p.tree.total(), 593_593_593);
    for (name, self_pct, total_pct) in [
        ("(anonymous namespace)::hot", "49.75%", "49.75%"),
        ("(anonymous namespace)::C::~C", "22.77%", "22.77%"),
        // The lambda is named after its enclosing function (inferno's naming), so perf's
        // `with_lambda` (17.54% children) and its lambda (17.20% self) share one name.
        ("(anonymous namespace)::with_lambda", "17.20%", "17.54%"),
        ("main", "9.95%", "100.00%"),
    ] {
        assert_eq!(
            top_shares(&p, name),
            (self_pct.into(), total_pct.into()),
            "{name}"
        );
    }
}

/// `perf record -g --kernel-callchains`: 104 of 321 samples have no stack line. `perf
/// report` counts them (header: 321 samples, event count 643286568; head 63.55%, md5sum
/// 36.45% by comm); they were dropped, so every share was too high.
#[test]
fn samples_without_a_stack_count_as_their_process() {
    let p = load("perf-nostack.txt.gz", &LoadOptions::default());
    assert_eq!(p.stats.samples, 321);
    assert_eq!(p.tree.total(), 643_286_568);
    assert_eq!(p.tree.total(), 321 * 2_004_008);
    let comm = |n: &str| {
        let id = p.tree.child_named(NodeId::ROOT, n).unwrap();
        flametui::text::share(p.tree.node(id).total, p.tree.total()).to_string()
    };
    assert_eq!(
        (comm("head"), comm("md5sum")),
        ("63.55".into(), "36.45".into())
    );
    let md5 = p.tree.child_named(NodeId::ROOT, "md5sum").unwrap();
    assert_eq!(p.tree.self_samples(md5), 99);
    let folded = export::folded_lines(&p.tree);
    assert!(
        folded.contains(&"md5sum 198396792".to_owned()),
        "{folded:?}"
    );
    assert!(folded.contains(&"head 10020040".to_owned()), "{folded:?}");
    // With --pid, the root of such a sample is comm-PID as for any other.
    let opts = LoadOptions {
        perf: PerfOptions {
            include_pid: true,
            ..PerfOptions::default()
        },
        ..LoadOptions::default()
    };
    let p = load("perf-nostack.txt.gz", &opts);
    assert!(
        export::folded_lines(&p.tree)
            .iter()
            .any(|l| l.starts_with("md5sum-") && !l.contains(';'))
    );
}

/// A process `rec` with a function `rec`: `perf report --sort sym` gives the function
/// 52.16% self and 52.34% with children; merged with the process it showed 100%.
#[test]
fn a_process_and_a_function_of_one_name_stay_apart() {
    let p = load("perf-rec-samename.txt.gz", &LoadOptions::default());
    assert_eq!(p.stats.samples, 556);
    assert_eq!(top_shares(&p, "rec"), ("52.16%".into(), "52.34%".into()));
    assert_eq!(
        top_shares(&p, "other_work"),
        ("47.66%".into(), "47.66%".into())
    );
    let table = report::top_table(&p, 1000, flametui::report::Figures::Exact);
    assert_eq!(
        table.lines().filter(|l| l.ends_with("  rec")).count(),
        1,
        "{table}"
    );
    // The root frame is still the process, at 100%.
    let root = p.tree.child_named(NodeId::ROOT, "rec").unwrap();
    assert_eq!(p.tree.node(root).total, p.tree.total());
    // Collapsing recursion never merges the process with the function below it.
    let t = flametui::profile::transform::apply(
        &p.tree,
        &flametui::profile::transform::Transform::CollapseRecursion,
    );
    assert!(
        export::folded_lines(&t)
            .iter()
            .any(|l| l.starts_with("rec;__libc_start_call_main;main;rec "))
    );
}

/// The header's sample count and total equal an independent count of each perf file in
/// testdata: event lines of the first event (a line that is not indented, not a comment
/// and not blank), and the sum of the periods printed before `cpu-clock`.
#[test]
fn header_figures_equal_an_independent_count_of_the_input() {
    let re = regex::Regex::new(r"\s(\d+)\s+cpu-clock(:[a-zA-Z]*)?:\s*").unwrap();
    for name in [
        "perf-gzip-fp.txt.gz",
        "perf-python-dwarf.txt.gz",
        "perf-two-events.txt.gz",
        "perf-dd-fsync.txt.gz",
        "perf-dd-nosync.txt.gz",
        "perf-cpp-anon.txt.gz",
        "perf-nostack.txt.gz",
        "perf-rec-samename.txt.gz",
    ] {
        let bytes = std::fs::read(testdata(name)).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .unwrap();
        let (mut samples, mut total) = (0u64, 0u64);
        for line in text.lines() {
            if line.is_empty() || line.starts_with(char::is_whitespace) || line.starts_with('#') {
                continue;
            }
            if let Some(c) = re.captures(line) {
                samples += 1;
                total += c[1].parse::<u64>().unwrap();
            }
        }
        let p = load(name, &LoadOptions::default());
        assert_eq!(
            (p.stats.samples, p.tree.total()),
            (samples, total),
            "{name}"
        );
        let head = report::header(&p, flametui::report::Figures::Exact);
        let shown = format!("{} samples", flametui::text::thousands(samples));
        assert!(head.contains(&shown), "{name}: {head}");
    }
}

/// A stream parsed by workers in chunks of any size gives what the file gives: the same
/// stacks, samples, lines and skipped lines.
#[test]
fn a_stream_on_workers_loads_what_the_file_loads() {
    use std::sync::Arc;
    for file in [
        "perf-dd-fsync.txt.gz",
        "perf-two-events.txt.gz",
        "perf-nostack.txt.gz",
        "perf-python-dwarf.txt.gz",
    ] {
        let whole = load(file, &LoadOptions::default());
        for chunk in [700, 64 * 1024] {
            let opts = LoadOptions {
                snapshots: Some(input::Snapshots {
                    every: std::time::Duration::from_millis(5),
                    intervals: false,
                    sink: Arc::new(|_| {}),
                }),
                threads: Some(2),
                chunk_size: Some(chunk),
                ..LoadOptions::default()
            };
            let streamed = load(file, &opts);
            let case = format!("{file} in chunks of {chunk}");
            assert_eq!(
                export::folded_lines(&streamed.tree),
                export::folded_lines(&whole.tree),
                "{case}"
            );
            assert_eq!(streamed.stats.samples, whole.stats.samples, "{case}");
            assert_eq!(streamed.stats.lines, whole.stats.lines, "{case}");
            assert_eq!(streamed.stats.skipped, whole.stats.skipped, "{case}");
            assert_eq!(streamed.stats.event, whole.stats.event, "{case}");
            // The sample table too: same records once leaves are named by their paths.
            let path = testdata(file);
            let file_rec = input::load_path(&path, &LoadOptions::default());
            let stream_rec = input::load_path(&path, &opts);
            let timeline = |r: &input::Loaded| -> Vec<(u64, u64, String)> {
                let tree = &r.main().tree;
                r.samples()
                    .samples()
                    .iter()
                    .map(|s| (s.time, s.weight, tree.path_string(s.leaf)))
                    .collect()
            };
            let (a, b) = (file_rec.unwrap(), stream_rec.unwrap());
            assert_eq!(timeline(&a).len(), timeline(&b).len(), "{case}");
            let mut ta = timeline(&a);
            let mut tb = timeline(&b);
            ta.sort();
            tb.sort();
            assert!(ta == tb, "{case}: sample tables differ");
        }
    }
}
