//! Conformance of the JSON readers on real recordings, and their hostile inputs.
//!
//! * testdata/pyspy-speedscope.json (py-spy 0.4.3 `--format speedscope`): every stack and
//!   weight equals what a walk of the file's JSON gives (written here independently of the
//!   reader, over `serde_json::Value`), the threads are tasks with times; and the stacks
//!   agree with py-spy's own `--format raw` output of another run of the same workload.
//! * testdata/node-work.cpuprofile (`node --cpu-prof`): likewise against a walk of the
//!   file, and each function's self time agrees with what Chrome DevTools' call tree
//!   computes from the nodes' `hitCount`s.
#![allow(clippy::cast_sign_loss)] // weights of the files, checked non-negative by the walks

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded};
use flametui::profile::{Format, Profile, Unit};
use serde_json::Value;

use crate::testdata;

fn load_bytes(bytes: &[u8], format: FormatChoice) -> flametui::error::Result<Profile> {
    let opts = LoadOptions {
        format,
        ..LoadOptions::default()
    };
    input::load_reader(std::io::Cursor::new(bytes.to_vec()), "x.json", &opts).map(|l| match l {
        Loaded::Single(p) => p,
        Loaded::Diff { .. } => panic!("a JSON profile read as a comparison"),
    })
}

fn load(name: &str) -> Profile {
    match input::load_path(&testdata(name), &LoadOptions::default()) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{name}: {:?}", other.map(|_| ())),
    }
}

fn folded(p: &Profile) -> BTreeMap<String, u64> {
    export::folded_lines(&p.tree)
        .iter()
        .map(|l| {
            let (stack, w) = l.rsplit_once(' ').unwrap();
            (stack.to_owned(), w.parse().unwrap())
        })
        .collect()
}

/// `name (…/dir/file.py:3)` → `name (file.py:3)`: the recordings' own paths left out.
fn short(stack: &str) -> String {
    stack
        .split(';')
        .map(|f| match f.split_once(" (") {
            Some((name, rest)) => {
                let file = rest.rsplit('/').next().unwrap_or(rest);
                format!("{name} ({file}")
            }
            None => f.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn json(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(testdata(name)).unwrap()).unwrap()
}

/// Stacks and weights (ns) of a py-spy speedscope file, by walking its JSON.
fn speedscope_stacks(doc: &Value) -> BTreeMap<String, u64> {
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let name = |i: &Value| {
        let f = &frames[usize::try_from(i.as_u64().unwrap()).unwrap()];
        format!(
            "{} ({}:{})",
            f["name"].as_str().unwrap(),
            f["file"].as_str().unwrap(),
            f["line"].as_u64().unwrap()
        )
    };
    let mut out = BTreeMap::new();
    for p in doc["profiles"].as_array().unwrap() {
        assert_eq!(p["type"], "sampled");
        assert_eq!(p["unit"], "seconds");
        let samples = p["samples"].as_array().unwrap();
        let weights = p["weights"].as_array().unwrap();
        assert_eq!(samples.len(), weights.len());
        for (s, w) in samples.iter().zip(weights) {
            let stack: Vec<String> = s.as_array().unwrap().iter().map(name).collect();
            let ns = (w.as_f64().unwrap() * 1e9).round() as u64;
            *out.entry(stack.join(";")).or_insert(0) += ns;
        }
    }
    out
}

#[test]
fn pyspy_speedscope_stacks_and_weights_are_the_files() {
    let doc = json("pyspy-speedscope.json");
    let p = load("pyspy-speedscope.json");
    assert_eq!(p.stats.format, Some(Format::Speedscope));
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    let want = speedscope_stacks(&doc);
    assert_eq!(folded(&p), want);
    assert_eq!(p.tree.total(), want.values().sum::<u64>());
    assert_eq!(p.tree.total(), 2_639_175_168);
    // Specific stacks, with the weights of the file (py-spy's interval is 1/97 s).
    let short: BTreeMap<String, u64> = want.iter().map(|(s, w)| (short(s), *w)).collect();
    assert_eq!(
        short["<module> (spy.py:21);main (spy.py:19);hash_work (spy.py:5)"],
        1_505_154_588
    );
    assert_eq!(
        short["Thread._bootstrap (threading.py:995);Thread._bootstrap_inner (threading.py:1038);Thread.run (threading.py:975);worker (spy.py:13);compress_work (spy.py:9)"],
        1_010_309_244
    );
    // One task per profile, named as it is; every sample timed.
    let profiles = doc["profiles"].as_array().unwrap();
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let tasks: Vec<&str> = p.samples.tasks().iter().map(|t| &*t.comm).collect();
    assert_eq!(tasks, names);
    assert!(names.contains(&"Thread 31383 \"compressor\""), "{names:?}");
    let counts: usize = profiles
        .iter()
        .map(|p| p["samples"].as_array().unwrap().len())
        .sum();
    assert_eq!(p.samples.len(), counts);
    assert_eq!(p.stats.samples, counts as u64);
    assert!(p.samples.has_timeline());
    // A thread's last sample starts one interval before its profile's endValue.
    let compressor = &profiles[1];
    let last = p
        .samples
        .samples()
        .iter()
        .filter(|s| {
            p.samples
                .task_of(s.task)
                .unwrap()
                .comm
                .contains("compressor")
        })
        .map(|s| s.time)
        .max()
        .unwrap();
    let end = compressor["endValue"].as_f64().unwrap();
    let interval = compressor["weights"][0].as_f64().unwrap();
    assert_eq!(last, ((end - interval) * 1e9).round() as u64);
}

/// py-spy `--format raw` of the same workload (another run: the same stacks, about the
/// same shares).
#[test]
fn pyspy_speedscope_agrees_with_pyspy_raw_of_the_same_workload() {
    let p = load("pyspy-speedscope.json");
    let ours: BTreeMap<String, u64> =
        folded(&p)
            .into_iter()
            .fold(BTreeMap::new(), |mut m, (s, w)| {
                *m.entry(short(&s)).or_insert(0) += w;
                m
            });
    let raw_text = fs::read_to_string(testdata("pyspy-speedscope-raw.txt")).unwrap();
    let mut raw: BTreeMap<String, u64> = BTreeMap::new();
    for line in raw_text.lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        *raw.entry(short(stack)).or_insert(0) += n.parse::<u64>().unwrap();
    }
    let share = |m: &BTreeMap<String, u64>, s: &str| {
        m.get(s).copied().unwrap_or(0) as f64 / m.values().sum::<u64>() as f64
    };
    let heaviest = |m: &BTreeMap<String, u64>| m.iter().max_by_key(|e| e.1).unwrap().0.clone();
    assert_eq!(heaviest(&ours), heaviest(&raw));
    for stack in raw.keys().chain(ours.keys()) {
        let (a, b) = (share(&ours, stack), share(&raw, stack));
        if a.max(b) > 0.05 {
            assert!(
                (a - b).abs() < 0.1,
                "{stack}: {a:.3} here, {b:.3} in py-spy raw"
            );
        }
    }
}

/// A node's frame as DevTools shows it: the function (`(anonymous)` without a name), the
/// script's file name and the 1-based line.
fn cpuprofile_name(n: &Value) -> String {
    let f = &n["callFrame"];
    let func = match f["functionName"].as_str().unwrap() {
        "" => "(anonymous)",
        s => s,
    };
    let url = f["url"].as_str().unwrap();
    let file = if url.starts_with("file://") {
        url.rsplit('/').next().unwrap()
    } else {
        url
    };
    match f["lineNumber"].as_i64().unwrap() {
        _ if file.is_empty() => func.to_owned(),
        l if l >= 0 => format!("{func} ({file}:{})", l + 1),
        _ => format!("{func} ({file})"),
    }
}

/// Node stacks and weights (ns) of a `.cpuprofile`, by walking its JSON.
fn cpuprofile_stacks(doc: &Value) -> BTreeMap<String, u64> {
    let nodes = doc["nodes"].as_array().unwrap();
    let by_id: BTreeMap<u64, &Value> = nodes
        .iter()
        .map(|n| (n["id"].as_u64().unwrap(), n))
        .collect();
    let mut parent = BTreeMap::new();
    for n in nodes {
        for c in n["children"].as_array().into_iter().flatten() {
            parent.insert(c.as_u64().unwrap(), n["id"].as_u64().unwrap());
        }
    }
    let name = cpuprofile_name;
    let mut out = BTreeMap::new();
    let samples = doc["samples"].as_array().unwrap();
    let deltas = doc["timeDeltas"].as_array().unwrap();
    for (s, d) in samples.iter().zip(deltas) {
        let mut path = Vec::new();
        let mut at = s.as_u64();
        while let Some(id) = at {
            let n = by_id[&id];
            if parent.contains_key(&id) || n["callFrame"]["functionName"] != "(root)" {
                path.push(name(n));
            }
            at = parent.get(&id).copied();
        }
        path.reverse();
        *out.entry(path.join(";")).or_insert(0) += d.as_u64().unwrap() * 1000;
    }
    out
}

#[test]
fn node_cpuprofile_stacks_and_weights_are_the_files() {
    let doc = json("node-work.cpuprofile");
    let p = load("node-work.cpuprofile");
    assert_eq!(p.stats.format, Some(Format::Cpuprofile));
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    let want = cpuprofile_stacks(&doc);
    assert_eq!(folded(&p), want);
    // The total is the sum of the deltas: the time from startTime to the last sample.
    let deltas: u64 = doc["timeDeltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .sum();
    assert_eq!(p.tree.total(), deltas * 1000);
    assert_eq!(p.tree.total(), 1_581_696_000);
    let entry = "(anonymous) (node:internal/main/run_main_module:1);executeUserEntryPoint (node:internal/modules/run_main:155);Module._load (node:internal/modules/cjs/loader:1003);Module.load (node:internal/modules/cjs/loader:1257);Module._extensions..js (node:internal/modules/cjs/loader:1604);Module._compile (node:internal/modules/cjs/loader:1483);(anonymous) (work.js:1)";
    assert_eq!(want[&format!("{entry};parse (work.js:14)")], 793_328_000);
    assert_eq!(
        want[&format!("{entry};sortWork (work.js:8);(anonymous) (work.js:11)")],
        42_592_000
    );
    assert_eq!(want["(garbage collector)"], 46_886_000);
    assert!(want.contains_key("(program)") && want.contains_key("(idle)"));
    assert!(want.keys().all(|s| !s.contains("(root)")));
    // One task; every sample timed, from startTime on.
    let tasks: Vec<&str> = p.samples.tasks().iter().map(|t| &*t.comm).collect();
    assert_eq!(tasks, ["main"]);
    assert_eq!(p.samples.len(), doc["samples"].as_array().unwrap().len());
    assert!(p.samples.has_timeline());
    let start = doc["startTime"].as_u64().unwrap();
    let first = doc["timeDeltas"][0].as_u64().unwrap();
    assert_eq!(p.samples.first_time(), (start + first) * 1000);
    assert_eq!(p.samples.duration(), (deltas - first) * 1000);
}

/// Chrome DevTools' call tree gives each node `hitCount × (endTime − startTime) / samples`
/// of self time; the time deltas give about the same shares.
#[test]
fn node_cpuprofile_self_times_agree_with_devtools() {
    let doc = json("node-work.cpuprofile");
    let p = load("node-work.cpuprofile");
    let nodes = doc["nodes"].as_array().unwrap();
    let hits: u64 = nodes.iter().map(|n| n["hitCount"].as_u64().unwrap()).sum();
    let mut devtools: BTreeMap<String, u64> = BTreeMap::new();
    for n in nodes {
        *devtools.entry(cpuprofile_name(n)).or_insert(0) += n["hitCount"].as_u64().unwrap();
    }
    let ours = flametui::profile::functions::function_totals(&p.tree);
    let total = p.tree.total() as f64;
    let mut checked = 0;
    for (name, h) in &devtools {
        let theirs = *h as f64 / hits as f64;
        let mine = ours
            .iter()
            .find(|t| p.tree.names().resolve(t.name) == name)
            .map_or(0.0, |t| t.self_weight as f64 / total);
        if theirs.max(mine) > 0.02 {
            checked += 1;
            assert!(
                (theirs - mine).abs() < 0.02,
                "{name}: {mine:.3} here, {theirs:.3} in DevTools"
            );
        }
    }
    assert!(checked >= 3, "{checked}");
}

// ---- hostile and hand-made inputs ----

fn error(bytes: &[u8], format: FormatChoice) -> String {
    match load_bytes(bytes, format) {
        Ok(p) => panic!("loaded: {:?}", folded(&p)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn truncated_files_are_errors_naming_the_file() {
    for name in ["pyspy-speedscope.json", "node-work.cpuprofile"] {
        let bytes = fs::read(testdata(name)).unwrap();
        for cut in [1, 10, bytes.len() / 3, bytes.len() / 2, bytes.len() - 2] {
            let e = error(&bytes[..cut], FormatChoice::Auto);
            assert!(
                e.starts_with("x.json: not a readable JSON profile: "),
                "{cut}: {e}"
            );
            assert!(e.contains("line 1") || e.contains("EOF"), "{cut}: {e}");
        }
        // gzip-compressed and cut: the same.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&bytes).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(
            folded(&load_bytes(&gz, FormatChoice::Auto).unwrap()),
            folded(&load(name))
        );
        let e = error(&gz[..gz.len() / 2], FormatChoice::Auto);
        assert!(e.starts_with("x.json: "), "{e}");
    }
}

#[test]
fn wrong_types_are_errors_with_their_place() {
    let cases: [(&str, &str); 5] = [
        (
            r#"{"nodes": "many"}"#,
            "invalid type: string \"many\", expected a sequence at line 1",
        ),
        (r#"{"nodes": [{"id": -1}]}"#, "invalid value: integer `-1`"),
        (
            r#"{"profiles": [{"type": "sampled", "samples": [["a"]]}]}"#,
            "invalid type: string",
        ),
        (
            r#"{"profiles": 1, "shared": {}}"#,
            "invalid type: integer `1`",
        ),
        (
            r#"{"profiles": [{"type": "evented", "events": [{"type": "X", "at": 0, "frame": 0}]}]}"#,
            "unknown variant `X`, expected `O` or `C`",
        ),
    ];
    for (input, want) in cases {
        let e = error(input.as_bytes(), FormatChoice::Auto);
        assert!(e.contains(want), "{input}: {e}");
    }
    // A document of neither format, and a format forced on the other.
    let e = error(br#"{"traceEvents": []}"#, FormatChoice::Auto);
    assert!(e.contains("neither a speedscope file"), "{e}");
    let speedscope = fs::read(testdata("pyspy-speedscope.json")).unwrap();
    let e = error(&speedscope, FormatChoice::Cpuprofile);
    assert!(e.contains("a .cpuprofile needs `nodes`"), "{e}");
    let e = error(b"main;foo 1\n", FormatChoice::Speedscope);
    assert!(
        e.contains("not a readable speedscope profile: expected value at line 1 column 1"),
        "{e}"
    );
    // Text that opens with a brace but no quote is still folded.
    let p = load_bytes(b"{{closure}};main 3\n", FormatChoice::Auto).unwrap();
    assert_eq!(p.stats.format, Some(Format::Folded));
}

#[test]
fn a_million_levels_of_nesting_are_an_error_or_skipped_never_a_stack_overflow() {
    let deep =
        |open: &str, close: &str| format!("{}1{}", open.repeat(1_000_000), close.repeat(1_000_000));
    // In the fields the readers use: the type is wrong at the first level too deep (and
    // serde_json's recursion limit of 128 would stop any that had room).
    for field in ["profiles", "nodes", "samples", "timeDeltas"] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let doc = format!("{{\"{field}\": {}}}", deep(open, close));
            let e = error(doc.as_bytes(), FormatChoice::Auto);
            let stopped = e.contains("recursion limit exceeded") || e.contains("invalid type");
            assert!(stopped && e.contains("at line 1 column"), "{field}: {e}");
        }
    }
    // In a field they skip: serde_json skips it without recursing; the profile loads.
    let doc = format!(
        r#"{{"nodes": [{{"id": 1, "callFrame": {{"functionName": "a"}}}}], "samples": [1], "x": {}}}"#,
        deep("[", "]")
    );
    assert_eq!(
        load_bytes(doc.as_bytes(), FormatChoice::Auto)
            .unwrap()
            .tree
            .total(),
        1
    );
    // Cut short: an error.
    let e = error(
        format!("{{\"x\": {}", "[".repeat(1_000_000)).as_bytes(),
        FormatChoice::Auto,
    );
    assert!(e.contains("EOF while parsing"), "{e}");
}

fn cpuprofile(nodes: &str, samples: &str, deltas: &str) -> Vec<u8> {
    format!(r#"{{"nodes": [{nodes}], "startTime": 100, "endTime": 1000, "samples": [{samples}], "timeDeltas": [{deltas}]}}"#)
        .into_bytes()
}

fn node(id: u64, name: &str, children: &str) -> String {
    format!(
        r#"{{"id": {id}, "callFrame": {{"functionName": "{name}", "url": "", "lineNumber": -1}}, "children": [{children}]}}"#
    )
}

#[test]
fn cpuprofile_links_are_checked() {
    let root = node(1, "(root)", "2");
    // A cycle 2 → 3 → 2 (node 1 is the only root).
    let doc = cpuprofile(
        &[root.clone(), node(2, "a", "3"), node(3, "b", "2")].join(","),
        "3",
        "1",
    );
    let e = error(&doc, FormatChoice::Auto);
    assert!(e.contains("two parents") || e.contains("cycle"), "{e}");
    let doc = cpuprofile(&[node(2, "a", "3"), node(3, "b", "2")].join(","), "3", "1");
    assert!(error(&doc, FormatChoice::Auto).contains("parent links form a cycle"));
    let doc = cpuprofile(&node(2, "a", "2"), "2", "1");
    assert!(error(&doc, FormatChoice::Auto).contains("cycle (node 2 is its own ancestor)"));
    // A child that is no node, a repeated id, two parents.
    let doc = cpuprofile(&[root.clone(), node(2, "a", "9")].join(","), "2", "1");
    assert!(error(&doc, FormatChoice::Auto).contains("node 2 lists child 9, which is not a node"));
    let doc = cpuprofile(
        &[root.clone(), node(2, "a", ""), node(2, "b", "")].join(","),
        "2",
        "1",
    );
    assert!(error(&doc, FormatChoice::Auto).contains("node id 2 appears twice"));
    let doc = cpuprofile(
        &[node(1, "(root)", "3"), node(2, "a", "3"), node(3, "b", "")].join(","),
        "3",
        "1",
    );
    assert!(error(&doc, FormatChoice::Auto).contains("node 3 has two parents, 1 and 2"));
    // Lengths that differ.
    let doc = cpuprofile(&[root.clone(), node(2, "a", "")].join(","), "2, 2", "1");
    assert!(error(&doc, FormatChoice::Auto).contains("2 samples but 1 timeDeltas"));
    // A sample of a node that does not exist is skipped; the rest loads.
    let doc = cpuprofile(&[root, node(2, "a", "")].join(","), "2, 7, 2", "10, 20, 30");
    let p = load_bytes(&doc, FormatChoice::Auto).unwrap();
    assert_eq!(folded(&p), BTreeMap::from([("a".to_owned(), 40_000)]));
    assert_eq!(p.stats.skipped.get("sample skipped: not a node"), Some(&1));
    assert_eq!(p.stats.bad_lines[0].text, "sample 1 names node 7");
}

#[test]
fn cpuprofile_parent_links_deltas_and_hit_counts() {
    // The older form: `parent` instead of `children`, a negative delta, no root node.
    let doc = br#"{"nodes": [
        {"id": 5, "callFrame": {"functionName": "", "url": "https://x.test/app/main.js", "lineNumber": 9}},
        {"id": 6, "callFrame": {"functionName": "f", "url": "/srv/lib.js", "lineNumber": 0}, "parent": 5},
        {"id": 7, "callFrame": {"functionName": "(idle)"}}],
        "startTime": 1000, "samples": [6, 7, 6, 5], "timeDeltas": [5, 7, -2, 4]}"#;
    let p = load_bytes(doc, FormatChoice::Auto).unwrap();
    assert_eq!(
        folded(&p),
        BTreeMap::from([
            ("(anonymous) (main.js:10)".to_owned(), 4_000),
            ("(anonymous) (main.js:10);f (lib.js:1)".to_owned(), 5_000),
            ("(idle)".to_owned(), 7_000),
        ])
    );
    // Times follow the deltas, the negative one included (sorted once loaded).
    let times: Vec<u64> = p.samples.samples().iter().map(|s| s.time).collect();
    assert_eq!(times, [1_005_000, 1_010_000, 1_012_000, 1_014_000]);
    assert_eq!(
        p.stats.bad_lines[0].reason,
        "negative or unreadable time delta, weighs nothing"
    );
    let names = p.tree.names();
    let lib = names
        .library(names.lookup("f (lib.js:1)").unwrap())
        .unwrap();
    assert_eq!(names.library_name(lib), "lib.js");
    // No samples: hitCounts count, without a timeline.
    let doc = br#"{"nodes": [{"id": 1, "callFrame": {"functionName": "(root)"}, "hitCount": 0, "children": [2]},
        {"id": 2, "callFrame": {"functionName": "main"}, "hitCount": 3}]}"#;
    let p = load_bytes(doc, FormatChoice::Auto).unwrap();
    assert_eq!(folded(&p), BTreeMap::from([("main".to_owned(), 3)]));
    assert_eq!(p.stats.unit, Unit::Samples);
    assert!(p.samples.is_empty());
}

#[test]
fn deep_and_huge_cpuprofiles_stay_linear_and_saturate() {
    // A chain of 200,000 nodes sampled 200,000 times at its deepest node.
    let n = 200_000u64;
    let nodes: Vec<String> = (1..=n)
        .map(|i| {
            let child = if i < n {
                (i + 1).to_string()
            } else {
                String::new()
            };
            node(i, if i == 1 { "(root)" } else { "f" }, &child)
        })
        .collect();
    let samples = vec![n.to_string(); 200_000].join(",");
    let deltas = vec!["1"; 200_000].join(",");
    let p = load_bytes(
        &cpuprofile(&nodes.join(","), &samples, &deltas),
        FormatChoice::Auto,
    )
    .unwrap();
    assert_eq!(p.tree.max_depth(), 199_999);
    assert_eq!(p.tree.total(), 200_000_000);
    // Deltas near u64::MAX nanoseconds: the tree saturates instead of wrapping.
    let doc = cpuprofile(
        &[node(1, "(root)", "2"), node(2, "a", "")].join(","),
        "2, 2, 2",
        "1e16, 1e16, 1e300",
    );
    let p = load_bytes(&doc, FormatChoice::Auto).unwrap();
    assert_eq!(p.tree.total(), u64::MAX);
    assert!(p.tree.saturated());
    assert_eq!(
        p.stats.bad_lines[0].reason,
        "negative or unreadable time delta, weighs nothing"
    );
    assert_eq!(
        p.stats.bad_lines[0].text,
        "sample 2 has time delta 1e300 µs"
    );
}

fn speedscope(frames: &str, profiles: &str) -> Vec<u8> {
    format!(
        r#"{{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {{"frames": [{frames}]}}, "profiles": [{profiles}]}}"#
    )
    .into_bytes()
}

const FRAMES: &str = r#"{"name": "main", "file": "a.py", "line": 1}, {"name": "f"}, {"name": "g", "file": "lib/b.py"}"#;

#[test]
fn evented_profiles_weigh_the_time_between_open_and_close() {
    let events = r#"{"type": "evented", "name": "T1", "unit": "milliseconds", "startValue": 0, "endValue": 20, "events": [
        {"type": "O", "at": 0, "frame": 0}, {"type": "O", "at": 2, "frame": 1},
        {"type": "O", "at": 3, "frame": 2}, {"type": "C", "at": 5, "frame": 2},
        {"type": "C", "at": 9, "frame": 1}, {"type": "O", "at": 9, "frame": 2},
        {"type": "C", "at": 10, "frame": 2}, {"type": "C", "at": 12, "frame": 0}]}"#;
    let p = load_bytes(&speedscope(FRAMES, events), FormatChoice::Auto).unwrap();
    let ms = 1_000_000;
    assert_eq!(
        folded(&p),
        BTreeMap::from([
            ("main (a.py:1)".to_owned(), 4 * ms),
            ("main (a.py:1);f".to_owned(), 5 * ms),
            ("main (a.py:1);f;g (lib/b.py)".to_owned(), 2 * ms),
            ("main (a.py:1);g (lib/b.py)".to_owned(), ms),
        ])
    );
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    let times: Vec<u64> = p.samples.samples().iter().map(|s| s.time / ms).collect();
    assert_eq!(times, [0, 2, 3, 5, 9, 10]);
    assert_eq!(&*p.samples.tasks()[0].comm, "T1");
    assert!(p.stats.bad_lines.is_empty());
    // Closing an outer frame closes the inner ones; a close of a frame not open is
    // skipped; frames left open close at endValue; out-of-order events are simultaneous.
    let events = r#"{"type": "evented", "name": "T2", "unit": "seconds", "endValue": 10, "events": [
        {"type": "O", "at": 1, "frame": 0}, {"type": "O", "at": 2, "frame": 1},
        {"type": "C", "at": 3, "frame": 0}, {"type": "C", "at": 3, "frame": 2},
        {"type": "O", "at": 4, "frame": 2}, {"type": "O", "at": 3.5, "frame": 1}]}"#;
    let p = load_bytes(&speedscope(FRAMES, events), FormatChoice::Auto).unwrap();
    let s = 1_000_000_000;
    assert_eq!(
        folded(&p),
        BTreeMap::from([
            ("main (a.py:1)".to_owned(), s),
            ("main (a.py:1);f".to_owned(), s),
            ("g (lib/b.py);f".to_owned(), 6 * s),
        ])
    );
    let reasons: BTreeSet<&str> = p.stats.bad_lines.iter().map(|b| b.reason).collect();
    assert_eq!(
        reasons,
        BTreeSet::from([
            "frames closed with their caller",
            "event skipped: closes a frame that is not open",
            "event out of order, taken as simultaneous",
            "frames left open at the end",
        ])
    );
}

#[test]
fn a_million_frames_deep_evented_profile_loads_in_one_pass() {
    let n = 1_000_000;
    let mut events = String::new();
    for i in 0..n {
        events.push_str(&format!(r#"{{"type":"O","at":{i},"frame":1}},"#));
    }
    for i in 0..n {
        events.push_str(&format!(r#"{{"type":"C","at":{},"frame":1}},"#, n + i));
    }
    events.pop();
    let profile =
        format!(r#"{{"type": "evented", "name": "deep", "unit": "none", "events": [{events}]}}"#);
    let p = load_bytes(&speedscope(FRAMES, &profile), FormatChoice::Auto).unwrap();
    assert_eq!(p.tree.max_depth(), n as u32);
    assert_eq!(p.tree.total(), 2 * n as u64 - 1);
    assert_eq!(p.stats.unit, Unit::Samples);
    // Source lines would walk every state's stack (a million frames, a million times):
    // past the budget, the profile is left without lines, and says so.
    assert!(p.samples.lines().is_empty());
    assert!(
        p.stats
            .bad_lines
            .iter()
            .any(|b| b.reason == "source lines left out: stacks too deep")
    );
}

#[test]
fn speedscope_units_are_never_added_across_kinds() {
    let sampled = |name: &str, unit: &str| {
        format!(
            r#"{{"type": "sampled", "name": "{name}", "unit": "{unit}", "samples": [[0, 1], [0]], "weights": [2, 3]}}"#
        )
    };
    // Times in different units are all nanoseconds.
    let doc = speedscope(
        FRAMES,
        &[sampled("a", "milliseconds"), sampled("b", "microseconds")].join(","),
    );
    let p = load_bytes(&doc, FormatChoice::Auto).unwrap();
    assert_eq!(p.tree.total(), 5_000_000 + 5_000);
    // Bytes after a time: skipped and named; the first kind kept.
    let doc = speedscope(
        FRAMES,
        &[
            sampled("cpu", "seconds"),
            sampled("heap", "bytes"),
            sampled("n", "none"),
            sampled("odd", "furlongs"),
        ]
        .join(","),
    );
    let p = load_bytes(&doc, FormatChoice::Auto).unwrap();
    assert_eq!(p.tree.total(), 5_000_000_000);
    assert_eq!(
        p.stats
            .skipped
            .get("profile skipped: in another unit than the first"),
        Some(&4)
    );
    assert_eq!(
        p.stats.skipped.get("profile skipped: unknown unit"),
        Some(&2)
    );
    let texts: Vec<&str> = p.stats.bad_lines.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts[0],
        r#"profile 2 "heap" is in bytes, profile 1 "cpu" in another unit"#
    );
    assert_eq!(p.stats.bad_lines[0].line, 2);
    // Bytes alone: a bytes metric, no timeline.
    let p = load_bytes(
        &speedscope(FRAMES, &sampled("heap", "bytes")),
        FormatChoice::Auto,
    )
    .unwrap();
    assert_eq!(p.stats.unit.to_string(), "weight (bytes)");
    assert!(!p.samples.has_timeline());
}

#[test]
fn speedscope_bad_samples_are_skipped_and_the_rest_loads() {
    let profile = r#"{"type": "sampled", "name": "t", "unit": "none", "samples": [[0], [0, 9], [1], [2], [0]], "weights": [1, 1, -4, 1.9e19, 1e19]}"#;
    let p = load_bytes(&speedscope(FRAMES, profile), FormatChoice::Auto).unwrap();
    assert_eq!(folded(&p)["main (a.py:1)"], 10_000_000_000_000_000_001);
    assert_eq!(
        p.stats
            .skipped
            .get("sample skipped: frame index out of range"),
        Some(&1)
    );
    assert_eq!(
        p.stats
            .skipped
            .get("sample skipped: negative or unreadable weight"),
        Some(&2)
    );
    assert_eq!(p.stats.samples, 2);
    // Samples and weights of different lengths: the profile is skipped, others load.
    let bad = r#"{"type": "sampled", "name": "bad", "unit": "none", "samples": [[0], [0]], "weights": [1]}"#;
    let good =
        r#"{"type": "sampled", "name": "good", "unit": "none", "samples": [[1]], "weights": [4]}"#;
    let p = load_bytes(
        &speedscope(FRAMES, &[bad, good].join(",")),
        FormatChoice::Auto,
    )
    .unwrap();
    assert_eq!(folded(&p), BTreeMap::from([("f".to_owned(), 4)]));
    assert_eq!(
        p.stats.bad_lines[0].text,
        "profile 1: 2 samples but 1 weights"
    );
    // Nothing usable at all: an error that says what was skipped.
    let e = error(&speedscope(FRAMES, bad), FormatChoice::Auto);
    assert!(
        e.contains("no usable samples in speedscope input (skipped: 2 × profile skipped"),
        "{e}"
    );
    // Counts near u64::MAX add up saturated, never wrapped.
    let huge = r#"{"type": "sampled", "name": "t", "unit": "none", "samples": [[0], [0]], "weights": [1.5e19, 1.5e19]}"#;
    let p = load_bytes(&speedscope(FRAMES, huge), FormatChoice::Auto).unwrap();
    assert_eq!(p.tree.total(), u64::MAX);
}

/// Every cut of the fuzz seeds loads or fails without a panic, accounting for every record
/// it read (what the fuzz targets check, on every prefix here).
#[test]
fn every_prefix_of_the_fuzz_seeds_accounts_for_its_records() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    for (name, format) in [
        ("speedscope-evented.json", FormatChoice::Speedscope),
        ("cpuprofile-small.json", FormatChoice::Cpuprofile),
    ] {
        let bytes = fs::read(dir.join(name)).unwrap();
        let whole = load_bytes(&bytes, FormatChoice::Auto).unwrap();
        assert!(whole.stats.samples > 0, "{name}");
        for cut in 0..=bytes.len() {
            for f in [format, FormatChoice::Auto] {
                if let Ok(p) = load_bytes(&bytes[..cut], f) {
                    assert_eq!(p.stats.accounted_lines(), p.stats.lines, "{name}: {cut}");
                    let _ = flametui::report::report(&p, 5, 1.0, flametui::report::Figures::Exact);
                }
            }
        }
        assert_eq!(whole.stats.accounted_lines(), whole.stats.lines, "{name}");
    }
}

// ---- the binary ----

fn run(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(data) = stdin {
        input.write_all(data).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_binary_names_and_reads_the_json_formats() {
    let help = text(&run(&["--help"], None).stdout);
    assert!(
        help.contains("speedscope") && help.contains("cpuprofile"),
        "{help}"
    );
    let about = help.split("\n\n").next().unwrap().replace('\n', " ");
    assert!(
        about.contains("speedscope") && about.contains(".cpuprofile"),
        "{about}"
    );
    // --top on the node recording: DevTools' heaviest self time first.
    let cpu = testdata("node-work.cpuprofile");
    let out = run(&["--top", "3", "--exact", &cpu], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let top = text(&out.stdout);
    assert!(top.contains("total 1,581,696,000 ns"), "{top}");
    assert!(
        top.lines().nth(2).unwrap().ends_with("parse (work.js:14)"),
        "{top}"
    );
    // From a pipe, with --format, into folded text: the same as from the file.
    let bytes = fs::read(&cpu).unwrap();
    let piped = run(
        &["--format", "cpuprofile", "--export", "folded", "-"],
        Some(&bytes),
    );
    let file = run(&["--export", "folded", &cpu], None);
    assert!(piped.status.success() && !piped.stdout.is_empty());
    assert_eq!(piped.stdout, file.stdout);
    // The heat map works: every sample is in one cell.
    let heat = text(&run(&["--heatmap", "csv", &cpu], None).stdout);
    let cells: u64 = heat
        .lines()
        .filter_map(|l| l.rsplit(',').next()?.parse::<u64>().ok())
        .sum();
    assert_eq!(cells, 1402);
    // The py-spy threads are tasks: --tids is refused (no thread ids), --comms keeps one.
    let spy = testdata("pyspy-speedscope.json");
    let one = run(
        &[
            "--comms",
            "Thread 31383 \"compressor\"",
            "--export",
            "folded",
            &spy,
        ],
        None,
    );
    assert!(one.status.success(), "{}", text(&one.stderr));
    let one = text(&one.stdout);
    assert!(
        one.lines().all(|l| l.starts_with("Thread._bootstrap")),
        "{one}"
    );
}

#[test]
fn the_binary_warns_of_skipped_profiles_and_fails_on_bad_links() {
    let doc = speedscope(
        FRAMES,
        r#"{"type": "sampled", "name": "cpu", "unit": "seconds", "samples": [[0]], "weights": [1]},
           {"type": "sampled", "name": "heap", "unit": "bytes", "samples": [[1]], "weights": [4096]}"#,
    );
    let out = run(&["--export", "folded", "-"], Some(&doc));
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "main (a.py:1) 1000000000\n");
    let err = text(&out.stderr);
    assert!(
        err.contains("<stdin>:2: profile skipped: in another unit than the first: profile 2 \"heap\" is in bytes"),
        "{err}"
    );
    let doc = cpuprofile(&node(2, "a", "2"), "2", "1");
    let out = run(&["--export", "folded", "-"], Some(&doc));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "flametui: <stdin>: the nodes' parent links form a cycle (node 2 is its own ancestor)\n"
    );
}
