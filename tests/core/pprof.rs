//! Conformance of the pprof reader with `go tool pprof` on real Go profiles
//! (testdata/pprof-*.pb.gz, recorded by testdata/pprof-demo.go): the stacks of
//! `-traces` for the default metric and another one, and the flat and cumulative
//! totals of `-top`, saved beside them (Go is not needed to run these tests).

use std::collections::BTreeMap;
use std::fs;

use flametui::export;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::{Format, Profile, Unit, functions};

use crate::{testdata, testdata_gunzipped as gunzipped};

fn load(name: &str, metric: Option<&str>) -> Profile {
    let opts = LoadOptions {
        metric: metric.map(str::to_owned),
        ..LoadOptions::default()
    };
    match input::load_path(&testdata(name), &opts) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{name}: {:?}", other.map(|_| ())),
    }
}

/// The value of a `go tool pprof` column: `10000000ns`, `4064428B`, `3` (no scaled units:
/// the files were printed with `-unit=ns` / `-unit=B`).
fn value(token: &str) -> u64 {
    let digits = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    digits.parse().unwrap_or_else(|_| panic!("value {token:?}"))
}

fn frame(name: &str) -> String {
    name.trim().trim_end_matches(" (inline)").to_owned()
}

/// Stacks of `go tool pprof -traces`, root first, summed by stack (samples of equal
/// stacks at different addresses are printed apart), zero values left out.
fn traces(name: &str) -> BTreeMap<String, u64> {
    let text = fs::read_to_string(testdata(name)).unwrap();
    let mut out = BTreeMap::new();
    for block in text.split("-----------+").skip(1) {
        let mut weight = None;
        let mut frames = Vec::new();
        for line in block.lines().skip(1) {
            let t = line.trim_start();
            let first = t.split_whitespace().next().unwrap_or("");
            if t.is_empty() || first.ends_with(':') {
                continue; // a label line, `bytes:  20kB`
            }
            if weight.is_none() {
                let (v, rest) = t.split_once(char::is_whitespace).unwrap();
                weight = Some(value(v));
                frames.push(frame(rest));
            } else {
                frames.push(frame(t));
            }
        }
        let Some(w) = weight.filter(|&w| w > 0) else {
            continue;
        };
        frames.reverse();
        *out.entry(frames.join(";")).or_insert(0) += w;
    }
    out
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

/// `name → (flat, cum)` of `go tool pprof -top`.
fn top(name: &str) -> BTreeMap<String, (u64, u64)> {
    let text = fs::read_to_string(testdata(name)).unwrap();
    let rows = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"));
    rows.skip(1)
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            (frame(&t[5..].join(" ")), (value(t[0]), value(t[3])))
        })
        .collect()
}

fn totals(p: &Profile) -> BTreeMap<String, (u64, u64)> {
    functions::function_totals(&p.tree)
        .into_iter()
        .filter(|f| f.total > 0)
        .map(|f| {
            let name = p.tree.names().resolve(f.name).to_owned();
            (name, (f.self_weight, f.total))
        })
        .collect()
}

#[test]
fn cpu_profile_matches_go_tool_pprof() {
    let p = load("pprof-cpu.pb.gz", None);
    assert_eq!(p.stats.format, Some(Format::Pprof));
    assert_eq!(
        p.stats.unit,
        Unit::Metric {
            name: "cpu".into(),
            unit: "nanoseconds".into()
        }
    );
    assert_eq!(folded(&p), traces("pprof-cpu.traces.txt"));
    assert_eq!(totals(&p), top("pprof-cpu.top.txt"));
    let header = flametui::report::header(&p, flametui::report::Figures::Exact);
    assert!(
        header.contains("metric cpu (nanoseconds) of samples, cpu; duration")
            && header.contains("period 10,000,000 nanoseconds"),
        "{header}"
    );
    let samples = load("pprof-cpu.pb.gz", Some("samples"));
    assert_eq!(folded(&samples), traces("pprof-cpu-samples.traces.txt"));
}

#[test]
fn heap_profile_matches_go_tool_pprof() {
    let p = load("pprof-heap.pb.gz", None);
    assert_eq!(p.stats.unit.to_string(), "inuse_space (bytes)");
    assert_eq!(folded(&p), traces("pprof-heap.traces.txt"));
    assert_eq!(totals(&p), top("pprof-heap.top.txt"));
    let objects = load("pprof-heap.pb.gz", Some("alloc_objects"));
    assert_eq!(
        folded(&objects),
        traces("pprof-heap-alloc_objects.traces.txt")
    );
    // The Go binary's mapping names the library of its frames.
    let names = p.tree.names();
    let lib = names.library(names.lookup("main.main").unwrap()).unwrap();
    assert_eq!(names.library_name(lib), "pprof-demo");
}

fn run(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin); // a usage error may exit before reading
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn uncompressed_pprof_on_stdin_is_detected_and_metrics_are_picked_by_name() {
    let raw = gunzipped("pprof-heap.pb.gz");
    let out = run(&["--top", "2", "--metric", "alloc_space", "-"], &raw);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("alloc_space (bytes)"), "{stdout}");
    assert!(stdout.contains("main.allocate"), "{stdout}");
    let out = run(&["--top", "2", "--metric", "cpu", "-"], &raw);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("<stdin>: no metric 'cpu'")
            && stderr.contains("alloc_objects, alloc_space, inuse_objects, inuse_space"),
        "{stderr}"
    );
}

#[test]
fn a_truncated_profile_is_an_error_naming_the_file() {
    let raw = gunzipped("pprof-cpu.pb.gz");
    let out = run(&["--top", "2", "-"], &raw[..raw.len() / 2]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("flametui: <stdin>: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn help_and_format_list_pprof() {
    let out = run(&["--help"], b"");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("pprof") && help.contains("--metric"),
        "{help}"
    );
    let out = run(&["--format", "pprof", "--top", "1", "-"], b"main;a 1\n");
    assert_eq!(out.status.code(), Some(1));
}

/// The tasks flametui names for the labels of a `-traces` block: `k=v` sorted by key,
/// space-separated, or `(no labels)`.
fn task_name(labels: &mut [(String, String)]) -> String {
    if labels.is_empty() {
        return "(no labels)".to_owned();
    }
    labels.sort();
    let parts: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(" ")
}

/// Stacks of `go tool pprof -traces` per label set (a block's `key:  value` lines).
fn traces_by_labels(text: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for block in text.split("-----------+").skip(1) {
        let mut labels = Vec::new();
        let mut weight = None;
        let mut frames = Vec::new();
        for line in block.lines().skip(1) {
            let t = line.trim_start();
            let first = t.split_whitespace().next().unwrap_or("");
            if t.is_empty() {
                continue;
            }
            if let Some(key) = first.strip_suffix(':') {
                let value = t[first.len()..].trim();
                labels.push((key.to_owned(), value.to_owned()));
                continue;
            }
            if weight.is_none() {
                let (v, rest) = t.split_once(char::is_whitespace).unwrap();
                weight = Some(value(v));
                frames.push(frame(rest));
            } else {
                frames.push(frame(t));
            }
        }
        let Some(w) = weight.filter(|&w| w > 0) else {
            continue;
        };
        frames.reverse();
        let task = task_name(&mut labels);
        *out.entry(task)
            .or_default()
            .entry(frames.join(";"))
            .or_insert(0) += w;
    }
    out
}

/// `key=value → total` of `go tool pprof -tags -unit=ns` (`740000000.0ns (50.34%): 1`).
fn tags(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut key = "";
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some((k, _)) = line.split_once(": Total ") {
            key = k;
            continue;
        }
        let (amount, value) = line.split_once("): ").unwrap();
        // `740000000.0ns`: whole nanoseconds printed with one decimal.
        let ns = amount.split_whitespace().next().unwrap();
        let ns: u64 = ns.strip_suffix(".0ns").unwrap().parse().unwrap();
        out.insert(format!("{key}={value}"), ns);
    }
    out
}

fn gunzip(name: &str) -> String {
    String::from_utf8(gunzipped(name)).unwrap()
}

#[test]
fn labels_are_tasks_with_the_weights_of_go_tool_pprof_tags_and_traces() {
    use flametui::profile::{Slice, slice_tree};
    let p = load("pprof-labels.pb.gz", None);
    let table = &p.samples;
    let names: Vec<&str> = table.tasks().iter().map(|t| &*t.comm).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["(no labels)", "phase=sort worker=2", "worker=1", "worker=2"]
    );
    assert!(!table.has_timeline(), "pprof samples have no times");
    // Every sample is in the table, with its weight.
    let weights: u64 = table.samples().iter().map(|s| s.weight).sum();
    assert_eq!(weights, p.tree.total());
    // Per task: the stacks of -traces with those labels.
    let traces = traces_by_labels(&gunzip("pprof-labels.traces.txt.gz"));
    assert_eq!(traces.len(), 4);
    let mut per_label: BTreeMap<String, u64> = BTreeMap::new();
    for (i, name) in names.iter().enumerate() {
        let id = flametui::profile::TaskId(u32::try_from(i).unwrap());
        let slice = Slice {
            range: None,
            tasks: Some([id].into_iter().collect()),
        };
        let mut sliced = p.clone();
        sliced.tree = slice_tree(&p.tree, table, &slice);
        assert_eq!(&folded(&sliced), &traces[*name], "{name}");
        for pair in name.split(' ').filter(|kv| kv.contains('=')) {
            *per_label.entry(pair.to_owned()).or_insert(0) += sliced.tree.total();
        }
    }
    // Per key=value: the totals of -tags.
    let tags = tags(&fs::read_to_string(testdata("pprof-labels.tags.txt")).unwrap());
    assert_eq!(per_label, tags);
    // Profiles without labels keep no sample table (no task list to show).
    assert!(load("pprof-cpu.pb.gz", None).samples.is_empty());
    assert!(load("pprof-heap.pb.gz", None).samples.is_empty());
}

#[test]
fn comms_select_label_sets_as_tagfocus_does_and_time_flags_are_refused() {
    use flametui::profile::slice::TaskFilter;
    use flametui::timeline::{SliceArgs, apply};
    let opts = LoadOptions::default();
    let rec = input::load_path(&testdata("pprof-labels.pb.gz"), &opts).unwrap();
    let args = SliceArgs {
        tasks: TaskFilter {
            comms: Some(vec!["worker=2".into(), "phase=sort worker=2".into()]),
            ..TaskFilter::default()
        },
        ..SliceArgs::default()
    };
    let worker2 = apply(rec.clone(), &args).unwrap();
    // `go tool pprof -top -tagfocus='worker=^2$'`: the same flat and cumulative totals.
    assert_eq!(totals(worker2.main()), top("pprof-labels-worker2.top.txt"));
    assert!(
        worker2
            .main()
            .source
            .ends_with("[comms worker=2,phase=sort worker=2]")
    );
    // The command line: the same selection, and time flags refused (no sample times).
    let out = run(
        &["--top", "3", "--comms", "worker=2,phase=sort worker=2", "-"],
        &fs::read(testdata("pprof-labels.pb.gz")).unwrap(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("total 730,000,000 cpu (nanoseconds)"),
        "{text}"
    );
    for flag in [["--heatmap", "csv"], ["--time", "0,1"]] {
        let out = run(
            &[flag[0], flag[1], "-"],
            &fs::read(testdata("pprof-labels.pb.gz")).unwrap(),
        );
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("pprof input has no time per sample"), "{err}");
    }
    // The viewer's heat map says why it has none.
    let why = flametui::app::heat::unavailable(rec.main()).unwrap();
    assert!(why.contains("pprof samples carry no times"), "{why}");
    // A profile without labels: the task flags say where tasks come from.
    let plain = input::load_path(&testdata("pprof-cpu.pb.gz"), &opts).unwrap();
    let err = apply(plain, &args).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("carry no labels"), "{err}");
}
