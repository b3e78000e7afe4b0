//! Source lines of a time range or a task set (issue 32): each sample keeps its stack of
//! lines, so the lines of a slice are those of its samples alone — the same figures as
//! loading only those samples, however the input was parsed (one thread, or chunks dealt
//! to two, whose tables are merged and sorted with their columns).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use flametui::input::LoadOptions;
use flametui::profile::source::Of;
use flametui::profile::{NodeId, Profile, Slice};

use crate::testdata;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// The samples of a perf script text: each block's time in nanoseconds (from the header's
/// `SECONDS.MICROS:`) and its text.
fn blocks(text: &str) -> Vec<(u64, String)> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let header = b.lines().next().unwrap();
            let time = header
                .split_whitespace()
                .find_map(|t| {
                    let (s, f) = t.strip_suffix(':')?.split_once('.')?;
                    let frac: String = format!("{f:0<9}");
                    Some(s.parse::<u64>().ok()? * 1_000_000_000 + frac.parse::<u64>().ok()?)
                })
                .unwrap();
            (time, format!("{}\n\n", b.trim_start_matches('\n')))
        })
        .collect()
}

fn read_gz(name: &str) -> String {
    String::from_utf8(crate::testdata_gunzipped(name)).unwrap()
}

/// The test's copy of a recording: every third sample's task renamed `other` (pid 9999),
/// so that a task set has something to pick.
fn two_tasks(text: &str) -> Vec<(u64, String)> {
    blocks(text)
        .into_iter()
        .enumerate()
        .map(|(i, (t, b))| {
            if i % 3 == 0 {
                let rest = b.split_once(char::is_whitespace).unwrap().1.trim_start();
                let rest = rest.split_once(char::is_whitespace).unwrap().1;
                (t, format!("other 9999 {rest}"))
            } else {
                (t, b)
            }
        })
        .collect()
}

fn write(dir: &std::path::Path, name: &str, blocks: &[&(u64, String)]) -> String {
    let path = dir.join(name);
    let text: String = blocks.iter().map(|(_, b)| b.as_str()).collect();
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

type Lines = BTreeMap<(String, String, u32), (u64, u64)>;

/// `(function or node path, file, line) → (self, total)` of every function and node of
/// `p`, over the whole profile; and each node's total by path.
fn whole(p: &Profile) -> (Lines, Lines, BTreeMap<String, u64>) {
    let lines = p.samples.lines();
    let names = p.tree.names();
    let (mut functions, mut nodes, mut totals) = (Lines::new(), Lines::new(), BTreeMap::new());
    for f in lines.functions() {
        for (line, c) in lines.of_function(f) {
            let key = (
                names.resolve(f).to_owned(),
                lines.path(line.file).to_owned(),
            );
            functions.insert((key.0, key.1, line.number), (c.self_weight, c.total));
        }
    }
    for id in p.tree.ids().filter(|&id| id != NodeId::ROOT) {
        let path = p.tree.path_string(id);
        for (line, c) in lines.of_node(id) {
            let file = lines.path(line.file).to_owned();
            nodes.insert((path.clone(), file, line.number), (c.self_weight, c.total));
            totals.insert(path.clone(), p.tree.node(id).total);
        }
    }
    (functions, nodes, totals)
}

/// The same of the samples of `slice` in `p`, from their stacks of lines.
fn sliced(p: &Profile, slice: &Slice) -> (Lines, Lines, BTreeMap<String, u64>) {
    let (tree, table) = (&p.tree, &*p.samples);
    let lines = table.lines();
    let names = tree.names();
    let (mut functions, mut nodes, mut totals) = (Lines::new(), Lines::new(), BTreeMap::new());
    for f in lines.functions() {
        let (costs, _) = slice.source_lines(tree, table, Of::Function(f)).unwrap();
        for (line, c) in costs {
            let key = (
                names.resolve(f).to_owned(),
                lines.path(line.file).to_owned(),
            );
            functions.insert((key.0, key.1, line.number), (c.self_weight, c.total));
        }
    }
    for id in tree.ids().filter(|&id| id != NodeId::ROOT) {
        let path = tree.path_string(id);
        let (costs, total) = slice.source_lines(tree, table, Of::Node(id)).unwrap();
        for (line, c) in &costs {
            let file = lines.path(line.file).to_owned();
            nodes.insert((path.clone(), file, line.number), (c.self_weight, c.total));
        }
        if !costs.is_empty() {
            totals.insert(path, total);
        }
    }
    (functions, nodes, totals)
}

#[test]
fn a_slices_lines_are_those_of_its_samples_alone() {
    let dir = std::env::temp_dir().join(format!("flametui-slices-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["perf-srcline.txt.gz", "perf-srcline-dwarf.txt.gz"] {
        let all = two_tasks(&read_gz(name));
        let first = all.iter().map(|b| b.0).min().unwrap();
        let whole_path = write(&dir, "whole.txt", &all.iter().collect::<Vec<_>>());
        // A range in the middle, and the renamed task in it.
        let (start, end) = (300_000_000, 700_000_000);
        let within = |b: &&(u64, String)| (first + start..first + end).contains(&b.0);
        let in_range: Vec<_> = all.iter().filter(within).collect();
        let theirs: Vec<_> = in_range
            .iter()
            .copied()
            .filter(|b| b.1.starts_with("other "))
            .collect();
        assert!(in_range.len() > 100 && theirs.len() > 30, "{name}");
        let range_path = write(&dir, "range.txt", &in_range);
        let task_path = write(&dir, "task.txt", &theirs);
        let alone = |path: &str| Profile::from_path(path, &LoadOptions::default()).unwrap();
        let (range_alone, task_alone) = (whole(&alone(&range_path)), whole(&alone(&task_path)));
        assert!(range_alone.0.len() >= 7, "{name}: {:?}", range_alone.0);
        for (threads, chunk_size) in [(1, None), (2, Some(4096))] {
            let opts = LoadOptions {
                threads: Some(threads),
                chunk_size,
                ..LoadOptions::default()
            };
            let p = Profile::from_path(&whole_path, &opts).unwrap();
            assert_eq!(p.samples.line_stacks().map(<[u32]>::len), Some(all.len()));
            let mut slice = Slice {
                range: Some((start, end)),
                tasks: None,
            };
            let how = format!("{name}, {threads} thread(s)");
            assert_eq!(sliced(&p, &slice), range_alone, "{how}: range");
            let other: BTreeSet<_> = p
                .samples
                .tasks()
                .iter()
                .enumerate()
                .filter(|(_, t)| &*t.comm == "other")
                .map(|(i, _)| flametui::profile::TaskId(i as u32))
                .collect();
            slice.tasks = Some(other);
            assert_eq!(sliced(&p, &slice), task_alone, "{how}: range and task");
            // The whole recording as a slice: the figures recorded while loading.
            assert_eq!(
                sliced(&p, &Slice::default()),
                whole(&p),
                "{how}: everything"
            );
        }
        // `--annotate` with `--time` and `--comms` prints what it prints of those samples
        // alone.
        let annotate = |path: &str, extra: &[&str]| {
            let out = Command::new(BIN)
                .args(["--annotate", "work|mix|spin", "--exact"])
                .args(extra)
                .arg(path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let sliced_text = annotate(&whole_path, &["--time", "0.3,0.7", "--comms", "other"]);
        assert_eq!(sliced_text, annotate(&task_path, &[]), "{name}");
        assert!(sliced_text.contains("hot.c"), "{sliced_text}");
        assert_ne!(sliced_text, annotate(&whole_path, &[]), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `perf report -i hot.data --time 45033.079699,45033.479699 --no-children --sort srcline
/// -F sample,srcline` of the frame-pointer recording: its samples in 0.3–0.7 s after the
/// first (at 45032.779699) whose leaf is at each line of hot.c.
const FP_SELF_0_3_TO_0_7: [(u32, u64); 7] = [
    (10, 24),
    (11, 28),
    (12, 144),
    (24, 43),
    (25, 55),
    (34, 71),
    (35, 35),
];

#[test]
fn annotate_of_a_time_range_is_perf_reports_of_it() {
    let out = Command::new(BIN)
        .args(["--annotate", ".", "--exact", "--time", "0.3,0.7"])
        .arg(testdata("perf-srcline.txt.gz"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // `self total number:` rows of hot.c's functions, self summed per line.
    let mut got: BTreeMap<u32, u64> = BTreeMap::new();
    let mut in_hot = false;
    for line in text.lines() {
        if line.starts_with("ROUTINE") {
            in_hot = line.ends_with(" in hot.c");
            continue;
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        if let (true, [s, _, n, ..]) = (in_hot, cols.as_slice())
            && let (Ok(s), Some(Ok(n))) = (
                s.replace(',', "").parse::<u64>(),
                n.strip_suffix(':').map(str::parse::<u32>),
            )
            && s > 0
        {
            *got.entry(n).or_default() += s;
        }
    }
    let want: BTreeMap<u32, u64> = FP_SELF_0_3_TO_0_7
        .iter()
        .map(|&(l, n)| (l, n * 1_001_001))
        .collect();
    assert_eq!(got, want, "{text}");
}
