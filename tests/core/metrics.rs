//! Several metrics in one input: each perf event, pprof sample type and SystemTap half is
//! a profile of its own, picked with `--metric` (or `--event` for perf), never added to
//! the others.

use std::collections::BTreeMap;

use flametui::input::{FormatChoice, LoadOptions, Loaded, load_path};
use flametui::profile::Profile;

use super::{testdata, testdata_gunzipped};

fn load(name: &str, opts: &LoadOptions) -> Profile {
    match load_path(&testdata(name), opts).unwrap() {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("not a differential file"),
    }
}

fn folded(p: &Profile) -> BTreeMap<String, u64> {
    p.tree.stacks().into_iter().collect()
}

fn gunzip(name: &str) -> String {
    String::from_utf8(testdata_gunzipped(name)).unwrap()
}

/// Samples and summed periods per event, counted straight from the event lines (the
/// event is the word before the final `:`; the period the number before it).
fn per_event(text: &str) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with(['\t', ' ', '#']) && !l.is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| w.ends_with(':') && !w.contains('.'))
            .unwrap();
        let event = words[at].trim_end_matches(':').to_owned();
        let period = words[at - 1].parse::<u64>().unwrap_or(1);
        let e = out.entry(event).or_default();
        e.0 += 1;
        e.1 += period;
    }
    out
}

#[test]
fn every_perf_event_is_a_metric_with_its_own_totals() {
    let expected = per_event(&gunzip("perf-two-events.txt.gz"));
    assert_eq!(expected.len(), 2, "{expected:?}");
    for threads in [1, 2] {
        let opts = LoadOptions {
            threads: Some(threads),
            chunk_size: Some(4096),
            ..LoadOptions::default()
        };
        let p = load("perf-two-events.txt.gz", &opts);
        // The switches also give off-CPU time, and with cpu-clock both side by side.
        assert_eq!(
            p.metric_names(),
            ["cpu-clock", "off-cpu", "on+off-cpu", "sched:sched_switch"]
        );
        assert_eq!(
            p.metric_name(),
            Some("cpu-clock"),
            "the first event is shown"
        );
        let mut seen = BTreeMap::new();
        let mut p = p;
        for _ in 0..4 {
            let event = p.stats.event.clone().unwrap();
            assert_eq!(p.metric_name(), Some(event.as_str()));
            if event == "off-cpu" || event == "on+off-cpu" {
                assert_eq!(p.stats.unit, flametui::profile::Unit::Nanoseconds);
                p = p.into_next_metric();
                continue;
            }
            seen.insert(event, (p.stats.samples, p.tree.total()));
            assert_eq!(
                p.samples.len() as u64,
                p.stats.samples,
                "each metric has its own sample records"
            );
            p = p.into_next_metric();
        }
        assert_eq!(seen, expected, "threads {threads}");
        assert_eq!(p.metric_name(), Some("cpu-clock"), "back to the first");
    }
}

#[test]
fn metric_and_event_pick_the_same_tree_and_the_parse_is_the_same_in_parallel() {
    let by = |metric: Option<&str>, event: Option<&str>, threads: usize| {
        let mut opts = LoadOptions {
            metric: metric.map(str::to_owned),
            threads: Some(threads),
            chunk_size: Some(2048),
            ..LoadOptions::default()
        };
        opts.perf.event = event.map(str::to_owned);
        folded(&load("perf-two-events.txt.gz", &opts))
    };
    let m = by(Some("sched:sched_switch"), None, 1);
    assert_eq!(m.values().sum::<u64>(), 30, "one per sched_switch sample");
    assert_eq!(m, by(None, Some("sched:sched_switch"), 1));
    assert_eq!(m, by(Some("sched:sched_switch"), None, 2));
    let c = by(None, None, 2);
    assert_eq!(c, by(Some("cpu-clock"), None, 1));
    assert_eq!(c.values().sum::<u64>(), 70_000_000, "280 periods of 250 µs");
}

#[test]
fn an_unknown_metric_names_the_ones_there_are() {
    let opts = LoadOptions {
        metric: Some("cycles".into()),
        ..LoadOptions::default()
    };
    let e = load_path(&testdata("perf-two-events.txt.gz"), &opts)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("perf-two-events.txt.gz"), "{e}");
    assert!(e.contains("'cycles'"), "{e}");
    assert!(
        e.contains("cpu-clock, off-cpu, on+off-cpu, sched:sched_switch"),
        "{e}"
    );
    let e = load_path(&testdata("folded-small.txt"), &opts)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("folded has one metric"), "{e}");
}

#[test]
fn systemtap_halves_are_metrics_of_their_own_units() {
    let p = load("stap-mysqld-on-off.txt", &LoadOptions::default());
    assert_eq!(p.metric_names(), ["on+off-cpu", "on-cpu", "off-cpu"]);
    assert_eq!(
        p.metric_name(),
        Some("on+off-cpu"),
        "both halves side by side first"
    );
    let both = folded(&p);
    let half = |prefix: &str| -> BTreeMap<String, u64> {
        both.iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_owned(), *v)))
            .collect()
    };
    let all_samples = p.stats.samples;
    let on = p.clone().into_metric_named("on-cpu").unwrap();
    assert_eq!(folded(&on), half("[on-cpu];"));
    assert_eq!(on.stats.unit, flametui::profile::Unit::Samples);
    let off = p.into_metric_named("off-cpu").unwrap();
    assert_eq!(folded(&off), half("[off-cpu];"));
    assert_eq!(on.stats.samples + off.stats.samples, all_samples);
    assert_eq!(off.stats.samples, off.stats.offcpu_samples);
    assert!(off.stats.unit.to_string().contains("script units"));
    // Picked on the command line, as a file's other metrics are.
    let opts = LoadOptions {
        metric: Some("off-cpu".into()),
        format: FormatChoice::Stap,
        ..LoadOptions::default()
    };
    assert_eq!(
        folded(&load("stap-mysqld-on-off.txt", &opts)),
        half("[off-cpu];")
    );
}

#[test]
fn every_pprof_sample_type_is_a_metric() {
    let p = load("pprof-heap.pb.gz", &LoadOptions::default());
    let names = p.metric_names().to_vec();
    assert_eq!(
        names,
        [
            "alloc_objects",
            "alloc_space",
            "inuse_objects",
            "inuse_space"
        ]
    );
    for name in &names {
        let one = LoadOptions {
            metric: Some(name.clone()),
            ..LoadOptions::default()
        };
        let picked = p.clone().into_metric_named(name).unwrap();
        assert_eq!(
            folded(&picked),
            folded(&load("pprof-heap.pb.gz", &one)),
            "{name}"
        );
        assert_eq!(picked.stats.metric.as_ref().unwrap().name, *name);
    }
}

#[test]
fn a_text_naming_thousands_of_events_keeps_64_and_counts_the_rest() {
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "app 1/1 1.{i:06}: 1 ev{i}:\n\t1 f+0x1 (/bin/x)\n\n"
        ));
    }
    for threads in [1, 2] {
        let opts = LoadOptions {
            threads: Some(threads),
            chunk_size: Some(8192),
            ..LoadOptions::default()
        };
        let p =
            match flametui::input::load_reader(std::io::Cursor::new(text.clone()), "many", &opts)
                .unwrap()
            {
                Loaded::Single(p) => p,
                Loaded::Diff { .. } => panic!("not differential"),
            };
        let kept = p.metric_names().len();
        assert_eq!(kept, flametui::input::MAX_OTHER_EVENTS + 1);
        assert!(kept > 1);
        let in_metrics: u64 = p.stats.samples
            + p.metrics
                .others
                .iter()
                .map(|o| o.stats.samples)
                .sum::<u64>();
        assert_eq!(
            in_metrics + p.stats.filtered_samples,
            2000,
            "threads {threads}"
        );
        // The input's account stays with the profile shown, not copied to each metric.
        assert_eq!(p.stats.events.len(), 2000);
        assert!(p.metrics.others.iter().all(|o| o.stats.events.is_empty()));
    }
}

#[test]
fn an_event_name_with_control_bytes_reaches_no_text_output_raw() {
    let text = "app 1/1 1.0: 5 cpu-clock: \n\t1 f+0x1 (/bin/x)\n\n\
                app 1/1 1.1: 1 ev\u{1b}[31mX: \n\t1 g+0x1 (/bin/x)\n\n";
    let opts = LoadOptions {
        metric: Some("ev\u{1b}[31mX".into()),
        ..LoadOptions::default()
    };
    let p = match flametui::input::load_reader(std::io::Cursor::new(text), "h", &opts).unwrap() {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("not differential"),
    };
    assert_eq!(p.tree.total(), 1, "the event's own tree");
    for out in [
        flametui::report::top_table(&p, 5, flametui::report::Figures::Exact),
        flametui::report::header(&p, flametui::report::Figures::Exact),
        flametui::report::report(&p, 5, 0.0, flametui::report::Figures::Exact),
    ] {
        assert!(!out.contains('\u{1b}'), "{out:?}");
    }
}

/// One time origin per recording (issue 30.5): every metric of a two-event recording
/// counts `--time`, ranges and heat-map columns from the recording's first sample of any
/// event, so a window means the same instants whichever metric is shown.
#[test]
fn every_metric_counts_time_from_the_recording_s_first_sample() {
    let text = gunzip("perf-two-events.txt.gz");
    let first = text
        .lines()
        .filter(|l| l.contains("cpu-clock:") || l.contains("sched:sched_switch:"))
        .filter_map(|l| {
            let t = l.split(": ").next()?.split_whitespace().last()?;
            let (s, us) = t.split_once('.')?;
            Some(s.parse::<u64>().ok()? * 1_000_000_000 + us.parse::<u64>().ok()? * 1000)
        })
        .min()
        .unwrap();
    let opts = LoadOptions::default();
    let p = load("perf-two-events.txt.gz", &opts);
    let names = p.metric_names().to_vec();
    assert_eq!(
        names,
        ["cpu-clock", "off-cpu", "on+off-cpu", "sched:sched_switch"]
    );
    for name in &names {
        let m = p.clone().into_metric_named(name).unwrap();
        // on+off-cpu has no table of its own (each half's metric has).
        if !m.samples.is_empty() {
            assert_eq!(m.samples.first_time(), first, "{name}");
        }
    }
    // A window of the switches' metric selects the switches in it, counted from there.
    let switches = p.into_metric_named("sched:sched_switch").unwrap();
    let table = &switches.samples;
    let own_first = table.samples()[0].time;
    assert!(own_first > first);
    let r = table.range(own_first - first, own_first - first + 1);
    assert_eq!(r.start, 0);
    assert!(r.end >= 1);
}
