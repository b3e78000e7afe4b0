//! Source lines (issue 32): the self and total weight of each line of a function, against
//! the tool that measured it. `testdata/pprof-lines.pb.gz` is a Go CPU profile of
//! `testdata/golines/main.go` (hot loops in `work` and `spin`, `square` inlined into
//! `work`); `testdata/pprof-lines.list.txt` is `go tool pprof -list 'main\.'` of it.

use std::collections::BTreeMap;
use std::process::Command;

use flametui::input::LoadOptions;
use flametui::profile::Profile;

use crate::testdata;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// pprof's figure (`460ms`, `1.93s`, `.`, `0`) in nanoseconds.
#[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // small positive figures
fn pprof_ns(s: &str) -> u64 {
    let (num, scale) = if let Some(v) = s.strip_suffix("ms") {
        (v, 1e6)
    } else if let Some(v) = s.strip_suffix("us") {
        (v, 1e3)
    } else if let Some(v) = s.strip_suffix("ns") {
        (v, 1.0)
    } else if let Some(v) = s.strip_suffix('s') {
        (v, 1e9)
    } else {
        return 0; // `.` or `0`
    };
    (num.parse::<f64>().unwrap() * scale).round() as u64
}

/// `(function, line) → (flat, cum)` of a `pprof -list` output.
fn pprof_list(text: &str) -> BTreeMap<(String, u32), (u64, u64)> {
    let mut out = BTreeMap::new();
    let mut function = String::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("ROUTINE ======================== ") {
            rest.split(" in ").next().unwrap().clone_into(&mut function);
            continue;
        }
        let fields: Vec<&str> = l.split_whitespace().collect();
        let Some(number) = fields.get(2).and_then(|f| f.strip_suffix(':')) else {
            continue;
        };
        let Ok(number) = number.parse::<u32>() else {
            continue;
        };
        let (flat, cum) = (pprof_ns(fields[0]), pprof_ns(fields[1]));
        if flat + cum > 0 {
            out.insert((function.clone(), number), (flat, cum));
        }
    }
    out
}

#[test]
fn each_lines_self_and_total_are_pprof_lists() {
    let expected = pprof_list(&std::fs::read_to_string(testdata("pprof-lines.list.txt")).unwrap());
    assert!(expected.len() >= 8, "{expected:?}");
    let p = Profile::from_path(&testdata("pprof-lines.pb.gz"), &LoadOptions::default()).unwrap();
    let lines = p.samples.lines();
    let names = p.tree.names();
    let mut got = BTreeMap::new();
    for f in lines.functions() {
        let name = names.resolve(f);
        if !name.starts_with("main.") {
            continue;
        }
        for (line, cost) in lines.of_function(f) {
            assert_eq!(lines.path(line.file), "golines/main.go");
            got.insert(
                (name.to_owned(), line.number),
                (cost.self_weight, cost.total),
            );
        }
    }
    assert_eq!(got, expected);
    // `square` is inlined into `work` at line 20: its line is its own frame's, and
    // line 20 of `work` holds the time of the call.
    assert_eq!(expected[&("main.work".to_owned(), 20)].1, 950_000_000);
}

#[test]
fn annotate_prints_the_lines_with_their_text_and_weights() {
    let out = Command::new(BIN)
        .args([
            "--annotate",
            "^main\\.(work|square)$",
            "--exact",
            "--source-path",
        ])
        .arg(testdata(""))
        .arg(testdata("pprof-lines.pb.gz"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Total: 2,420,000,000 cpu (nanoseconds)\n"),
        "{text}"
    );
    let row = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in\n{text}"))
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        row("s += square(uint64(i)) % 7"),
        "440,000,000 950,000,000 20:"
    );
    assert_eq!(row("return x * x"), "510,000,000 510,000,000 12:");
    assert_eq!(row("var s uint64"), ". . 17:");
    assert!(text.contains(
        "ROUTINE ======================== main.work in golines/main.go\n\
         1,420,000,000 1,930,000,000 (flat, cum) 79.75% of Total\n"
    ));
    // Without the file: the figures, and where it was looked for.
    let out = Command::new(BIN)
        .args(["--annotate", "main.spin", "--exact"])
        .arg(testdata("pprof-lines.pb.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("(source not found: golines/main.go)"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l
            .split_whitespace()
            .eq(["330,000,000", "330,000,000", "29:"])),
        "{text}"
    );
}

#[test]
fn a_format_without_lines_says_so_and_how_to_get_them() {
    let out = Command::new(BIN)
        .args(["--annotate", "."])
        .arg(testdata("perf-two-libs.txt.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("no source lines in this input (perf script)"),
        "{text}"
    );
    assert!(text.contains("-F +srcline"), "{text}");
}

/// `--annotate` counts the samples of a time range or task set (`source_slices.rs`), not
/// those a transform keeps or renames: with one, it is refused rather than wrong.
#[test]
fn annotate_with_a_transform_is_refused() {
    for extra in [
        ["--focus", "main.work"],
        ["--compare-time", "0,1"],
        ["--exclude", "spin"],
    ] {
        let out = Command::new(BIN)
            .args(["--annotate", "main"])
            .args(extra)
            .arg(testdata("pprof-lines.pb.gz"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot be used with"), "{err}");
    }
}
