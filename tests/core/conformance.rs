//! Conformance against the peers' own outputs in ../shared/corpus: every perf script case
//! of the oracle (inferno-collapse-perf 0.12.8, each option set), the stap cases
//! (stackcollapse-stap.pl split on the off-CPU marker), folded inputs, and diff-folded.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded, PerfOptions};

use crate::corpus;

fn read_text(path: &Path) -> String {
    let bytes = fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .unwrap();
        s
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

fn folded_of(path: &Path, opts: &LoadOptions) -> Vec<String> {
    match input::load_path(path.to_str().unwrap(), opts) {
        Ok(Loaded::Single(p)) => {
            // Nothing lost: every line is in a sample, dropped on purpose, a comment,
            // blank, or skipped with a reason.
            let s = &p.stats;
            assert_eq!(
                s.accounted_lines(),
                s.lines,
                "{}: {:?}",
                path.display(),
                s.line_counts
            );
            export::folded_lines(&p.tree)
        }
        Ok(Loaded::Diff { .. }) => panic!("{}: unexpected differential", path.display()),
        // No usable sample: the peers write an empty file.
        Err(flametui::Error::NoSamples { .. } | flametui::Error::Empty { .. }) => Vec::new(),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn perf_options(opt: &str) -> PerfOptions {
    let mut o = PerfOptions::default();
    match opt {
        "default" => {}
        "pid" => o.include_pid = true,
        "tid" => {
            o.include_pid = true;
            o.include_tid = true;
        }
        "kernel" => o.annotate_kernel = true,
        "jit" => o.annotate_jit = true,
        "all" => {
            o.annotate_kernel = true;
            o.annotate_jit = true;
        }
        "addrs" => o.include_addrs = true,
        other => panic!("unknown option {other}"),
    }
    o
}

fn find_perf_input(corpus: &Path, name: &str) -> Option<PathBuf> {
    let candidates = [
        format!("perf/flamegraph/{name}.txt"),
        format!("perf/flamegraph/{name}.txt.gz"),
        format!("perf/inferno/{name}.txt"),
        format!("perf/{name}.txt"),
        format!("perf/{name}.txt.gz"),
    ];
    candidates
        .iter()
        .map(|c| corpus.join(c))
        .find(|p| p.is_file())
}

/// Reports the first differences between two sorted line sets.
fn diff_report(expected: &[String], got: &[String]) -> String {
    let e: std::collections::BTreeSet<_> = expected.iter().collect();
    let g: std::collections::BTreeSet<_> = got.iter().collect();
    let missing: Vec<_> = e.difference(&g).take(3).collect();
    let extra: Vec<_> = g.difference(&e).take(3).collect();
    format!(
        "{} expected, {} got; missing {missing:?}; unexpected {extra:?}",
        expected.len(),
        got.len()
    )
}

/// flametui's folded lines with its two deviations from inferno undone: frames whose
/// name starts with `(` (`(anonymous namespace)::f`, which inferno drops) removed, and
/// stacks left with the root frame alone (samples with no usable stack line, which
/// inferno drops) left out; equal stacks summed again.
fn as_inferno(lines: &[String]) -> Vec<String> {
    let mut sums: BTreeMap<String, u64> = BTreeMap::new();
    for line in lines {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        let mut frames = stack.split(';');
        let root = frames.next().unwrap();
        let rest: Vec<&str> = frames.filter(|f| !f.starts_with('(')).collect();
        if rest.is_empty() {
            continue;
        }
        let key = format!("{root};{}", rest.join(";"));
        *sums.entry(key).or_insert(0) += weight.parse::<u64>().unwrap();
    }
    sums.into_iter().map(|(s, w)| format!("{s} {w}")).collect()
}

#[test]
fn perf_script_matches_inferno_oracle_for_every_case() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("perf/results-oracle");
    let mut cases = 0;
    let mut failures = Vec::new();
    let mut deviating = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for oracle in entries {
        let file = oracle.file_name().unwrap().to_str().unwrap().to_owned();
        let stem = file.trim_end_matches(".gz").trim_end_matches(".txt");
        let Some((name, opt)) = stem.rsplit_once("-collapsed-") else {
            continue;
        };
        let input =
            find_perf_input(&corpus, name).unwrap_or_else(|| panic!("no input for oracle {file}"));
        let expected = sorted_lines(&read_text(&oracle));
        // Sequential, and on 2 threads with small chunks so chunk boundaries are crossed.
        for (threads, chunk_size) in [(1, None), (2, Some(4096))] {
            let opts = LoadOptions {
                format: FormatChoice::Perf,
                perf: perf_options(opt),
                threads: Some(threads),
                chunk_size,
                ..LoadOptions::default()
            };
            let got = folded_of(&input, &opts);
            if got == expected {
                continue;
            }
            // The two deviations from inferno (README, "Where flametui differs"): with
            // them undone, the output must be inferno's to the byte.
            let undone = as_inferno(&got);
            if undone != expected {
                failures.push(format!(
                    "{file} ({threads} threads): {}",
                    diff_report(&expected, &undone)
                ));
            } else if threads == 1 {
                deviating.push(file.clone());
            }
        }
        cases += 1;
    }
    assert!(cases >= 150, "only {cases} oracle cases found");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Which cases the deviations touch, so a change in that list is seen.
    for must in [
        "empty-line-collapsed-default.txt",
        "invalid-perf-with-empty-line-after-event-line-collapsed-default.txt",
        "weird-stack-line-collapsed-default.txt",
        "local-cargo-build-fp-collapsed-default.txt.gz",
        "local-cargo-build-dwarf-collapsed-default.txt.gz",
    ] {
        assert!(deviating.iter().any(|d| d == must), "{must}: {deviating:?}");
    }
    assert_eq!(deviating.len(), 23, "{deviating:?}");
}

/// The tracepoint deviation: inferno loses `sched_switch` stacks; flametui reads them.
#[test]
fn perf_tracepoint_events_are_read() {
    let Some(corpus) = corpus() else { return };
    let input = corpus.join("perf/local-python-multievent.txt");
    let only = |event: Option<&str>, expected: &str| {
        let opts = LoadOptions {
            format: FormatChoice::Auto,
            perf: PerfOptions {
                event: event.map(str::to_owned),
                ..PerfOptions::default()
            },
            ..LoadOptions::default()
        };
        let got = folded_of(&input, &opts);
        let want = sorted_lines(&read_text(&corpus.join(expected)));
        assert_eq!(got, want, "{expected}: {}", diff_report(&want, &got));
    };
    only(
        None,
        "perf/local-python-multievent.collapsed-only-sched_switch.txt",
    );
    only(
        Some("sched:sched_switch"),
        "perf/local-python-multievent.collapsed-only-sched_switch.txt",
    );
    only(
        Some("cpu-clock"),
        "perf/local-python-multievent.collapsed-only-cpu-clock.txt",
    );
}

/// stackcollapse-stap.pl's output with the one documented deviation (module brackets closed).
fn close_brackets(line: &str) -> String {
    let (stack, count) = line.rsplit_once(' ').unwrap();
    let stack = stack
        .split(';')
        .map(|f| {
            if f.matches('[').count() > f.matches(']').count() {
                format!("{f}]")
            } else {
                f.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(";");
    format!("{stack} {count}")
}

#[test]
fn stap_matches_perl_split_on_the_off_cpu_marker() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("stap");
    let mut cases = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".txt") || name.contains(".collapsed-") {
            continue;
        }
        let stem = name.trim_end_matches(".txt");
        let on = dir.join(format!("{stem}.collapsed-oncpu.txt"));
        let off = dir.join(format!("{stem}.collapsed-offcpu.txt"));
        let expected: Vec<String> = if on.is_file() {
            let mut v: Vec<String> = sorted_lines(&read_text(&on))
                .iter()
                .map(|l| format!("[on-cpu];{}", close_brackets(l)))
                .chain(
                    sorted_lines(&read_text(&off))
                        .iter()
                        .map(|l| format!("[off-cpu];{}", close_brackets(l))),
                )
                .collect();
            v.sort();
            v
        } else {
            let perl = dir.join(format!("{stem}.collapsed-perl.txt"));
            let mut v: Vec<String> = sorted_lines(&read_text(&perl))
                .iter()
                .map(|l| close_brackets(l))
                .collect();
            v.sort();
            v
        };
        let got = folded_of(&path, &LoadOptions::default());
        assert_eq!(got, expected, "{name}: {}", diff_report(&expected, &got));
        cases += 1;
    }
    assert!(cases >= 4, "only {cases} stap cases");
}

/// Sums a folded file independently of the library (exact decimals via fixed point).
fn aggregate_folded(text: &str) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((stack, count)) = line.trim_end().rsplit_once(' ') else {
            continue;
        };
        let Ok(c) = count.parse::<f64>() else {
            continue;
        };
        *m.entry(stack.to_owned()).or_insert(0.0) += c;
    }
    m
}

#[test]
fn folded_inputs_round_trip_summed_and_sorted() {
    let Some(corpus) = corpus() else { return };
    let mut files = Vec::new();
    for dir in fs::read_dir(corpus.join("folded/inferno")).unwrap() {
        let dir = dir.unwrap().path();
        for f in fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.is_file() {
                files.push(f);
            }
        }
    }
    files.sort();
    let mut cases = 0;
    for f in files {
        let text = read_text(&f);
        let expected = aggregate_folded(&text);
        let got = folded_of(&f, &LoadOptions::default());
        let got_map: BTreeMap<String, f64> = got
            .iter()
            .map(|l| {
                let (s, c) = l.rsplit_once(' ').unwrap();
                (s.to_owned(), c.parse::<f64>().unwrap())
            })
            .collect();
        assert_eq!(
            got_map.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{}",
            f.display()
        );
        for (k, v) in &expected {
            assert!(
                (got_map[k] - v).abs() < 1e-6,
                "{}: {k}: {} vs {v}",
                f.display(),
                got_map[k]
            );
        }
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted, "{}: output not sorted", f.display());
        cases += 1;
    }
    assert!(cases >= 10, "only {cases} folded cases");
}

#[test]
fn folded_bad_lines_are_skipped_with_line_numbers() {
    let Some(corpus) = corpus() else { return };
    let path = corpus.join("folded/inferno/bad-lines/bad-lines.txt");
    let loaded = input::load_path(path.to_str().unwrap(), &LoadOptions::default()).unwrap();
    let stats = &loaded.main().stats;
    assert_eq!(stats.skipped_lines(), 2, "{:?}", stats.bad_lines);
    assert_eq!(stats.bad_lines[0].line, 3);
    assert!(stats.bad_lines[0].text.contains("THIS IS A BAD LINE"));
}

#[test]
fn diff_folded_matches_inferno_diff_folded() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("diff/inferno");
    let load = |name: &str| {
        input::load_path(dir.join(name).to_str().unwrap(), &LoadOptions::default()).unwrap()
    };
    let (before, after) = (load("before.txt"), load("after.txt"));
    let got = export::diff_folded_lines(&before.main().tree, &after.main().tree);
    let expected = sorted_lines(&read_text(&dir.join("results/default.txt")));
    assert_eq!(got, expected, "{}", diff_report(&expected, &got));
    let got = export::diff_folded(&before.main().tree, &after.main().tree, true);
    let expected = sorted_lines(&read_text(&dir.join("results/normalize.txt")));
    assert_eq!(got, expected, "normalize: {}", diff_report(&expected, &got));
    // A two-column file opens as a differential profile and exports unchanged.
    let two = load("perf-cycles-instructions-01-collapsed-all-diff.txt");
    let Loaded::Diff { before, after } = two else {
        panic!("not differential")
    };
    let got = export::diff_folded_lines(&before.tree, &after.tree);
    let text = read_text(&dir.join("perf-cycles-instructions-01-collapsed-all-diff.txt"));
    assert_eq!(got.len(), sorted_lines(&text).len());
}

/// An independent count of a `perf script` text, written apart from the parser: a sample
/// is a line with an ids word (`tid` or `pid/tid`, after the first word) and an event;
/// its event is the first word after the ids that ends in `:` and has a letter (a
/// modifier suffix such as `:u` or `:ppp` removed); its period is an all-digit word right
/// before the event that is not the ids. Returns (samples of the first event, their
/// period sum, 1 for a sample without a period).
fn count_perf_samples(text: &str) -> (u64, u64) {
    let mut kept: Option<String> = None;
    let (mut samples, mut total) = (0u64, 0u64);
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        // Any line can start a sample (perf prints one line per sample when the stack
        // is on the event line); stack lines have no ids word after their address.
        if line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let is_ids = |w: &str| {
            !w.is_empty()
                && w.split('/').all(|p| {
                    let p = p.strip_prefix('-').unwrap_or(p);
                    !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())
                })
        };
        let Some(ids) = words.iter().skip(1).position(|w| is_ids(w)).map(|i| i + 1) else {
            continue;
        };
        let Some(ev) = (ids + 1..words.len()).find(|&i| {
            words[i].ends_with(':') && words[i].bytes().any(|b| b.is_ascii_alphabetic())
        }) else {
            continue;
        };
        let spec = words[ev].trim_end_matches(':');
        let name = match spec.split_once(':') {
            Some((base, m)) if m.bytes().all(|b| b"ukhIGHpPSDWeb".contains(&b)) => base,
            _ => spec,
        };
        if kept.get_or_insert_with(|| name.to_owned()) != name {
            continue;
        }
        let period = (ev > ids + 1)
            .then(|| words[ev - 1].parse::<u64>().ok())
            .flatten()
            .unwrap_or(1);
        samples += 1;
        total += period;
    }
    (samples, total)
}

/// Loads `path` as `format` and checks its record count and total against `counted`;
/// false (and nothing counted) for an input with no sample at all.
fn loads_as_counted(path: &Path, format: FormatChoice, counted: (u64, u64)) -> bool {
    let opts = LoadOptions {
        format,
        ..LoadOptions::default()
    };
    match input::load_path(path.to_str().unwrap(), &opts) {
        Ok(l) => {
            let p = l.main();
            let got = (p.stats.samples, p.tree.total());
            assert_eq!(got, counted, "{}", path.display());
            true
        }
        Err(flametui::Error::NoSamples { .. } | flametui::Error::Empty { .. }) => {
            assert_eq!(counted.0, 0, "{}", path.display());
            false
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The sample count and the total flametui reports equal the independent count above,
/// for every perf input of the corpus (and so `--top`, `--print` and the header, which
/// print these figures).
#[test]
fn perf_sample_counts_equal_an_independent_count() {
    let Some(corpus) = corpus() else { return };
    let mut inputs = Vec::new();
    for dir in ["perf", "perf/flamegraph", "perf/inferno"] {
        for e in fs::read_dir(corpus.join(dir)).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let is_input = (name.ends_with(".txt") || name.ends_with(".txt.gz"))
                && !name.contains("collapsed");
            if path.is_file() && is_input {
                inputs.push(path);
            }
        }
    }
    inputs.sort();
    assert!(inputs.len() >= 25, "{inputs:?}");
    let mut checked = 0;
    for path in &inputs {
        let counted = count_perf_samples(&read_text(path));
        checked += u32::from(loads_as_counted(path, FormatChoice::Perf, counted));
    }
    assert!(checked >= 24, "{checked}");
}

/// Folded inputs: the stack count and total equal an independent count (one stack per
/// line whose last word is a whole number, that number summed), for every folded input of
/// the corpus with whole counts and the repository's folded and SystemTap files.
#[test]
fn folded_and_stap_counts_equal_an_independent_count() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut folded = vec![root.join("folded-small.txt")];
    if let Some(corpus) = corpus() {
        let base = corpus.join("folded/inferno");
        for dir in fs::read_dir(&base).unwrap() {
            for e in fs::read_dir(dir.unwrap().path()).unwrap() {
                let path = e.unwrap().path();
                if path.is_file() && !path.to_str().unwrap().contains("fractional") {
                    folded.push(path);
                }
            }
        }
    }
    folded.sort();
    for path in &folded {
        let text = read_text(path);
        let (mut stacks, mut total) = (0u64, 0u64);
        for line in text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            if let Some(n) = line.rsplit_once(' ').and_then(|(s, n)| {
                (!s.trim().is_empty())
                    .then(|| n.parse::<u64>().ok())
                    .flatten()
            }) {
                stacks += 1;
                total += n;
            }
        }
        loads_as_counted(path, FormatChoice::Folded, (stacks, total));
    }
    // SystemTap: one stack per count line (`\tN`), the counts summed per half.
    for name in [
        "stap-mysqld-on-off.txt",
        "stap-seed-b0e1.txt",
        "stap-seed-b0e0.txt",
        "stap-seed-b1e1.txt",
    ] {
        let text = read_text(&root.join(name));
        let counts: Vec<u64> = text
            .lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .collect();
        let p = input::load_path(root.join(name).to_str().unwrap(), &LoadOptions::default())
            .unwrap()
            .main()
            .clone();
        assert_eq!(p.stats.samples, counts.len() as u64, "{name}");
        assert_eq!(p.tree.total(), counts.iter().sum::<u64>(), "{name}");
        let head = flametui::report::header(&p, flametui::report::Figures::Exact);
        assert!(
            head.contains(&format!("— {} stacks,", counts.len())),
            "{name}: {head}"
        );
    }
}
