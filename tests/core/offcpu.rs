//! Off-CPU time from `sched:sched_switch` samples of `perf script` text: a hand-made file
//! of known durations (a migration, a preemption, the idle task, an incomplete block, a
//! lost switch-in, switch-ins of threads blocked before the recording), and a real
//! `perf sched record -g` recording against `perf sched timehist`'s wait times.

use std::collections::BTreeMap;
use std::io::Read;

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::offcpu::OffCpuNotes;
use flametui::profile::{Profile, Unit};

use crate::testdata;

/// Runs the binary, which must succeed: its stdout and stderr.
fn run_ok(args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

fn load(path: &str, opts: &LoadOptions) -> Profile {
    match input::load_path(path, opts).unwrap() {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("a differential file"),
    }
}

#[test]
fn the_hand_made_blocks_have_their_known_durations() {
    let path = testdata("perf-offcpu-hand.txt");
    let p = load(&path, &LoadOptions::default());
    // Only scheduler events: off-CPU time is shown, in nanoseconds.
    assert_eq!(p.stats.event.as_deref(), Some("off-cpu"));
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    assert_eq!(
        p.metric_names(),
        ["off-cpu".to_owned(), "sched:sched_switch".to_owned()]
    );
    assert_eq!(
        export::folded_lines(&p.tree),
        [
            "other;wait_event;schedule;__schedule;[off-cpu: S];[incomplete] 4000000",
            "poller;poll;schedule;__schedule;[off-cpu: S] 5000000",
            // 1 ms up to its second switch-out: its switch-in was not recorded.
            "poller;poll;schedule;__schedule;[off-cpu: S];[upper bound] 1000000",
            // Preempted (R+): 1.001 → 1.006.
            "worker;compute;preempt_schedule;__schedule;[off-cpu: R] 5000000",
            // Its last switch-out is the recording's last event: 0 ns, open.
            "worker;read_disk;schedule;__schedule;[off-cpu: D];[incomplete] 0",
            // Out on CPU 1, in on CPU 2.
            "writer;fsync;io_schedule;schedule;__schedule;[off-cpu: D] 4000000",
            "writer;nanosleep;schedule;__schedule;[off-cpu: S];[incomplete] 1000000",
        ]
    );
    assert_eq!(
        p.stats.off_cpu,
        Some(OffCpuNotes {
            complete: 3,
            incomplete: 3,
            incomplete_ns: 5_000_000,
            unmatched: 2,
            bounded: 1,
            skipped: 0,
        })
    );
    // One record per block, at its switch-out time.
    let times: Vec<u64> = p.samples.samples().iter().map(|s| s.time).collect();
    assert_eq!(
        times,
        [
            1_000_000_000,
            1_001_000_000,
            1_002_000_000,
            1_003_000_000,
            1_006_000_000,
            1_009_000_000,
            1_010_000_000
        ]
    );
    // The switches themselves stay a metric: one per sample.
    let switches = p.clone().into_metric_named("sched:sched_switch").unwrap();
    assert_eq!(switches.tree.total(), 9);
}

#[test]
fn off_cpu_time_does_not_depend_on_threads_or_chunks() {
    let path = testdata("perf-offcpu-hand.txt");
    let one = load(
        &path,
        &LoadOptions {
            threads: Some(1),
            ..LoadOptions::default()
        },
    );
    for chunk in [40, 97, 300] {
        let two = load(
            &path,
            &LoadOptions {
                threads: Some(2),
                chunk_size: Some(chunk),
                ..LoadOptions::default()
            },
        );
        assert_eq!(
            export::folded_lines(&one.tree),
            export::folded_lines(&two.tree),
            "chunk {chunk}"
        );
        assert_eq!(one.stats.off_cpu, two.stats.off_cpu);
    }
}

/// A `perf script` of two threads handing a CPU to each other, many switches printed at
/// one microsecond (perf script prints µs: a busy system prints ties). Which block a
/// switch-in ends depends on the order of the switches at one instant: the file's.
fn ping_pong_with_ties(switches: usize) -> String {
    let mut text = String::new();
    for i in 0..switches {
        let (prev, next) = if i % 2 == 0 { (101, 102) } else { (102, 101) };
        let us = 5000 + i / 3; // three switches per printed microsecond
        let state = ["S", "D", "R"][i % 3];
        text.push_str(&format!(
            "t{prev} {prev} [000] 7.{us:06}: sched:sched_switch: prev_comm=t{prev} \
             prev_pid={prev} prev_prio=120 prev_state={state} ==> next_comm=t{next} \
             next_pid={next} next_prio=120\n\tffffffff81000000 schedule+0x{i:x} \
             ([kernel.kallsyms])\n\n"
        ));
    }
    text
}

#[test]
fn switches_at_one_instant_keep_the_input_order_on_any_number_of_threads() {
    let text = ping_pong_with_ties(600);
    let read = |threads: usize, chunk: usize| match input::load_reader(
        text.as_bytes(),
        "ties.txt",
        &LoadOptions {
            threads: Some(threads),
            chunk_size: Some(chunk),
            ..LoadOptions::default()
        },
    )
    .unwrap()
    {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("a differential file"),
    };
    let one = read(1, 1 << 20);
    let notes = one.stats.off_cpu.clone().unwrap();
    // Every block but the last is complete, none bounded; only the first switch-in
    // (of a thread blocked before the file began) matches nothing.
    assert_eq!(
        (
            notes.complete,
            notes.incomplete,
            notes.bounded,
            notes.unmatched
        ),
        (599, 1, 0, 1)
    );
    // How the chunks go to the threads varies from run to run: several runs each.
    for chunk in [150, 400, 1000] {
        for _ in 0..8 {
            let many = read(2, chunk);
            assert_eq!(
                export::folded_lines(&one.tree),
                export::folded_lines(&many.tree),
                "chunk {chunk}"
            );
            assert_eq!(one.stats.off_cpu, many.stats.off_cpu, "chunk {chunk}");
        }
    }
}

fn gunzip(path: &str) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// `perf sched timehist`'s wait time, per thread id, in microseconds (it prints ms with
/// three decimals), and its number of rows. Its rows are printed at a task's *next* switch-out, with the wait
/// before it: the time from its previous switch-out to its switch-in.
fn timehist_waits(text: &str) -> BTreeMap<i64, (u64, u64)> {
    // time [cpu] task[tid] (or task[tid/pid]), then wait, delay and run time in ms.
    let row = regex::Regex::new(
        r"^\s*[\d.]+\s+\[\d+\]\s+.*?\[(\d+)(?:/\d+)?\]\s+(\d+)\.(\d{3})\s+[\d.]+\s+[\d.]+",
    )
    .unwrap();
    let mut waits = BTreeMap::new();
    for line in text.lines() {
        let Some(c) = row.captures(line) else {
            continue;
        };
        let tid: i64 = c[1].parse().unwrap();
        let micros = c[2].parse::<u64>().unwrap() * 1000 + c[3].parse::<u64>().unwrap();
        let e: &mut (u64, u64) = waits.entry(tid).or_default();
        *e = (e.0 + micros, e.1 + 1);
    }
    waits
}

/// An independent reading of the switch events of the perf script text: per thread, the
/// complete blocks after which the thread never switched out again (timehist prints a
/// block only at the next switch-out), in microseconds.
fn trailing_blocks(text: &str) -> BTreeMap<i64, u64> {
    let time_of = |line: &str| -> Option<u64> {
        let t = line.split(": ").next()?.split_whitespace().last()?;
        t.replace('.', "").parse().ok()
    };
    let field = |line: &str, key: &str| -> Option<i64> {
        let at = line.rfind(key)? + key.len();
        line[at..].split(' ').next()?.parse().ok()
    };
    let mut out_at: BTreeMap<i64, u64> = BTreeMap::new();
    let mut last_block: BTreeMap<i64, u64> = BTreeMap::new();
    for line in text.lines().filter(|l| l.contains(" sched:sched_switch: ")) {
        let (Some(t), Some(prev), Some(next)) = (
            time_of(line),
            field(line, " prev_pid="),
            field(line, " next_pid="),
        ) else {
            continue;
        };
        if let Some(out) = out_at.remove(&next) {
            last_block.insert(next, t - out);
        }
        if prev != 0 {
            out_at.insert(prev, t);
            last_block.remove(&prev);
        }
    }
    last_block.retain(|tid, _| !out_at.contains_key(tid));
    last_block
}

#[test]
fn complete_blocks_equal_perf_sched_timehist_wait_times() {
    let text = gunzip(&testdata("perf-sched-record.txt.gz"));
    let waits = timehist_waits(&gunzip(&testdata("perf-sched-timehist.txt.gz")));
    let trailing = trailing_blocks(&text);
    let opts = LoadOptions {
        perf: input::PerfOptions {
            include_tid: true,
            ..input::PerfOptions::default()
        },
        metric: Some("off-cpu".to_owned()),
        ..LoadOptions::default()
    };
    let p = load(&testdata("perf-sched-record.txt.gz"), &opts);
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    // Complete blocks per thread id, in µs (perf script printed µs).
    let mut mine: BTreeMap<i64, u64> = BTreeMap::new();
    for line in export::folded_lines(&p.tree) {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        if stack.contains("[incomplete]") || stack.contains("[upper bound]") {
            continue;
        }
        let root = stack.split(';').next().unwrap();
        let tid: i64 = root.rsplit('/').next().unwrap().parse().unwrap();
        *mine.entry(tid).or_default() += weight.parse::<u64>().unwrap() / 1000;
    }
    let mut compared = 0u64;
    for (tid, &(wait, rows)) in &waits {
        let got = mine.get(tid).copied().unwrap_or(0);
        let want = wait + trailing.get(tid).copied().unwrap_or(0);
        // timehist rounds each row's nanoseconds to µs; perf script printed µs.
        assert!(
            got.abs_diff(want) <= rows,
            "thread {tid}: {got} µs, timehist {wait} µs + trailing ({rows} rows)"
        );
        compared += wait;
    }
    // Five threads waited (perf, rcu_preempt, two kworkers, dd): 236 ms in all.
    assert!(compared >= 200_000, "{compared} µs compared");
    // And no thread of ours is missing from timehist but for trailing blocks.
    for (tid, &got) in &mine {
        if !waits.contains_key(tid) {
            assert_eq!(got, trailing.get(tid).copied().unwrap_or(0), "thread {tid}");
        }
    }
}

/// Off-CPU time per thread id in ns, from the folded export with `--tid` roots; blocks
/// still open at the end left out unless `incomplete`.
fn per_thread(p: &Profile, incomplete: bool) -> BTreeMap<i64, u64> {
    let mut out = BTreeMap::new();
    for line in export::folded_lines(&p.tree) {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        if stack.contains("[incomplete]") && !incomplete {
            continue;
        }
        let root = stack.split(';').next().unwrap();
        let tid: i64 = root.rsplit('/').next().unwrap().parse().unwrap();
        *out.entry(tid).or_default() += weight.parse::<u64>().unwrap();
    }
    out
}

fn with_tids(metric: &str) -> LoadOptions {
    LoadOptions {
        perf: input::PerfOptions {
            include_tid: true,
            ..input::PerfOptions::default()
        },
        metric: Some(metric.to_owned()),
        ..LoadOptions::default()
    }
}

/// A per-process recording (`-e cpu-clock -e sched:sched_switch --switch-events`): the
/// tracepoint misses the switch-ins, the `PERF_RECORD_SWITCH IN` records give them. With
/// the records, each thread's off-CPU time equals an independent reading of the records'
/// OUT → IN pairs (to 0.1%: the tracepoint fires a few µs before the OUT record); without
/// them (the same recording printed without `--show-switch-events`), each block ends at
/// the thread's next sample: never less than the exact time.
#[test]
fn a_per_process_recording_uses_switch_records_or_gives_an_upper_bound() {
    let text = gunzip(&testdata("perf-waiter-switch.txt.gz"));
    let mut out_at: BTreeMap<i64, u64> = BTreeMap::new();
    let mut want: BTreeMap<i64, u64> = BTreeMap::new();
    let record = regex::Regex::new(
        r"^.*?\s(\d+)\s+(?:\[\d+\]\s+)?(\d+)\.(\d{6}): PERF_RECORD_SWITCH (IN|OUT)",
    )
    .unwrap();
    for c in text.lines().filter_map(|l| record.captures(l)) {
        let tid: i64 = c[1].parse().unwrap();
        let t = c[2].parse::<u64>().unwrap() * 1_000_000_000 + c[3].parse::<u64>().unwrap() * 1000;
        if &c[4] == "OUT" {
            out_at.insert(tid, t);
        } else if let Some(out) = out_at.remove(&tid) {
            *want.entry(tid).or_default() += t - out;
        }
    }
    let exact = load(
        &testdata("perf-waiter-switch.txt.gz"),
        &with_tids("off-cpu"),
    );
    let notes = exact.stats.off_cpu.clone().unwrap();
    assert_eq!((notes.bounded, notes.unmatched), (0, 0), "{notes:?}");
    let got = per_thread(&exact, false);
    assert_eq!(got.len(), 6, "{got:?}");
    for (tid, &w) in &want {
        let g = got.get(tid).copied().unwrap_or(0);
        assert!(
            g.abs_diff(w) * 1000 <= w,
            "thread {tid}: {g} ns, the records {w} ns"
        );
    }
    let bound = load(&testdata("perf-waiter-sched.txt.gz"), &with_tids("off-cpu"));
    assert!(bound.stats.off_cpu.as_ref().unwrap().bounded > 100);
    assert!(
        export::folded_lines(&bound.tree)
            .iter()
            .any(|l| l.contains(";[upper bound] "))
    );
    // Without the records the recording ends at its last sample, which may come before
    // the last switch-in record: a block open there counts that much less.
    let micros = |c: &regex::Captures, i: usize| {
        c[i].parse::<u64>().unwrap() * 1_000_000_000 + c[i + 1].parse::<u64>().unwrap() * 1000
    };
    let sample =
        regex::Regex::new(r"\s(\d+)\.(\d{6}):\s+\d*\s*(cpu-clock|sched:sched_switch):").unwrap();
    let last_sample = text
        .lines()
        .filter_map(|l| sample.captures(l).map(|c| micros(&c, 1)))
        .max()
        .unwrap();
    let last_record = text
        .lines()
        .filter_map(|l| record.captures(l).map(|c| micros(&c, 2)))
        .max()
        .unwrap();
    let slack = last_record.saturating_sub(last_sample);
    assert!(slack < 1_000_000, "{slack} ns");
    for (tid, &g) in &got {
        let b = per_thread(&bound, true).get(tid).copied().unwrap_or(0);
        assert!(b + slack >= g, "thread {tid}: bound {b} ns < exact {g} ns");
    }
}

/// With a clock event beside the switches, the `on+off-cpu` metric holds both, in ns:
/// under `[on-cpu]` exactly the cpu-clock profile, under `[off-cpu]` exactly the off-CPU
/// one; cycles would never be added to time (the clock's unit is checked).
#[test]
fn on_and_off_cpu_time_side_by_side() {
    let path = testdata("perf-waiter-switch.txt.gz");
    let lines = |metric: &str| export::folded_lines(&load(&path, &with_tids(metric)).tree);
    let wall = load(&path, &with_tids("on+off-cpu"));
    assert_eq!(wall.stats.unit, Unit::Nanoseconds);
    let mut want: Vec<String> = lines("cpu-clock")
        .into_iter()
        .map(|l| format!("[on-cpu];{l}"))
        .chain(
            lines("off-cpu")
                .into_iter()
                .map(|l| format!("[off-cpu];{l}")),
        )
        .collect();
    want.sort();
    assert_eq!(export::folded_lines(&wall.tree), want);
    // A thread's life: the sleeper slept about 20 ms at a time for about a second.
    let sleeper: u64 = export::folded_lines(&wall.tree)
        .iter()
        .filter(|l| l.contains("sleeper-"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert!(
        (900_000_000..1_100_000_000).contains(&sleeper),
        "{sleeper} ns"
    );
}

/// Off-CPU time per (thread id, state frame, incomplete, upper bound), in ns.
fn per_state(p: &Profile) -> BTreeMap<(i64, String, bool, bool), u64> {
    let mut out = BTreeMap::new();
    for line in export::folded_lines(&p.tree) {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        let root = stack.split(';').next().unwrap();
        let tid: i64 = root.rsplit('/').next().unwrap().parse().unwrap();
        let state = stack
            .split(';')
            .find(|f| f.starts_with("[off-cpu: "))
            .unwrap()
            .to_owned();
        let key = (
            tid,
            state,
            stack.contains("[incomplete]"),
            stack.contains("[upper bound]"),
        );
        *out.entry(key).or_default() += weight.parse::<u64>().unwrap();
    }
    out
}

/// A recording read from perf.data (the tracepoint's raw `prev_state` and `next_pid`,
/// found by the tracing data's format; `PERF_RECORD_SWITCH` records; pipe mode's tracing
/// data record) gives the off-CPU time of its `perf script` text: the same blocks, per
/// thread and state, each within the microsecond perf script rounds its times to, and
/// the same counts of complete, incomplete, bounded and unmatched blocks.
#[test]
fn perf_data_gives_the_off_cpu_time_of_its_perf_script_text() {
    let pairs = [
        // System-wide, `perf sched record` (six scheduler events).
        ("perf-sched-record.data.gz", "perf-sched-record.txt.gz"),
        // Per process with --switch-events, file mode.
        ("perf-waiter-switch.data.gz", "perf-waiter-switch.txt.gz"),
        // The same in pipe mode (`-o -`): its tracing data follows a record; perf script
        // prints its tracepoint callchains without DSOs.
        ("perf-waiter-pipe.data.gz", "perf-waiter-pipe.txt.gz"),
    ];
    for (data, text) in pairs {
        let from_data = load(&testdata(data), &with_tids("off-cpu"));
        let from_text = load(&testdata(text), &with_tids("off-cpu"));
        assert_eq!(from_data.stats.unit, Unit::Nanoseconds, "{data}");
        assert!(
            from_data
                .stats
                .bad_lines
                .iter()
                .all(|b| b.reason != "off-cpu"),
            "{data}: {:?}",
            from_data.stats.bad_lines
        );
        let (d, t) = (
            from_data.stats.off_cpu.clone().unwrap(),
            from_text.stats.off_cpu.clone().unwrap(),
        );
        assert_eq!(
            (d.complete, d.incomplete, d.unmatched, d.bounded, d.skipped),
            (t.complete, t.incomplete, t.unmatched, t.bounded, t.skipped),
            "{data}"
        );
        assert!(d.complete > 100, "{data}: {d:?}");
        let (d, t) = (per_state(&from_data), per_state(&from_text));
        assert_eq!(
            d.keys().collect::<Vec<_>>(),
            t.keys().collect::<Vec<_>>(),
            "{data}"
        );
        let switches = |tid: i64| -> u64 {
            let text = gunzip(&testdata(text));
            text.matches(&format!(" prev_pid={tid} ")).count() as u64
        };
        for (key, &ns) in &d {
            let want = t[key];
            // Each block's two ends are rounded down to the µs in the text.
            assert!(
                ns.abs_diff(want) <= 1000 * switches(key.0).max(1),
                "{data} {key:?}: {ns} ns, the text {want} ns"
            );
        }
    }
    // The clock half of the wall-clock metric is exactly the recording's cpu-clock.
    let wall = load(
        &testdata("perf-waiter-pipe.data.gz"),
        &with_tids("on+off-cpu"),
    );
    let clock = load(
        &testdata("perf-waiter-pipe.data.gz"),
        &with_tids("cpu-clock"),
    );
    let on: Vec<String> = export::folded_lines(&wall.tree)
        .into_iter()
        .filter_map(|l| l.strip_prefix("[on-cpu];").map(str::to_owned))
        .collect();
    assert_eq!(on, export::folded_lines(&clock.tree));
}

/// `perf record --off-cpu` (BPF; not built into this machine's perf, so the file is made
/// by hand in perf script's format): `offcpu-time` samples carry the blocked ns as their
/// period; those gathered in BPF are written at the end with perf's dummy time
/// (18446744069.414584 s), kept in the tree and out of the timeline; one longer than
/// `--off-cpu-thresh`, written when it ended, is placed where it began.
#[test]
fn perf_record_off_cpu_samples_are_time_and_dummy_times_stay_out_of_the_timeline() {
    use flametui::profile::heatmap::{DEFAULT_ROW_NS, heat_map};
    let path = testdata("perf-offcpu-bpf.txt");
    let off = load(&path, &with_tids("offcpu-time"));
    assert_eq!(off.stats.unit, Unit::Nanoseconds);
    assert_eq!(off.tree.total(), 665_000_000);
    assert_eq!(off.stats.dummy_timed, 3);
    assert_eq!(
        export::folded_lines(&off.tree),
        [
            "waiter-?/4201;start_thread;lock_holder;__futex_abstimed_wait_common 5000000",
            "waiter-?/4202;start_thread;sleeper;__nanosleep;clock_nanosleep@GLIBC_2.2.5 640000000",
            "waiter-?/4203;start_thread;mutex_waiter;__lll_lock_wait;__futex_abstimed_wait_common 20000000",
        ]
    );
    // The timeline holds the one real time: 101.0 s less its 600 ms, where it began,
    // counted from the recording's first sample (cpu-clock's, at 100.000250 s).
    let table = &off.samples;
    assert_eq!(table.len(), 4);
    assert!(table.has_timeline());
    assert_eq!(
        (table.first_time(), table.duration()),
        (100_000_250_000, 399_750_000)
    );
    let map = heat_map(table, &flametui::profile::Slice::default(), DEFAULT_ROW_NS);
    assert_eq!(map.seconds, 1);
    assert_eq!(map.cells.iter().map(|c| c.samples).sum::<u64>(), 1);
    assert_eq!(table.range(399_750_000, 399_750_001), 0..1);
    assert_eq!(table.range(0, 399_750_000), 0..0);
    // Beside cpu-clock, the wall-clock view: its off-CPU half is this profile.
    let wall = load(&path, &with_tids("on+off-cpu"));
    let half: Vec<String> = export::folded_lines(&wall.tree)
        .into_iter()
        .filter_map(|l| l.strip_prefix("[off-cpu];").map(str::to_owned))
        .collect();
    let mut want = export::folded_lines(&off.tree);
    want.sort();
    assert_eq!(half, want);
    assert_eq!(wall.tree.total(), 665_000_000 + 4 * 250_000);
    // The binary says which samples are out of the timeline.
    let (_, err) = run_ok(&["--print", &path]);
    assert!(
        err.contains("3 samples carry perf's dummy timestamp"),
        "{err}"
    );
}

/// Each thread's blocks add up, by state, to its off-CPU time in the graph; the
/// incomplete part is what lies under `[incomplete]`; the longest block is its heaviest
/// sample; and the on-CPU time is the thread's cpu-clock time. `--print` shows them.
#[test]
fn each_thread_s_blocks_add_up_by_state() {
    use flametui::profile::blocks::{on_cpu_time, thread_blocks};
    use flametui::profile::{Slice, TaskState};
    let p = load(&testdata("perf-sched-record.txt.gz"), &with_tids("off-cpu"));
    let blocks = thread_blocks(&p, &Slice::default()).unwrap();
    let (all, complete) = (per_thread(&p, true), per_thread(&p, false));
    let tid_of = |i: usize| p.samples.tasks()[i].tid.unwrap();
    let mut states = std::collections::BTreeSet::new();
    for (i, b) in blocks.iter().enumerate().filter(|(_, b)| b.blocks > 0) {
        let tid = tid_of(i);
        assert_eq!(b.total(), all[&tid], "thread {tid}");
        assert_eq!(
            b.incomplete,
            all[&tid] - complete.get(&tid).copied().unwrap_or(0)
        );
        let heaviest = p
            .samples
            .samples()
            .iter()
            .filter(|s| s.task.0 as usize == i)
            .map(|s| s.weight)
            .max()
            .unwrap();
        assert_eq!(b.longest, heaviest, "thread {tid}");
        for s in [
            TaskState::Uninterruptible,
            TaskState::Idle,
            TaskState::Sleeping,
        ] {
            if b.in_state(s) > 0 {
                states.insert(s);
            }
        }
    }
    assert_eq!(states.len(), 3, "D, I and S blocks in this recording");
    // dd blocked in D (disk flushes).
    let dd = blocks
        .iter()
        .enumerate()
        .find(|(i, _)| &*p.samples.tasks()[*i].comm == "dd")
        .unwrap()
        .1;
    assert!(
        dd.in_state(TaskState::Uninterruptible) * 2 > dd.total(),
        "{dd:?}"
    );
    // Not the metric of switches: nothing to split.
    let clock_opts = with_tids("cpu-clock");
    let waiter = load(&testdata("perf-waiter-switch.txt.gz"), &clock_opts);
    assert!(thread_blocks(&waiter, &Slice::default()).is_none());
    // On-CPU time per thread, matched by task, equals the cpu-clock tree's.
    let off = load(
        &testdata("perf-waiter-switch.txt.gz"),
        &with_tids("off-cpu"),
    );
    let on = on_cpu_time(&off.samples, &waiter, None);
    let clock = per_thread(&waiter, true);
    for (i, ns) in on.iter().enumerate() {
        let tid = off.samples.tasks()[i].tid.unwrap();
        assert_eq!(*ns, clock.get(&tid).copied().unwrap_or(0), "thread {tid}");
    }
    assert!(on.iter().sum::<u64>() > 100_000_000);
    // The report.
    let (text, _) = run_ok(&[
        "--print",
        "--metric",
        "off-cpu",
        &testdata("perf-waiter-switch.txt.gz"),
    ]);
    let at = text.find("Top 6 threads by off-CPU time").expect(&text);
    let row = text[at..]
        .lines()
        .find(|l| l.contains("mutex-waiter"))
        .unwrap();
    for cell in ["1.01 s", "13.4 ms", "993 ms", "50.9 ms", "39"] {
        assert!(row.contains(cell), "{cell} not in {row}");
    }
}

/// `perf script -F` without `trace` (or without `time`) leaves the switches unreadable as
/// blocks: stderr says how many and which fields to add; the switches still load.
#[test]
fn switches_printed_without_their_fields_say_which_to_add() {
    let text = std::fs::read_to_string(testdata("perf-offcpu-hand.txt")).unwrap();
    let stripped: String = text
        .lines()
        .map(|l| match l.find(" prev_comm=") {
            Some(at) => l[..at].to_owned(),
            None => l.to_owned(),
        })
        .map(|l| l + "\n")
        .collect();
    let dir = std::env::temp_dir().join(format!("flametui-offcpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("no-trace.txt");
    std::fs::write(&path, stripped).unwrap();
    let (_, err) = run_ok(&["--print", path.to_str().unwrap()]);
    let switches = text.matches("sched:sched_switch:").count();
    assert!(
        err.contains(&format!(
            "{switches} sched:sched_switch samples have no time or no prev_state and next_pid"
        )) && err.contains("-F +time,+trace"),
        "{err}"
    );
    assert!(!err.contains("off-CPU time of"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A time range keeps the blocks that began in it (a stall shows where it began, and
/// `--time` selects it there), through the binary.
#[test]
fn a_time_range_keeps_the_blocks_that_began_in_it() {
    let path = testdata("perf-offcpu-hand.txt");
    let p = load(&path, &with_tids("off-cpu"));
    let origin = p.samples.first_time();
    let began_in = |from: u64, to: u64| -> u64 {
        p.samples
            .samples()
            .iter()
            .filter(|s| (origin + from..origin + to).contains(&s.time))
            .map(|s| s.weight)
            .sum()
    };
    for (range, from, to) in [
        ("0.002,0.004", 2, 4),
        ("0.005,0.011", 5, 11),
        ("0,0.001", 0, 1),
    ] {
        let (folded, _) = run_ok(&[
            "--metric", "off-cpu", "--time", range, "--export", "folded", &path,
        ]);
        let total: u64 = folded
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        let want = began_in(from * 1_000_000, to * 1_000_000);
        assert!(want > 0, "{range}");
        assert_eq!(total, want, "{range}");
    }
}

#[test]
fn a_thread_renamed_by_exec_is_one_row_of_the_printed_thread_table() {
    // Thread 101 sleeps 2 ms as `sh`, execs, then waits 3 ms on disk as `python3`.
    let switch = |comm: &str, pid: i64, at: &str, state: &str, next: (&str, i64)| {
        let stack = if pid == 0 {
            String::new()
        } else {
            "\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n".to_owned()
        };
        format!(
            "{comm} {pid} [000] {at}: sched:sched_switch: prev_comm={comm} prev_pid={pid} \
             prev_prio=120 prev_state={state} ==> next_comm={} next_pid={} next_prio=120\n{stack}\n",
            next.0, next.1
        )
    };
    let text = [
        switch("sh", 101, "1.000000", "S", ("swapper/0", 0)),
        switch("swapper", 0, "1.002000", "R", ("sh", 101)),
        switch("python3", 101, "1.003000", "D", ("swapper/0", 0)),
        switch("swapper", 0, "1.006000", "R", ("python3", 101)),
    ]
    .concat();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("offcpu-renamed-{}.txt", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let (out, _) = run_ok(&["--print", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Top 1 thread by off-CPU time"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 1, "{out}");
    let words: Vec<&str> = rows[0].split_whitespace().collect();
    // off-CPU, R, S, D, other, incomplete, longest, blocks, name, id
    assert_eq!(
        words,
        [
            "5.00", "ms", "-", "2.00", "ms", "3.00", "ms", "-", "-", "3.00", "ms", "2", "sh", "→",
            "python3", "101"
        ],
        "{out}"
    );
}
