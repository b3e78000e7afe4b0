//! Folded stacks written by other profilers: py-spy's `--format raw` (real recordings of
//! our own, with `--threads` and `--subprocesses`) and async-profiler's collapsed output
//! (hand-made in its format). They load as folded stacks, with the right stacks and
//! totals; their process and thread frames are tasks, not functions.

use std::collections::BTreeMap;
use std::fs;

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::{Format, Profile};
use flametui::view::color::{Hue, hue};

use crate::testdata;

fn load(name: &str) -> Profile {
    match input::load_path(&testdata(name), &LoadOptions::default()).unwrap() {
        Loaded::Single(p) => {
            assert_eq!(p.stats.format, Some(Format::Folded), "{name}");
            assert_eq!(p.stats.accounted_lines(), p.stats.lines, "{name}");
            p
        }
        Loaded::Diff { .. } => panic!("{name}: differential"),
    }
}

/// The file's lines summed per stack, read independently: the count after the last space.
fn counted(name: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for line in fs::read_to_string(testdata(name)).unwrap().lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        *m.entry(stack.to_owned()).or_insert(0) += n.parse::<u64>().unwrap();
    }
    m
}

fn folded(p: &Profile) -> BTreeMap<String, u64> {
    export::folded_lines(&p.tree)
        .iter()
        .map(|l| {
            let (s, w) = l.rsplit_once(' ').unwrap();
            (s.to_owned(), w.parse().unwrap())
        })
        .collect()
}

fn is_task(p: &Profile, name: &str) -> bool {
    let names = p.tree.names();
    names.lookup_task(name).is_some_and(|id| names.is_task(id))
}

#[test]
fn py_spy_raw_output_loads_with_its_stacks_and_totals() {
    // `py-spy record --format raw --threads`: `thread (TID): NAME;frame (file:line);…`.
    let p = load("pyspy-raw-threads.txt");
    assert_eq!(folded(&p), counted("pyspy-raw-threads.txt"));
    assert_eq!(p.tree.total(), 231);
    assert!(is_task(&p, "thread (27630): MainThread"));
    assert!(is_task(&p, "thread (27633): compressor"));
    assert!(is_task(&p, "thread (27630)"));
    assert!(!is_task(&p, "hash_work (spy.py:5)"));

    // `--subprocesses` too: `process PID:"CMD"` frames, a child under its parent. py-spy
    // said `Samples: 278` for this run.
    let p = load("pyspy-raw-subprocesses.txt");
    assert_eq!(folded(&p), counted("pyspy-raw-subprocesses.txt"));
    assert_eq!(p.tree.total(), 278);
    let child = "process 27936:\"/usr/bin/python3 spy-sub.py\";process 27943:\"/usr/bin/python3 child.py\";thread (27943);<module> (child.py:4)";
    assert_eq!(folded(&p).get(child), Some(&135));
    assert!(is_task(&p, "process 27943:\"/usr/bin/python3 child.py\""));
    assert!(is_task(&p, "thread (27943)"));
}

#[test]
fn async_profiler_collapsed_output_keeps_its_suffixes() {
    let p = load("async-profiler-collapsed.txt");
    let got = folded(&p);
    assert_eq!(got, counted("async-profiler-collapsed.txt"));
    assert_eq!(p.tree.total(), 483);
    // `-t` thread frames are tasks; an unnamed thread too.
    for t in ["[main tid=12801]", "[GC Thread#0 tid=12805]", "[tid=12999]"] {
        assert!(is_task(&p, t), "{t}");
    }
    // The viewer colours the annotated frames by kind.
    let names = p.tree.names();
    for (frame, want) in [
        ("java/lang/Thread.run_[j]", Hue::Jit),
        ("com/example/Json.parse_[i]", Hue::Inline),
        ("tcp_sendmsg_[k]", Hue::Kernel),
    ] {
        assert!(names.lookup(frame).is_some(), "{frame}");
        assert_eq!(hue(frame, false), want, "{frame}");
    }
}

#[test]
fn task_frames_are_left_out_of_the_function_ranking() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args(["--top", "50"])
        .arg(testdata("pyspy-raw-subprocesses.txt"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("hash_work (spy-sub.py:7)"), "{text}");
    assert!(!text.contains("process 27936"), "{text}");
    assert!(!text.contains("thread ("), "{text}");
}
