//! A real system-wide recording against perf's own filters: `testdata/perf-system-wide.txt.gz`
//! (`perf record -a -g` of four workloads, printed with `-F comm,pid,tid,time,period,event,
//! ip,sym,dso --ns`) and the same recording printed with perf script's default fields
//! (`testdata/perf-system-wide-default.txt.gz`); see `testdata/README.md`.
//!
//! The oracle is perf: `perf script --comms/--pid/--tid/--time` was run on the
//! `perf.data` at recording time, and what it printed is summed up below (samples and bytes,
//! in [`PERF`]). The tests do not keep those outputs: they cut the same text out of the full
//! file with an independent filter on the event lines' fields (a split on white space, no
//! flametui code), check that the cut has exactly perf's samples and bytes — at recording
//! time the cuts were also compared with perf's outputs byte for byte — and then check that
//! `flametui FLAGS --export folded FULL` equals flametui's folded export of the cut. So
//! flametui's slicing is compared with perf's filters, and its parser with itself only.

use crate::testdata;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use clap::Parser as _;
use flametui::cli::Args;
use flametui::export;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::CallTree;
use flametui::timeline;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");
const FULL: &str = "perf-system-wide.txt.gz";
const DEFAULT_FIELDS: &str = "perf-system-wide-default.txt.gz";

fn text_of(name: &str) -> String {
    let file = std::fs::File::open(testdata(name)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        pipe.write_all(text.as_bytes()).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn stdout(args: &[&str], stdin: Option<&str>) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `flametui FLAGS --export folded FILE`, run as a process.
fn folded(flags: &[&str], file: &str) -> String {
    let path = testdata(file);
    let mut args = flags.to_vec();
    args.extend(["--export", "folded", &path]);
    stdout(&args, None)
}

/// A test file loaded once for all the tests, as the binary loads it.
fn recording_of(file: &'static str) -> &'static Loaded {
    static FILES: [OnceLock<Loaded>; 2] = [OnceLock::new(), OnceLock::new()];
    let cell = &FILES[usize::from(file != FULL)];
    cell.get_or_init(|| input::load_path(&testdata(file), &LoadOptions::default()).unwrap())
}

/// What `flametui FLAGS --export folded FILE` writes, in this process: the flags parsed by
/// the binary's own definition and the recording sliced by the binary's own code (one
/// process per case would cost more than all the rest of these tests; a few cases are
/// run through the binary too, see [`the_binary_agrees`]).
fn sliced(flags: &[&str], file: &'static str) -> String {
    let path = testdata(file);
    let mut command_line = vec!["flametui"];
    command_line.extend_from_slice(flags);
    command_line.push(&path);
    let args = Args::try_parse_from(command_line).unwrap();
    match timeline::apply(recording_of(file).clone(), &args.slice_args()).unwrap() {
        Loaded::Single(p) => lines(&p.tree),
        Loaded::Diff { .. } => panic!("{flags:?}: not one profile"),
    }
}

fn lines(tree: &CallTree) -> String {
    export::folded_lines(tree)
        .iter()
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The binary writes what [`sliced`] computes.
fn the_binary_agrees(flags: &[&str]) {
    assert_eq!(folded(flags, FULL), sliced(flags, FULL), "{flags:?}");
}

/// flametui's folded export of `text`, in this process (the binary's `--export folded`
/// writes these lines): the same loader and export, without a process per cut.
fn folded_text(text: &str) -> String {
    let Ok(Loaded::Single(p)) = input::load_reader(text.as_bytes(), "cut", &LoadOptions::default())
    else {
        panic!("the cut does not load as one profile")
    };
    lines(&p.tree)
}

/// The fields of an event line, read from its end: `comm pid/tid time: period event:`
/// (`comm tid [cpu] time: period event:` with the default fields; the comm may hold spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Event {
    comm: String,
    pid: Option<i64>,
    tid: i64,
    /// Nanoseconds, as printed (microseconds padded with zeros).
    time: u64,
}

fn event(line: &str) -> Event {
    let words: Vec<&str> = line.split_whitespace().collect();
    let n = words.len();
    let time = words[n - 3].trim_end_matches(':');
    let (secs, frac) = time.split_once('.').unwrap();
    let time = secs.parse::<u64>().unwrap() * 1_000_000_000
        + format!("{frac:0<9}").parse::<u64>().unwrap();
    // With the default fields a `[cpu]` sits between the ids and the time.
    let ids_at = if words[n - 4].starts_with('[') {
        n - 5
    } else {
        n - 4
    };
    let (pid, tid) = match words[ids_at].split_once('/') {
        Some((p, t)) => (Some(p.parse().unwrap()), t.parse().unwrap()),
        None => (None, words[ids_at].parse().unwrap()),
    };
    Event {
        comm: words[..ids_at].join(" "),
        pid,
        tid,
        time,
    }
}

/// Every sample of a perf script text: its block of lines (with the blank line after
/// it, as perf prints it) and its event line's fields.
fn samples(text: &str) -> Vec<(String, Event)> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| (format!("{b}\n\n"), event(b.lines().next().unwrap())))
        .collect()
}

/// The samples of a test file, read once for all the tests.
fn samples_of(file: &'static str) -> &'static [(String, Event)] {
    static FILES: OnceLock<Vec<(String, Event)>> = OnceLock::new();
    static DEFAULT: OnceLock<Vec<(String, Event)>> = OnceLock::new();
    let cell = if file == FULL { &FILES } else { &DEFAULT };
    cell.get_or_init(|| samples(&text_of(file)))
}

/// The text of the samples that `keep`, in order.
fn cut(all: &[(String, Event)], keep: impl Fn(&Event) -> bool) -> String {
    all.iter()
        .filter(|(_, e)| keep(e))
        .map(|(b, _)| b.as_str())
        .collect()
}

fn sample_count(text: &str) -> usize {
    text.matches(" cpu-clock:pppH: \n").count()
}

/// What perf script printed, with the full file's fields, for these filters (on top of
/// the `--comms` list the full file was printed with, see testdata/README.md): samples
/// and bytes. perf spells the id filters `--pid` and `--tid`.
const PERF: &[(&str, usize, usize)] = &[
    ("--comms 'sysw hash'", 441, 103_878),
    ("--comms sort", 812, 151_197),
    ("--comms sysw,sysw-sort", 887, 232_601),
    ("--comms sleep", 1, 591),
    ("--pid 17346", 1328, 336_479),
    ("--pid 17425,17368", 127, 23_832),
    ("--pid 17428", 13, 2126),
    ("--tid 17426", 60, 10_234),
    ("--tid 17368", 2, 1574),
    ("--comms sort --tid 17426,17346", 60, 10_234),
    ("--comms sha256sum --pid 17428", 12, 1444),
    ("--time 11072.771332334,11073.521332334", 748, 156_569),
    ("--time 11073.273335069,11074.275338521", 1001, 204_605),
    (
        "--time 11073.273335069,11074.275338521 --comms gzip",
        150,
        20_293,
    ),
];

fn perf(filters: &str) -> (usize, usize) {
    let &(_, samples, bytes) = PERF.iter().find(|(f, _, _)| *f == filters).unwrap();
    (samples, bytes)
}

/// The cut matches perf's output (samples, bytes), and flametui's flags select exactly it.
fn check(
    all: &[(String, Event)],
    perf_filters: &str,
    flags: &[&str],
    keep: impl Fn(&Event) -> bool,
) {
    let text = cut(all, keep);
    assert_eq!(
        (sample_count(&text), text.len()),
        perf(perf_filters),
        "the independent cut is not what `perf script {perf_filters}` printed"
    );
    assert_eq!(sliced(flags, FULL), folded_text(&text), "{flags:?}");
}

#[test]
fn the_recording_is_what_the_readme_says() {
    let all = samples_of(FULL);
    assert_eq!(all.len(), 3001);
    let mut per_comm: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, e) in all {
        *per_comm.entry(e.comm.as_str()).or_default() += 1;
    }
    assert_eq!(per_comm["sort"], 812);
    assert_eq!(per_comm["sysw hash"], 441);
    assert_eq!(per_comm.len(), 12);
    let tasks: std::collections::BTreeSet<(&str, Option<i64>, i64)> = all
        .iter()
        .map(|(_, e)| (e.comm.as_str(), e.pid, e.tid))
        .collect();
    assert_eq!(tasks.len(), 82);
    // The same samples, whichever fields perf printed.
    let default = samples_of(DEFAULT_FIELDS);
    assert_eq!(default.len(), all.len());
    for ((_, f), (_, d)) in all.iter().zip(default) {
        assert_eq!(
            (&f.comm, f.tid, f.time / 1000),
            (&d.comm, d.tid, d.time / 1000)
        );
    }
}

#[test]
fn the_binary_slices_as_the_library_does() {
    for flags in [
        &["--comms", "sysw hash,sort"][..],
        &["--pids", "17346,17428", "--tids", "17348,17428"][..],
        &["--time", "1.002002735,2.004006187", "--comms", "gzip"][..],
    ] {
        the_binary_agrees(flags);
    }
}

#[test]
fn comms_select_what_perf_selects() {
    let all = samples_of(FULL);
    check(all, "--comms 'sysw hash'", &["--comms", "sysw hash"], |e| {
        e.comm == "sysw hash"
    });
    // The graph's spelling of the same thread name.
    check(all, "--comms 'sysw hash'", &["--comms", "sysw_hash"], |e| {
        e.comm == "sysw hash"
    });
    check(all, "--comms sort", &["--comms", "sort"], |e| {
        e.comm == "sort"
    });
    check(
        all,
        "--comms sysw,sysw-sort",
        &["--comms", "sysw,sysw-sort"],
        |e| e.comm == "sysw" || e.comm == "sysw-sort",
    );
    // One sample, of a thread that was `perf-exec` before it called exec.
    check(all, "--comms sleep", &["--comms", "sleep"], |e| {
        e.comm == "sleep"
    });
}

#[test]
fn pids_and_tids_select_what_perf_selects() {
    let all = samples_of(FULL);
    // sysw's three threads.
    check(all, "--pid 17346", &["--pids", "17346"], |e| {
        e.pid == Some(17346)
    });
    // A two-threaded sort, and a process that changed its comm (perf-exec, then sleep).
    check(all, "--pid 17425,17368", &["--pids", "17425,17368"], |e| {
        matches!(e.pid, Some(17425 | 17368))
    });
    // sh forked, then exec'd sha256sum: one pid, two comms.
    check(all, "--pid 17428", &["--pids", "17428"], |e| {
        e.pid == Some(17428)
    });
    check(all, "--tid 17426", &["--tids", "17426"], |e| e.tid == 17426);
    check(all, "--tid 17368", &["--tids", "17368"], |e| e.tid == 17368);
    // Lists combine as perf combines them: a sample passes every list.
    check(
        all,
        "--comms sort --tid 17426,17346",
        &["--comms", "sort", "--tids", "17426,17346"],
        |e| e.comm == "sort" && matches!(e.tid, 17426 | 17346),
    );
    check(
        all,
        "--comms sha256sum --pid 17428",
        &["--comms", "sha256sum", "--pids", "17428"],
        |e| e.comm == "sha256sum" && e.pid == Some(17428),
    );
}

/// The first sample's time, the origin of `--time` (11072.271332334).
const FIRST: u64 = 11_072_271_332_334;

#[test]
fn time_ranges_against_perf_time() {
    let all = samples_of(FULL);
    assert_eq!(all[0].1.time, FIRST);
    // perf's --time START,STOP keeps START <= t <= STOP (absolute times); flametui's
    // --time keeps [START, END) counted from the first sample. With bounds between
    // samples the two agree.
    let (a, b) = (FIRST + 500_000_000, FIRST + 1_250_000_000);
    let perf_cut = |e: &Event| (a..=b).contains(&e.time);
    check(
        all,
        "--time 11072.771332334,11073.521332334",
        &["--time", "0.5,1.25"],
        perf_cut,
    );
    // Bounds on samples: the 1000th and the 2000th. perf keeps both; flametui keeps the
    // first and not the second, so it has exactly one sample fewer — and the
    // nanosecond after the second bound gives perf's cut.
    let (a, b) = (all[999].1.time, all[1999].1.time);
    assert_eq!((a - FIRST, b - FIRST), (1_002_002_735, 2_004_006_187));
    let inclusive = cut(all, |e| (a..=b).contains(&e.time));
    assert_eq!(
        (sample_count(&inclusive), inclusive.len()),
        perf("--time 11073.273335069,11074.275338521")
    );
    let half_open = cut(all, |e| (a..b).contains(&e.time));
    assert_eq!(sample_count(&half_open), 1000);
    assert_eq!(
        inclusive.strip_prefix(&half_open),
        Some(all[1999].0.as_str())
    );
    let ours = sliced(&["--time", "1.002002735,2.004006187"], FULL);
    assert_eq!(ours, folded_text(&half_open));
    assert_ne!(ours, folded_text(&inclusive));
    assert_eq!(
        sliced(&["--time", "1.002002735,2.004006188"], FULL),
        folded_text(&inclusive)
    );
    // With a task list, as perf combines --time and --comms.
    check(
        all,
        "--time 11073.273335069,11074.275338521 --comms gzip",
        &["--time", "1.002002735,2.004006188", "--comms", "gzip"],
        |e| (a..=b).contains(&e.time) && e.comm == "gzip",
    );
}

/// `(second, offset_ms) -> samples` of `--heatmap csv`.
fn heat_map_csv(csv: &str) -> BTreeMap<(u64, u64), u64> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("second,offset_ms,samples"));
    lines
        .map(|l| {
            let v: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            ((v[0], v[1]), v[2])
        })
        .collect()
}

/// The same map counted from the event lines: 1 s columns, 20 ms rows, from `first`.
fn heat_map_of(
    all: &[(String, Event)],
    first: u64,
    keep: impl Fn(&Event) -> bool,
) -> BTreeMap<(u64, u64), u64> {
    let mut cells = BTreeMap::new();
    for (_, e) in all.iter().filter(|(_, e)| keep(e)) {
        let rel = e.time - first;
        let ms = rel % 1_000_000_000 / 1_000_000;
        *cells
            .entry((rel / 1_000_000_000, ms / 20 * 20))
            .or_default() += 1;
    }
    cells
}

#[test]
fn heat_map_counts_the_event_lines() {
    for file in [FULL, DEFAULT_FIELDS] {
        let all = samples_of(file);
        let first = all[0].1.time;
        let path = testdata(file);
        let map = heat_map_csv(&stdout(&["--heatmap", "csv", &path], None));
        assert_eq!(map, heat_map_of(all, first, |_| true), "{file}");
        // 3.016 s at 2 × 499 Hz: every 20 ms cell is busy.
        assert_eq!(map.len(), 151, "{file}");
        assert_eq!(map.values().sum::<u64>(), 3001);
        // After a task filter, the columns still count from the recording's first sample.
        let sort = heat_map_csv(&stdout(
            &["--heatmap", "csv", "--comms", "sort", &path],
            None,
        ));
        assert_eq!(
            sort,
            heat_map_of(all, first, |e| e.comm == "sort"),
            "{file}"
        );
    }
}

#[test]
fn default_fields_give_the_same_profile_and_no_pids() {
    // Symbol offsets and CPUs change nothing once collapsed.
    assert_eq!(sliced(&[], DEFAULT_FIELDS), sliced(&[], FULL));
    for flags in [
        &["--tids", "17426,17348"][..],
        &["--comms", "sysw_hash"][..],
    ] {
        assert_eq!(
            sliced(flags, DEFAULT_FIELDS),
            sliced(flags, FULL),
            "{flags:?}"
        );
    }
    // perf printed only tids: --pids says how to get pids.
    let out = run(
        &["--pids", "17346", "--print", &testdata(DEFAULT_FIELDS)],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(DEFAULT_FIELDS) && err.contains("perf script -F +pid"),
        "{err}"
    );
}

#[test]
fn a_user_looks_at_the_recording() {
    let path = testdata(FULL);
    let top = stdout(&["--top", "4", "--exact", &path], None);
    let rows: Vec<&str> = top.lines().skip(2).collect();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r.rsplit("  ").next().unwrap())
        .collect();
    // The three sysw threads and gzip (without symbols) are about 15% each.
    assert_eq!(
        names,
        ["insertion_sort", "fnv_block", "crc_block", "[gzip]"],
        "{top}"
    );
    assert!(top.starts_with("Top 4 functions by self weight (total 6,014,028,008 ns)"));
    // For a person (the default), times in human units.
    let human = stdout(&["--top", "4", &path], None);
    assert!(
        human.starts_with("Top 4 functions by self weight (total 6.01 s CPU in 3.02 s)\n"),
        "{human}"
    );
    assert!(
        human
            .lines()
            .nth(2)
            .unwrap()
            .trim_start()
            .starts_with("888 ms  14.76% 894 ms"),
        "{human}"
    );
    let print = stdout(&["--print", "--exact", "--comms", "sysw hash", &path], None);
    assert!(
        print.lines().next().unwrap().ends_with(
            "perf-system-wide.txt.gz [comms sysw hash]: perf script — 441 samples, total 883,767,528 ns, event cpu-clock"
        ),
        "{print}"
    );
    assert!(print.contains("sysw_hash\n"), "{print}");
    // A comm that is not in the recording.
    let out = run(&["--comms", "nobody", "--print", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--comms 'nobody' selects no sample")
            && err.contains("no task is named 'nobody'; comms here, most samples first: 'sort', "),
        "{err}"
    );
}

#[test]
fn one_function_is_one_function() {
    let path = testdata(FULL);
    let top = stdout(&["--top", "1", "--exact", &path], None);
    assert!(
        top.starts_with("Top 1 function by self weight (total 6,014,028,008 ns)\n"),
        "{top}"
    );
    let delta = stdout(
        &[
            "--compare-time",
            "0,1",
            "--time",
            "1,2",
            "--top",
            "1",
            &path,
        ],
        None,
    );
    assert!(
        delta.contains("\nTop 1 function by change of total share"),
        "{delta}"
    );
}

#[test]
fn values_in_messages_are_quoted() {
    let path = testdata(FULL);
    // perf prints ` sort` nowhere: the leading space must show in the message.
    let out = run(&["--comms", " sort", "--top", "1", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{FULL}: --comms ' sort' selects no sample")),
        "{err}"
    );
    // Escaped for the terminal, and a quote inside stays readable as the shell reads it.
    let out = run(&["--comms", "it's\x1b[2J", "--top", "1", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(r"--comms 'it'\''s\x1b[2J' selects"), "{err}");
    let out = run(&["--exclude", " (", "--top", "1", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("flametui: --exclude ' (': "), "{err}");
}

#[test]
fn absolute_times_pasted_from_perf_get_the_relative_range() {
    let path = testdata(FULL);
    // perf script prints the first sample at 11072.271332334.
    let out = run(&["--time", "11073.27,11074.27", "--top", "1", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "flametui: {path}: --time 11073.27,11074.27 selects no sample (the recording lasts 3.016000598 s; --time counts from its first sample, at 11072.271332334 s in perf's clock: subtract that, --time 0.998667666,1.998667666)\n"
        )
    );
    // The suggestion selects what perf's --time 11073.27,11074.27 does (but the sample
    // at its end, see the deviation table).
    stdout(
        &["--time", "0.998667666,1.998667666", "--top", "1", &path],
        None,
    );
    // Either range of a comparison, and a share as END.
    let out = run(
        &[
            "--compare-time",
            "11072.5,100%",
            "--time",
            "1,2",
            "--top",
            "1",
            &path,
        ],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--compare-time 11072.5,100% selects no sample")
            && err.ends_with("subtract that, --compare-time 0.228667666,100%)\n"),
        "{err}"
    );
    // The heat map of such a range is no empty CSV either.
    let out = run(
        &["--heatmap", "csv", "--time", "11073.27,11074.27", &path],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "{err}");
    assert!(
        err.ends_with("subtract that, --time 0.998667666,1.998667666)\n"),
        "{err}"
    );
    // Past the end, but not perf's times: only how long the recording is.
    let out = run(&["--time", "5,6", "--top", "1", &path], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.ends_with("(the recording lasts 3.016000598 s; --time counts from its first sample, at 11072.271332334 s in perf's clock)\n"),
        "{err}"
    );
}

#[test]
fn an_unknown_comm_is_told_the_comms_there_are() {
    let path = testdata(FULL);
    let failure = |flags: &[&str]| {
        let mut args = flags.to_vec();
        args.extend(["--top", "1", &path]);
        let out = run(&args, None);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{err}");
        err
    };
    // Most samples first, ties by name, ten of the twelve.
    let comms = "comms here, most samples first: 'sort', 'sysw-sort', 'sysw hash', 'sysw', 'gzip', 'sha256sum', 'sh', 'kworker/0:2-eve', 'kworker/u8:0-ev', 'perf-exec' and 2 more";
    assert_eq!(
        failure(&["--comms", "sorted"]),
        format!(
            "flametui: {path}: --comms 'sorted' selects no sample (no task is named 'sorted'; {comms})\n"
        )
    );
    // Only the unknown one is named; the known one has no sample in the range.
    let err = failure(&["--comms", "gzip,nobody", "--time", "5,6"]);
    assert!(
        err.contains("(the recording lasts 3.016000598 s;")
            && err.contains("; no task is named 'nobody'; comms here, most samples first: 'sort',"),
        "{err}"
    );
    // perf keeps 15 bytes of a comm: a longer one cannot be there.
    let err = failure(&["--comms", "kworker/u8:0-events_unbound"]);
    assert!(
        err.ends_with(
            "(no task is named 'kworker/u8:0-events_unbound'; perf keeps a comm's first 15 bytes: --comms 'kworker/u8:0-ev')\n"
        ),
        "{err}"
    );
    let err = failure(&["--comms", "sha256sum-checker"]);
    assert!(
        err.contains(
            "(no task is named 'sha256sum-checker'; perf keeps a comm's first 15 bytes; comms here, most samples first: 'sort',"
        ),
        "{err}"
    );
    // Known comms and tasks that exclude each other: the tasks' count, as before.
    let err = failure(&["--comms", "gzip", "--tids", "17349"]);
    assert!(err.ends_with("with 82 tasks)\n"), "{err}");
}

#[test]
fn perf_spellings_of_the_id_filters_point_to_pids_and_tids() {
    let path = testdata(FULL);
    let failure = |args: &[&str]| {
        let out = run(args, None);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), err)
    };
    assert_eq!(
        failure(&["--pid", "17346", "--top", "1", &path]),
        (
            Some(2),
            "flametui: 17346: no such file; to keep only these processes use --pids 17346 (--pid names frames by pid, as inferno does)\n".to_owned()
        )
    );
    assert_eq!(
        failure(&["--top", "1", &path, "--tid", "17349,17350"]),
        (
            Some(2),
            "flametui: 17349,17350: no such file; to keep only these threads use --tids 17349,17350 (--tid names frames by pid and tid, as inferno does)\n".to_owned()
        )
    );
    // Digits that follow no --pid, and a list that is not of ids, stay missing files.
    for args in [
        &["--top", "1", "17346", &path][..],
        &["--pid", "173x6", "--top", "1", &path][..],
    ] {
        let (code, err) = failure(args);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("No such file or directory"), "{err}");
    }
    // A file named so is read.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("17346"), "a;b 3\n").unwrap();
    let out = Command::new(BIN)
        .args(["--pid", "17346", "--export", "folded"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a;b 3\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The library of a perf script stack line as the README defines it: the file name of
/// the DSO in its last parentheses, a bracketed DSO as printed, none for `[unknown]`.
fn line_library(line: &str) -> &str {
    let dso = line
        .rsplit_once(" (")
        .map_or("", |(_, d)| d.trim_end().trim_end_matches(')'));
    match dso {
        "" | "[unknown]" => "(no library)",
        d if d.starts_with('[') => d,
        d => d.rsplit('/').next().unwrap_or(d),
    }
}

#[test]
fn library_totals_equal_a_count_of_the_lines() {
    // Independently of the parser: self = the period of the samples whose leaf line is
    // in the library, total = of those with any line there.
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (block, _) in samples_of(FULL) {
        let mut lines = block.lines();
        let words: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        let period: u64 = words[words.len() - 2].parse().unwrap();
        let stack: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
        let leaf = stack.first().map_or("(no library)", |l| line_library(l));
        want.entry(leaf.to_owned()).or_default().0 += period;
        let libs: BTreeSet<&str> = stack.iter().map(|l| line_library(l)).collect();
        let libs = if libs.is_empty() {
            BTreeSet::from(["(no library)"])
        } else {
            libs
        };
        for lib in libs {
            want.entry(lib.to_owned()).or_default().1 += period;
        }
    }
    let table = stdout(
        &[
            "--top",
            "1000",
            "--top-by",
            "library",
            "--exact",
            &testdata(FULL),
        ],
        None,
    );
    let mut got: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in table.lines().skip(2) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
        got.insert(words[4..].join(" "), (num(words[0]), num(words[2])));
    }
    assert_eq!(got, want);
    assert!(got.len() > 5, "{got:?}");
}

#[test]
fn collapsing_a_library_keeps_every_weight() {
    let all = folded(&[], FULL);
    let collapsed = folded(&["--collapse-lib", "^libc"], FULL);
    let sum = |text: &str| -> u64 {
        text.lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum()
    };
    assert_eq!(sum(&all), sum(&collapsed));
    assert!(collapsed.contains(";libc.so.6;") || collapsed.contains(";libc.so.6 "));
    assert!(!collapsed.contains(";libc.so.6;libc.so.6"));
    assert!(all.contains("__libc_start_call_main"));
    assert!(!collapsed.contains("__libc_start_call_main"));
}

/// A DSO whose path holds parentheses (a deleted memfd, as JITs map them) is the whole
/// outermost group at the end of the frame line, `memfd:sealed-… (deleted)`, as perf.data
/// names it (issue 30: perf script text gave a library called `deleted)`).
#[test]
fn a_dso_with_parentheses_is_one_library() {
    let out = stdout(
        &[
            "--top",
            "100",
            "--top-by",
            "library",
            "--metric",
            "sched:sched_switch",
            &testdata("perf-sched-record.txt.gz"),
        ],
        None,
    );
    assert!(
        out.lines()
            .any(|l| l.ends_with("  memfd:sealed-91173221a7ea (deleted)")),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.ends_with("  deleted)")), "{out}");
}

/// perf's `(inlined)` is not a library (issue 30.2): an inlined frame is in the library of
/// the frame at its address that has a DSO (`mix` in `app`); one marked `(inlined)` alone
/// at its address (perf 6.1 does so for some libc functions, the next line another
/// address in another library) takes no library from its neighbour.
#[test]
fn inlined_is_not_a_library() {
    let text = "app 1 1.0: 10 cpu-clock: \n\
                \t1234 mix+0x4 (inlined)\n\
                \t1234 compute+0x12 (/bin/app)\n\
                \t99 main+0x9 (/bin/app)\n\n\
                app 1 1.1: 5 cpu-clock: \n\
                \t152cb7 __memcpy_avx_unaligned_erms+0x237 (inlined)\n\
                \t176431 join+0x351 (/usr/bin/python3.11)\n\n";
    let out = stdout(&["--top", "10", "--top-by", "library", "-"], Some(text));
    let rows: Vec<(&str, &str)> = out
        .lines()
        .skip(2)
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            Some((w.first().copied()?, l.split("  ").last()?.trim()))
        })
        .collect();
    assert!(rows.contains(&("10", "app")), "{out}");
    assert!(rows.contains(&("5", "(no library)")), "{out}");
    assert!(!out.contains("inlined"), "{out}");
    assert!(rows.contains(&("0", "python3.11")), "{out}");
}

/// The rows of a `--top` table (after its two heading lines): the label after the
/// figures, and the self and total figures (`--exact`).
fn top_rows(table: &str) -> BTreeMap<String, (u64, u64)> {
    let num = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    table
        .lines()
        .skip(2)
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words[4..].join(" "), (num(words[0]), num(words[2])))
        })
        .collect()
}

/// A frame's library is its own, not its name's (issue 30.1). In a real recording of
/// `sh -c 'for i in $(seq 40); do /bin/true; done'` (cpu-clock, `-g`), `strcmp` and
/// `strncmp` have frames in ld.so and in libc. Before, every `strcmp` frame went to
/// one library: ld.so had 20.54% self, libc 2.87%.
///
/// `perf report --no-children --sort dso` (662 samples, 26,480,000 ns):
/// `[kernel.kallsyms]` 75.68%, `ld-linux-x86-64.so.2` 20.39%, `libc.so.6` 3.02%,
/// `dash` 0.45%, `true` 0.45%. `perf report --children --sort sym` lists each library's
/// `strcmp` apart: ld.so's 1.21% total, 0.60% self; libc's 0.15% total, 0 self; each
/// `strncmp` 0.15% / 0.15%.
#[test]
fn a_frame_is_in_its_own_library_not_its_names() {
    let path = testdata("perf-two-libs.txt.gz");
    let libs = top_rows(&stdout(
        &["--top", "100", "--top-by", "library", "--exact", &path],
        None,
    ));
    let self_of = |lib: &str| libs.get(lib).map(|r| r.0);
    assert_eq!(self_of("[kernel.kallsyms]"), Some(20_040_000), "{libs:?}");
    assert_eq!(self_of("ld-linux-x86-64.so.2"), Some(5_400_000), "{libs:?}");
    assert_eq!(self_of("libc.so.6"), Some(800_000), "{libs:?}");
    assert_eq!(self_of("dash"), Some(120_000), "{libs:?}");
    assert_eq!(self_of("true"), Some(120_000), "{libs:?}");
    let funcs = top_rows(&stdout(&["--top", "100000", "--exact", &path], None));
    let row = |name: &str| funcs.get(name).copied();
    assert_eq!(
        row("strcmp (ld-linux-x86-64.so.2)"),
        Some((160_000, 320_000))
    );
    assert_eq!(row("strcmp (libc.so.6)"), Some((0, 40_000)));
    assert_eq!(
        row("strncmp (ld-linux-x86-64.so.2)"),
        Some((40_000, 40_000))
    );
    assert_eq!(row("strncmp (libc.so.6)"), Some((40_000, 40_000)));
    // A name in one library only is shown as it is.
    assert_eq!(row("__strcmp_avx2"), Some((40_000, 40_000)));
    // The same figures whatever the number of parser threads and the chunks they get.
    let totals = |threads: usize, chunk_size: Option<usize>| {
        let opts = LoadOptions {
            threads: Some(threads),
            chunk_size,
            ..LoadOptions::default()
        };
        let Ok(Loaded::Single(p)) = input::load_path(&path, &opts) else {
            panic!("{path}")
        };
        let tree = &p.tree;
        flametui::profile::libraries::library_totals_in(tree, flametui::profile::NodeId::ROOT)
            .into_iter()
            .map(|r| {
                let label = flametui::profile::libraries::library_label(tree, r.lib);
                (label.to_owned(), r.self_weight, r.total)
            })
            .collect::<BTreeSet<_>>()
    };
    let one = totals(1, None);
    for chunk in [4096, 10_000, 65_536] {
        assert_eq!(totals(2, Some(chunk)), one, "chunks of {chunk}");
    }
    // The folded export has only names: the two libraries' frames of one stack are one
    // line, as inferno writes it.
    let lines = folded(&[], "perf-two-libs.txt.gz");
    let stacks: Vec<&str> = lines
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().0)
        .collect();
    let unique: BTreeSet<&str> = stacks.iter().copied().collect();
    assert_eq!(unique.len(), stacks.len(), "a stack written twice");
    let mut sorted = stacks.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, stacks, "folded lines out of order");
    // An export reads names only; one whose transform needs the libraries reads them,
    // and merges the two libraries' frames at export: the same lines.
    let with_libraries = folded(
        &["--collapse-lib", "^no such library$"],
        "perf-two-libs.txt.gz",
    );
    assert_eq!(with_libraries, lines);
}

/// Inlined frames are marked, and merge into their caller on demand (issue 30.3). A
/// real `--call-graph dwarf` recording of a program whose `main` calls the static
/// inline `twice`, which calls the inline `mix`, and the out-of-line `spin` (143
/// samples of about 2 ms, 287 ms; the binary's path rewritten).
///
/// `perf report --children --sort sym`: `main` 100%, `twice (inlined)` 88.11%,
/// `mix (inlined)` 65.03%, `spin` 11.19%. `perf report --no-children --sort sym`
/// charges self time to the enclosing symbol: `main` 88.81%, `spin` 11.19%.
#[test]
fn inlined_frames_are_marked_and_merge_into_their_caller() {
    let path = testdata("perf-inlined-dwarf.txt.gz");
    let shares = |args: &[&str]| -> BTreeMap<String, (String, String)> {
        let mut all = vec!["--top", "20"];
        all.extend_from_slice(args);
        all.push(&path);
        stdout(&all, None)
            .lines()
            .skip(2)
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                // `186 ms  65.03%  186 ms  65.03%  mix (inlined)`
                (w[6..].join(" "), (w[2].to_owned(), w[5].to_owned()))
            })
            .collect()
    };
    let check = |table: &BTreeMap<String, (String, String)>, rows: &[(&str, &str, &str)]| {
        for &(name, own, total) in rows {
            let want = (own.to_owned(), total.to_owned());
            assert_eq!(table.get(name), Some(&want), "{name}: {table:?}");
        }
    };
    // As perf script and inferno: self time in the innermost inlined function.
    let marked = shares(&[]);
    check(
        &marked,
        &[
            ("mix (inlined)", "65.03%", "65.03%"),
            ("twice (inlined)", "23.08%", "88.11%"),
            ("main", "0.70%", "100.00%"),
        ],
    );
    let merged = shares(&["--merge-inlined"]);
    check(
        &merged,
        &[("main", "88.81%", "100.00%"), ("spin", "11.19%", "11.19%")],
    );
    assert!(!merged.keys().any(|k| k.contains("inlined")), "{merged:?}");
}

/// A library named with a terminal sequence, added to a function's name where two
/// libraries share it, reaches the terminal as its escape only.
#[test]
fn a_hostile_library_name_in_a_table_label_is_escaped() {
    let text = "app 1 1.0: 5 cpu-clock: \n\
                \tf00 strcmp+0x1 (/lib/\x1b]2;pwn\x07.so)\n\
                \t99 main+0x1 (/bin/app)\n\n\
                app 1 2.0: 5 cpu-clock: \n\
                \tf00 strcmp+0x1 (/lib/libc.so.6)\n\
                \t99 main+0x1 (/bin/app)\n\n";
    let out = stdout(&["--top", "5", "-"], Some(text));
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("strcmp (\\x1b]2;pwn\\x07.so)"), "{out}");
    assert!(out.contains("strcmp (libc.so.6)"), "{out}");
}

/// The total of CPU time beside the recording's length: 6.01 s of cpu-clock in 3.02 s
/// (first to last sample) — on 2 CPUs when perf script printed them (`[000]`, `[001]`,
/// its default fields), and without a CPU count when it did not (never guessed).
#[test]
fn the_total_says_the_recording_length_and_the_cpus_seen() {
    let human = |p: &flametui::profile::Profile| {
        flametui::report::header(p, flametui::report::Figures::Human)
    };
    let with_cpus = human(recording_of(DEFAULT_FIELDS).main());
    assert!(
        with_cpus.contains("total 6.01 s CPU in 3.02 s on 2 CPUs, event cpu-clock"),
        "{with_cpus}"
    );
    let without = human(recording_of(FULL).main());
    assert!(
        without.contains("total 6.01 s CPU in 3.02 s, event cpu-clock"),
        "{without}"
    );
}
