//! Source lines of the JSON formats, against the files' own JSON (walked here with
//! `serde_json`, independently of the readers).
//!
//! * `.cpuprofile` (`testdata/node-work.cpuprofile`, `testdata/node-lines.cpuprofile.gz`):
//!   each node's `positionTicks` share out its self weight (the time deltas of its
//!   samples, in ns) by largest remainder; per file and line, flametui's self is the sum of
//!   those shares over the nodes, each tree node's lines add up to its self weight, and a
//!   line's total is its self. Without `timeDeltas` the shares are of sample counts, and
//!   without `samples` (each node's `hitCount`) they are the ticks themselves.
//! * speedscope (`testdata/pyspy-speedscope.json`): per function and line, self is the
//!   weight of the samples whose leaf frame is at it, total of those with it on the stack
//!   (once per sample), also for the samples of one thread alone, from their stacks of
//!   lines.
#![allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // weights of the files

use std::collections::BTreeMap;
use std::io::Read;

use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::source::{Cost, Line, Of};
use flametui::profile::{NameId, NodeId, Profile, Unit};
use serde_json::Value;

use crate::testdata;

fn json(name: &str) -> Value {
    let mut bytes = Vec::new();
    let mut file = std::fs::File::open(testdata(name)).unwrap();
    if name.ends_with(".gz") {
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut bytes)
            .unwrap();
    } else {
        file.read_to_end(&mut bytes).unwrap();
    }
    serde_json::from_slice(&bytes).unwrap()
}

fn load_value(doc: &Value) -> Profile {
    let bytes = serde_json::to_vec(doc).unwrap();
    match input::load_reader(
        std::io::Cursor::new(bytes),
        "x.cpuprofile",
        &LoadOptions::default(),
    )
    .unwrap()
    {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("a JSON profile read as a comparison"),
    }
}

/// `(file, line) → (self, total)` over every function of a profile.
fn lines_by_file(p: &Profile) -> BTreeMap<(String, u32), (u64, u64)> {
    let lines = p.samples.lines();
    let mut out: BTreeMap<(String, u32), (u64, u64)> = BTreeMap::new();
    for f in lines.functions() {
        for (line, cost) in lines.of_function(f) {
            let e = out
                .entry((lines.path(line.file).to_owned(), line.number))
                .or_default();
            e.0 += cost.self_weight;
            e.1 += cost.total;
        }
    }
    out
}

/// `total` shared by `parts`: each `⌊total × part / Σ⌋`, and the units left over one each
/// to the largest remainders (the first of equal ones).
fn largest_remainder(total: u64, parts: &[u64]) -> Vec<u64> {
    let sum: u128 = parts.iter().map(|&p| u128::from(p)).sum();
    if sum == 0 {
        return vec![0; parts.len()];
    }
    let exact: Vec<u128> = parts
        .iter()
        .map(|&p| u128::from(total) * u128::from(p))
        .collect();
    let mut shares: Vec<u64> = exact.iter().map(|e| (e / sum) as u64).collect();
    let left = total - shares.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(exact[i] % sum), i));
    for &i in order.iter().take(left as usize) {
        shares[i] += 1;
    }
    shares
}

/// The path a `.cpuprofile` URL names (`file:///a/b.js` → `/a/b.js`).
fn path_of(url: &str) -> String {
    url.strip_prefix("file://").unwrap_or(url).to_owned()
}

/// Each node's self weight as the file gives it: the sum of its samples' time deltas in ns,
/// or their count without `timeDeltas`, or its `hitCount` without `samples`.
fn self_weights(doc: &Value) -> BTreeMap<u64, u64> {
    let mut out = BTreeMap::new();
    match doc["samples"].as_array() {
        Some(samples) => {
            let deltas = doc["timeDeltas"].as_array();
            for (j, s) in samples.iter().enumerate() {
                let w = deltas.map_or(1, |d| (d[j].as_f64().unwrap().max(0.0) * 1e3) as u64);
                *out.entry(s.as_u64().unwrap()).or_default() += w;
            }
        }
        None => {
            for n in doc["nodes"].as_array().unwrap() {
                out.insert(n["id"].as_u64().unwrap(), n["hitCount"].as_u64().unwrap());
            }
        }
    }
    out
}

/// `(file, line) → self`: each node's self weight shared by its `positionTicks`; and the
/// ticks summed per `(file, line)`. Nodes without a URL are left out.
#[allow(clippy::type_complexity)]
fn apportioned(doc: &Value) -> (BTreeMap<(String, u32), u64>, BTreeMap<(String, u32), u64>) {
    let own = self_weights(doc);
    let (mut shares, mut ticks) = (BTreeMap::new(), BTreeMap::new());
    for n in doc["nodes"].as_array().unwrap() {
        let Some(pt) = n["positionTicks"].as_array() else {
            continue;
        };
        // A node without a URL (V8's natives) names no file: its ticks go nowhere.
        let url = path_of(n["callFrame"]["url"].as_str().unwrap());
        if url.is_empty() {
            continue;
        }
        let at: Vec<(u32, u64)> = pt
            .iter()
            .map(|t| {
                (
                    t["line"].as_u64().unwrap() as u32,
                    t["ticks"].as_u64().unwrap(),
                )
            })
            .collect();
        let counts: Vec<u64> = at.iter().map(|t| t.1).collect();
        let weight = own.get(&n["id"].as_u64().unwrap()).copied().unwrap_or(0);
        for (&(line, count), share) in at.iter().zip(largest_remainder(weight, &counts)) {
            *shares.entry((url.clone(), line)).or_default() += share;
            *ticks.entry((url.clone(), line)).or_default() += count;
        }
    }
    shares.retain(|_, w| *w > 0);
    (shares, ticks)
}

/// Per file and line, self is the shares and total is self; each tree node's lines add up
/// to its self weight (every node with samples and a URL has ticks in these files).
fn check_cpuprofile(doc: &Value, p: &Profile) -> BTreeMap<(String, u32), u64> {
    let (expected, ticks) = apportioned(doc);
    assert!(expected.len() >= 10, "{expected:?}");
    let got = lines_by_file(p);
    let self_only: BTreeMap<_, _> = got.iter().map(|(k, c)| (k.clone(), c.0)).collect();
    assert_eq!(self_only, expected);
    assert!(
        got.values().all(|c| c.0 == c.1),
        "a line's total is its self"
    );
    let lines = p.samples.lines();
    let mut with_lines = 0;
    for id in p.tree.ids().filter(|&id| id != NodeId::ROOT) {
        let of = lines.of_node(id);
        if of.is_empty() {
            continue;
        }
        with_lines += 1;
        let sum: u64 = of.iter().map(|(_, c)| c.self_weight).sum();
        let name = p.tree.names().resolve(p.tree.node(id).name);
        assert_eq!(sum, p.tree.self_weight(id), "{name}");
    }
    assert!(with_lines >= 10);
    ticks
}

#[test]
fn cpuprofile_lines_share_each_nodes_self_time_by_its_ticks() {
    for name in ["node-work.cpuprofile", "node-lines.cpuprofile.gz"] {
        let doc = json(name);
        let p = Profile::from_path(&testdata(name), &LoadOptions::default()).unwrap();
        assert_eq!(p.stats.unit, Unit::Nanoseconds);
        check_cpuprofile(&doc, &p);
    }
    // node-lines.js: the loop body (line 9) holds most of the time, `helper`'s line 14
    // some (as `helper`, and as `loop` where V8 inlined it).
    let p = Profile::from_path(
        &testdata("node-lines.cpuprofile.gz"),
        &LoadOptions::default(),
    )
    .unwrap();
    let got = lines_by_file(&p);
    let at = |line| {
        got.iter()
            .find(|(k, _)| k.0.ends_with("/lines.js") && k.1 == line)
            .map_or(0, |(_, c)| c.0)
    };
    assert!(at(9) * 10 > p.tree.total() * 8, "{got:?}");
    assert!(at(14) > 0 && at(5) > 0 && at(6) > 0, "{got:?}");
    // The function's first line is `callFrame.lineNumber` + 1.
    let lines = p.samples.lines();
    let f = lines
        .functions()
        .into_iter()
        .find(|&f| p.tree.names().resolve(f) == "loop (lines.js:3)")
        .unwrap();
    assert_eq!(lines.start(f).unwrap().number, 3);
}

/// With an even interval a line weighs its ticks × the interval, as DevTools' line-level
/// profile shows it (ticks × the average interval).
#[test]
fn cpuprofile_lines_at_an_even_interval_are_ticks_times_the_interval() {
    let doc: Value = serde_json::from_str(
        r#"{"nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
            {"id": 2, "callFrame": {"functionName": "f", "url": "/a/f.js", "lineNumber": 0},
             "hitCount": 3, "children": [3], "positionTicks": [{"line": 2, "ticks": 3}]},
            {"id": 3, "callFrame": {"functionName": "g", "url": "/a/f.js", "lineNumber": 9},
             "hitCount": 7, "positionTicks": [{"line": 12, "ticks": 5}, {"line": 11, "ticks": 2}]}],
         "startTime": 0, "endTime": 1000,
         "samples": [3, 2, 3, 3, 2, 3, 3, 2, 3, 3], "timeDeltas": [100, 100, 100, 100, 100,
                                                              100, 100, 100, 100, 100]}"#,
    )
    .unwrap();
    let p = load_value(&doc);
    let got: Vec<_> = lines_by_file(&p).into_iter().collect();
    let at = |line: u32, ns: u64| (("/a/f.js".to_owned(), line), (ns, ns));
    assert_eq!(
        got,
        [at(2, 300_000), at(11, 200_000), at(12, 500_000)],
        "the caller's line holds nothing of its callee's"
    );
}

#[test]
fn cpuprofile_lines_without_time_deltas_are_sample_counts_then_ticks() {
    for name in ["node-work.cpuprofile", "node-lines.cpuprofile.gz"] {
        let mut doc = json(name);
        doc.as_object_mut().unwrap().remove("timeDeltas");
        let p = load_value(&doc);
        assert_eq!(p.stats.unit, Unit::Samples);
        check_cpuprofile(&doc, &p);
        // Without `samples`, each node's `hitCount`, which its ticks add up to: the
        // lines' self is their ticks exactly.
        doc.as_object_mut().unwrap().remove("samples");
        let p = load_value(&doc);
        let ticks = check_cpuprofile(&doc, &p);
        let got: BTreeMap<_, _> = lines_by_file(&p)
            .into_iter()
            .map(|(k, c)| (k, c.0))
            .collect();
        assert_eq!(got, ticks, "{name}");
    }
}

#[test]
fn cpuprofile_unreadable_ticks_are_left_out_with_a_note() {
    let doc: Value = serde_json::from_str(
        r#"{"nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
            {"id": 2, "callFrame": {"functionName": "f", "url": "file:///a/my%20f.js",
             "lineNumber": 4}, "hitCount": 4,
             "positionTicks": [{"line": 6, "ticks": 1}, {"line": -1, "ticks": 1},
                               {"line": 7, "ticks": 2.5}, {"line": 20000000, "ticks": 1},
                               {"line": 8, "ticks": 2}]}]}"#,
    )
    .unwrap();
    let p = load_value(&doc);
    let got = lines_by_file(&p);
    // Lines 6 and 8 share the node's 4 samples 1:2 (1.33 and 2.67: 1 and 3).
    assert_eq!(
        got.into_iter().collect::<Vec<_>>(),
        [
            (("/a/my f.js".to_owned(), 6), (1, 1)),
            (("/a/my f.js".to_owned(), 8), (3, 3))
        ]
    );
    let notes = p
        .stats
        .bad_lines
        .iter()
        .filter(|b| b.reason.starts_with("position tick left out"))
        .count();
    assert_eq!(notes, 3);
}

/// A speedscope frame's name as flametui gives it, its file and its line, when it has both.
fn frame(doc: &Value, i: u64) -> Option<(String, String, u32)> {
    let f = &doc["shared"]["frames"][i as usize];
    let name = f["name"].as_str().unwrap();
    let file = f["file"].as_str()?;
    let line = f["line"].as_u64()? as u32;
    Some((format!("{name} ({file}:{line})"), file.to_owned(), line))
}

/// `(function, file, line) → (self, total)` of the samples of the profiles `picked` picks.
type ByFunction = BTreeMap<(String, String, u32), (u64, u64)>;

fn speedscope_lines(doc: &Value, picked: impl Fn(usize) -> bool) -> ByFunction {
    let mut out = ByFunction::new();
    for (k, profile) in doc["profiles"].as_array().unwrap().iter().enumerate() {
        if !picked(k) {
            continue;
        }
        let weights = profile["weights"].as_array().unwrap();
        for (s, w) in profile["samples"].as_array().unwrap().iter().zip(weights) {
            let w = (w.as_f64().unwrap() * 1e9).round() as u64;
            let frames: Vec<u64> = s
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_u64().unwrap())
                .collect();
            let mut seen = Vec::new();
            for (depth, &f) in frames.iter().enumerate() {
                let Some(key) = frame(doc, f) else {
                    continue;
                };
                let e = out.entry(key.clone()).or_default();
                if depth + 1 == frames.len() {
                    e.0 += w;
                }
                if !seen.contains(&key) {
                    e.1 += w;
                    seen.push(key);
                }
            }
        }
    }
    out
}

/// `(function, file, line) → (self, total)` of flametui's lines, as `costs` gives them.
fn by_function(p: &Profile, costs: impl Fn(NameId) -> Vec<(Line, Cost)>) -> ByFunction {
    let lines = p.samples.lines();
    let mut out = ByFunction::new();
    for f in lines.functions() {
        for (line, c) in costs(f) {
            if c.total == 0 {
                continue;
            }
            let key = (
                p.tree.names().resolve(f).to_owned(),
                lines.path(line.file).to_owned(),
                line.number,
            );
            out.insert(key, (c.self_weight, c.total));
        }
    }
    out
}

#[test]
fn speedscope_lines_are_the_samples_leaf_and_stack_lines() {
    let doc = json("pyspy-speedscope.json");
    let p =
        Profile::from_path(&testdata("pyspy-speedscope.json"), &LoadOptions::default()).unwrap();
    let lines = p.samples.lines();
    let expected = speedscope_lines(&doc, |_| true);
    assert!(expected.len() >= 20, "{expected:?}");
    assert_eq!(by_function(&p, |f| lines.of_function(f)), expected);
    // The hot line of each thread: `h.update(…)` in hash_work, `zlib.compress` in
    // compress_work, 1/97 s a sample.
    let hot = |name: &str, line: u32| {
        expected
            .iter()
            .find(|(k, _)| k.0.starts_with(name) && k.2 == line)
            .map(|(_, c)| *c)
            .unwrap()
    };
    assert!(hot("hash_work ", 5).0 > 100 * 10_309_278);
    assert!(hot("compress_work ", 9).0 > 80 * 10_309_278);
    // The samples of one thread, from their stacks of lines, are that profile's alone.
    let stacks = p
        .samples
        .line_stacks()
        .expect("each sample keeps its lines");
    let picked: Vec<(NodeId, u32, u64)> = p
        .samples
        .samples()
        .iter()
        .zip(stacks)
        .filter(|(s, _)| {
            let task = p.samples.task_of(s.task).unwrap();
            task.comm.contains("compressor")
        })
        .map(|(s, &stack)| (s.leaf, stack, s.weight))
        .collect();
    let one = by_function(&p, |f| {
        lines.of_samples(&p.tree, Of::Function(f), picked.clone()).0
    });
    let names: Vec<&str> = doc["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    let k = names.iter().position(|n| n.contains("compressor")).unwrap();
    assert_eq!(one, speedscope_lines(&doc, |j| j == k));
}

/// An evented profile's spans record their frames' lines as samples do: self at the
/// innermost open frame, total on every frame open.
#[test]
fn speedscope_evented_spans_record_their_lines() {
    let doc: Value = serde_json::from_str(
        r#"{"$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": [{"name": "a", "file": "/p/f.py", "line": 1},
                                  {"name": "b", "file": "/p/f.py", "line": 5},
                                  {"name": "c", "file": "/p/f.py", "line": 0.5}]},
            "profiles": [{"type": "evented", "name": "t", "unit": "milliseconds",
                          "startValue": 0, "endValue": 12,
                          "events": [{"type": "O", "at": 0, "frame": 0},
                                     {"type": "O", "at": 2, "frame": 1},
                                     {"type": "C", "at": 5, "frame": 1},
                                     {"type": "O", "at": 6, "frame": 2},
                                     {"type": "C", "at": 8, "frame": 2},
                                     {"type": "C", "at": 10, "frame": 0}]}]}"#,
    )
    .unwrap();
    let p = load_value(&doc);
    let lines = p.samples.lines();
    let got = by_function(&p, |f| lines.of_function(f));
    let ms = 1_000_000;
    let key = |f: &str, line| (f.to_owned(), "/p/f.py".to_owned(), line);
    assert_eq!(
        got.into_iter().collect::<Vec<_>>(),
        [
            (key("a (/p/f.py:1)", 1), (5 * ms, 10 * ms)),
            (key("b (/p/f.py:5)", 5), (3 * ms, 3 * ms)),
        ],
        "frame c's line 0.5 is no line"
    );
    assert!(p.stats.bad_lines.iter().any(|b| b.text.contains("0.5")));
    // Each span keeps its stack of lines: the first 2 ms are `a`'s line 1 alone.
    let stacks = p.samples.line_stacks().unwrap();
    let first = p
        .samples
        .samples()
        .iter()
        .position(|s| s.time == 0)
        .unwrap();
    assert_eq!(
        lines
            .stack(stacks[first])
            .iter()
            .map(|l| l.map(|l| l.number))
            .collect::<Vec<_>>(),
        [Some(1)]
    );
}

/// `--annotate` counts a time range's or task set's samples from their stacks of lines; a
/// `.cpuprofile` keeps none (its ticks are per node), so it is refused rather than wrong.
#[test]
fn annotate_of_a_slice_of_a_cpuprofile_is_refused() {
    let run = |extra: &[&str], name: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_flametui"))
            .args(["--annotate", "loop|compress"])
            .args(extra)
            .arg(testdata(name))
            .output()
            .unwrap()
    };
    let out = run(&["--time", "0,50%"], "node-lines.cpuprofile.gz");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("per node, not per sample"), "{err}");
    let out = run(&[], "node-lines.cpuprofile.gz");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ROUTINE ======================== loop (lines.js:3)"),
        "{text}"
    );
    // speedscope keeps each sample's lines: a range of it is annotated.
    let out = run(&["--time", "0,50%"], "pyspy-speedscope.json");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ROUTINE ======================== compress_work"),
        "{text}"
    );
}

/// A chain of 100,000 nodes, each with ticks, records each node's lines without walking
/// its stack (linear; a walk would take 5 billion steps), and a node's self time past
/// `u64::MAX` shares out saturated.
#[test]
fn deep_cpuprofile_lines_stay_linear_and_saturate() {
    let n = 100_000u64;
    let nodes: Vec<String> = (1..=n)
        .map(|i| {
            let children = if i < n {
                format!("[{}]", i + 1)
            } else {
                "[]".to_owned()
            };
            format!(
                r#"{{"id": {i}, "callFrame": {{"functionName": "f", "url": "/d.js",
                   "lineNumber": 0}}, "hitCount": 3, "children": {children},
                   "positionTicks": [{{"line": {}, "ticks": 1}}, {{"line": 2, "ticks": 2}}]}}"#,
                i % 7 + 3
            )
        })
        .collect();
    let doc: Value =
        serde_json::from_str(&format!(r#"{{"nodes": [{}]}}"#, nodes.join(","))).unwrap();
    let started = std::time::Instant::now();
    let p = load_value(&doc);
    assert!(started.elapsed().as_secs() < 60);
    let got = lines_by_file(&p);
    assert_eq!(got[&("/d.js".to_owned(), 2)], (2 * n, 2 * n));
    assert_eq!(got.values().map(|c| c.0).sum::<u64>(), 3 * n);
    // 1e16 µs three times is past u64::MAX ns: the node saturates, and so do its lines.
    let doc: Value = serde_json::from_str(
        r#"{"nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
            {"id": 2, "callFrame": {"functionName": "a", "url": "/a.js"}, "hitCount": 3,
             "positionTicks": [{"line": 1, "ticks": 2}, {"line": 2, "ticks": 1}]}],
         "samples": [2, 2, 2], "timeDeltas": [1e16, 1e16, 1e16]}"#,
    )
    .unwrap();
    let p = load_value(&doc);
    assert!(p.tree.saturated());
    let got = lines_by_file(&p);
    assert_eq!(got.values().map(|c| c.0).sum::<u64>(), u64::MAX);
}
