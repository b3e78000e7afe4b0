//! bpftrace map output: conformance with `stackcollapse-bpftrace.pl` on the real captures
//! in ../shared/corpus (after the documented offset stripping), our own captures in
//! `testdata/`, hand-made entries of every grammar rule, bad input and random lines.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded, PerfOptions};
use flametui::profile::Profile;
use proptest::prelude::*;
use regex::Regex;

use crate::{corpus, testdata};

fn opts(kernel: bool, addrs: bool) -> LoadOptions {
    LoadOptions {
        perf: PerfOptions {
            annotate_kernel: kernel,
            include_addrs: addrs,
            ..PerfOptions::default()
        },
        ..LoadOptions::default()
    }
}

fn profile_of(path: &str, o: &LoadOptions) -> Profile {
    match input::load_path(path, o).unwrap() {
        Loaded::Single(p) => {
            assert_eq!(p.stats.format, Some(flametui::profile::Format::Bpftrace));
            assert_eq!(p.stats.accounted_lines(), p.stats.lines, "{path}");
            p
        }
        Loaded::Diff { .. } => panic!("{path}: differential"),
    }
}

fn text_profile(text: &str, o: &LoadOptions) -> Profile {
    match input::load_reader(text.as_bytes(), "t.bt", o).unwrap() {
        Loaded::Single(p) => {
            assert_eq!(p.stats.accounted_lines(), p.stats.lines, "{text}");
            p
        }
        Loaded::Diff { .. } => panic!("differential"),
    }
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

/// `frame+123` → `frame` in every frame of a folded stack.
fn strip_offsets(stack: &str) -> String {
    let off = Regex::new(r"\+[0-9]+$").unwrap();
    stack
        .split(';')
        .map(|f| off.replace(f, "").into_owned())
        .collect::<Vec<_>>()
        .join(";")
}

/// Folded lines, their frames passed through `f`, equal stacks summed.
fn summed(lines: &str, f: impl Fn(&str) -> String) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for l in lines.lines().filter(|l| !l.is_empty()) {
        let (s, w) = l.rsplit_once(' ').unwrap();
        *m.entry(f(s)).or_insert(0) += w.parse::<u64>().unwrap();
    }
    m
}

/// The one `@[]: N` of a file (the entry the Perl script drops).
fn empty_entries(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.strip_prefix("@[]: "))
        .map(|n| n.parse::<u64>().unwrap())
        .sum()
}

#[test]
fn kstack_capture_matches_stackcollapse_bpftrace_after_offset_stripping() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("bpftrace");
    let input = dir.join("local-bpftrace-kstack-profile.txt");
    let expected =
        fs::read_to_string(dir.join("local-bpftrace-kstack-profile.collapsed-perl.txt")).unwrap();
    let text = fs::read_to_string(&input).unwrap();
    let empty = empty_entries(&text);
    assert_eq!(empty, 1624);

    // --addrs: the script's own lines exactly, plus the empty stack it drops.
    let mut got = folded(&profile_of(input.to_str().unwrap(), &opts(false, true)));
    assert_eq!(got.remove("[empty stack]"), Some(empty));
    assert_eq!(got, summed(&expected, str::to_owned));

    // Default: offsets stripped, so frames (and here stacks) merge.
    let p = profile_of(input.to_str().unwrap(), &opts(false, false));
    let mut got = folded(&p);
    assert_eq!(got.remove("[empty stack]"), Some(empty));
    let want = summed(&expected, strip_offsets);
    assert!(want.len() < 59, "some stacks merge once offsets are gone");
    assert_eq!(got, want);
    assert_eq!(p.stats.samples, 60);

    // --kernel: every frame of a kstack-only map is the kernel's.
    let got = folded(&profile_of(input.to_str().unwrap(), &opts(true, false)));
    for stack in got.keys().filter(|s| *s != "[empty stack]") {
        assert!(stack.split(';').all(|f| f.ends_with("_[k]")), "{stack}");
    }
}

/// An independent reading of the captures: the Perl script's loop (every line of an entry
/// pushed, the whole entry reversed, so `@[kstack, ustack, comm]` gives comm, then the user
/// stack, then the kernel stack), generalised as documented: `@name[` opens an entry too,
/// the `, ` separators are not frames, the perf form's address and module are dropped,
/// offsets stripped, and an entry with no frame is `[empty stack]`.
fn perl_like(text: &str) -> BTreeMap<String, u64> {
    let open = Regex::new(r"^@[A-Za-z0-9_]*\[(.*)$").unwrap();
    let close = Regex::new(r"^(.*)\]: ([0-9]+)$").unwrap();
    let frame = Regex::new(r"^(?:[0-9a-f]+ )?(.*?)(?: \([^)]*\))?$").unwrap();
    let values = |s: &str, stack: &mut Vec<String>| {
        for v in s.split(", ").filter(|v| !v.is_empty()) {
            stack.push(v.to_owned());
        }
    };
    let mut out = BTreeMap::new();
    let mut stack: Vec<String> = Vec::new();
    let mut in_stack = false;
    let mut emit = |stack: &mut Vec<String>, n: &str| {
        stack.reverse();
        let key = if stack.is_empty() {
            "[empty stack]".to_owned()
        } else {
            strip_offsets(&stack.join(";"))
        };
        *out.entry(key).or_insert(0) += n.parse::<u64>().unwrap();
        stack.clear();
    };
    for line in text.lines() {
        if !in_stack {
            let Some(c) = open.captures(line) else {
                continue;
            };
            let rest = c.get(1).unwrap().as_str();
            if let Some(c) = close.captures(rest) {
                values(&c[1], &mut stack);
                emit(&mut stack, &c[2]);
            } else {
                values(rest, &mut stack);
                in_stack = true;
            }
        } else if let Some(rest) = line
            .strip_prefix(',')
            .or(line.strip_prefix(']').map(|_| line))
        {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            if let Some(c) = close.captures(rest) {
                values(c[1].trim_start_matches(']'), &mut stack);
                emit(&mut stack, &c[2]);
                in_stack = false;
            } else {
                values(rest, &mut stack);
            }
        } else {
            let f = frame.captures(line.trim_start()).unwrap();
            stack.push(f[1].to_owned());
        }
    }
    out
}

#[test]
fn multi_key_captures_match_the_scripts_reading_generalised() {
    let Some(corpus) = corpus() else { return };
    for name in [
        "local-bpftrace-kstack-profile.txt",
        "local-bpftrace-offcpu-kstack-ustack-comm.txt",
        "local-bpftrace-perfmode-kstack-ustack-comm.txt",
    ] {
        let path = corpus.join("bpftrace").join(name);
        let text = fs::read_to_string(&path).unwrap();
        let p = profile_of(path.to_str().unwrap(), &opts(false, false));
        let want = perl_like(&text);
        assert_eq!(folded(&p), want, "{name}");
        let entries = text.lines().filter(|l| l.starts_with('@')).count() as u64;
        assert_eq!(p.stats.samples, entries, "{name}: every entry counted");
        assert_eq!(p.tree.total(), want.values().sum::<u64>(), "{name}");
    }
}

/// With `FLAMEGRAPH_DIR` set to a FlameGraph checkout, the script itself is run on the
/// captures it can read (a named map renamed to `@[`), its `, ` pseudo-frames dropped and
/// its offsets stripped.
#[test]
fn stackcollapse_bpftrace_itself_when_available() {
    let Some(corpus) = corpus() else { return };
    let Some(dir) = std::env::var_os("FLAMEGRAPH_DIR") else {
        eprintln!("SKIPPED: FLAMEGRAPH_DIR not set; stackcollapse-bpftrace.pl not run");
        return;
    };
    let script = Path::new(&dir).join("stackcollapse-bpftrace.pl");
    let named = Regex::new(r"(?m)^@[A-Za-z0-9_]+\[").unwrap();
    for name in [
        "local-bpftrace-kstack-profile.txt",
        "local-bpftrace-offcpu-kstack-ustack-comm.txt",
    ] {
        let path = corpus.join("bpftrace").join(name);
        let text = fs::read_to_string(&path).unwrap();
        let renamed = named.replace_all(&text, "@[");
        let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("flametui-bpf-{}-{name}", std::process::id()));
        fs::write(&tmp, renamed.as_bytes()).unwrap();
        let run = Command::new("perl")
            .arg(&script)
            .arg(&tmp)
            .output()
            .unwrap();
        fs::remove_file(&tmp).unwrap();
        assert!(run.status.success());
        let perl = String::from_utf8(run.stdout).unwrap();
        let want = summed(&perl, |s| {
            strip_offsets(
                &s.split(';')
                    .filter(|f| *f != ", ")
                    .collect::<Vec<_>>()
                    .join(";"),
            )
        });
        let mut got = folded(&profile_of(path.to_str().unwrap(), &opts(false, false)));
        got.remove("[empty stack]");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn our_captures_load_with_every_count() {
    // `@[kstack, ustack, comm] = count()` of a Python workload, default stack mode.
    let path = testdata("bpftrace-kstack-ustack-comm.txt.gz");
    let p = profile_of(&path, &opts(false, false));
    assert_eq!(p.stats.samples, 162);
    // One sample of the child before it ran python3.
    let got = folded(&p);
    assert_eq!(got.keys().filter(|s| !s.starts_with("python3;")).count(), 1);
    assert!(got.keys().any(|s| s.starts_with("bpftrace;0x")));
    // `@samples[comm, pid, ustack(perf), kstack(perf)]` with `@total = count()` beside it:
    // the map's counts add up to bpftrace's own total, printed as `@total: 419`.
    let path = testdata("bpftrace-perf-comm-pid.txt.gz");
    let p = profile_of(&path, &opts(true, false));
    assert_eq!(p.tree.total(), 419);
    assert_eq!(
        p.stats.skipped.get("bpftrace map without a key (no stack)"),
        Some(&1)
    );
    let got = folded(&p);
    assert!(got.keys().all(|s| s.starts_with("python3;29113;")));
    // The user stack (printed first here) still comes before the kernel stack.
    let with_kernel = got
        .keys()
        .find(|s| s.contains("asm_exc_page_fault_[k]"))
        .unwrap();
    let frames: Vec<&str> = with_kernel.split(';').collect();
    assert!(frames[2].starts_with("0x") && frames[3] == "asm_exc_page_fault_[k]");
}

#[test]
fn modules_become_libraries_and_kernel_frames_the_kernels() {
    let Some(corpus) = corpus() else { return };
    let path = corpus.join("bpftrace/local-bpftrace-perfmode-kstack-ustack-comm.txt");
    let p = profile_of(path.to_str().unwrap(), &opts(false, false));
    let names = p.tree.names();
    let lib = |f: &str| {
        let id = names.lookup(f).unwrap();
        names.library(id).map(|l| names.library_name(l).to_owned())
    };
    assert_eq!(
        lib("PyBlake2_blake2b_compress.isra.0").as_deref(),
        Some("_blake2.cpython-311-x86_64-linux-gnu.so")
    );
    assert_eq!(
        lib("BZ2_hbMakeCodeLengths").as_deref(),
        Some("libbz2.so.1.0.4")
    );
    assert_eq!(lib("asm_exc_page_fault").as_deref(), Some("kernel"));
    assert_eq!(lib("0x7f1a83d7f8aa"), None, "([unknown]) is no library");
}

#[test]
fn hand_made_entries_of_each_rule() {
    let text = "\
Attaching 3 probes...
Tracing... Hit Ctrl-C to end.
^C

@total: 42
@hist[
    vfs_read+4
]:
[4, 8)                 2 |@@@@                                                |
[8, 16)                1 |@@                                                  |

@[kstack, comm, ustack]
@x[
    do_sys_open+112
, bash, 
    open+21 (/usr/lib/libc.so.6)
    main+9 (/usr/bin/bash)
]: 5
@x[bash, 77]: 3
@x[]: 2
@x[
schedule+1
cpu_startup_entry+2
]: 4
@other[
    f+1
]: 9
";
    let p = text_profile(
        text,
        &LoadOptions {
            format: FormatChoice::Bpftrace,
            ..opts(false, false)
        },
    );
    let want: BTreeMap<String, u64> = [
        ("bash;main;open;do_sys_open", 5),
        ("bash;77", 3),
        ("[empty stack]", 2),
        ("cpu_startup_entry;schedule", 4),
    ]
    .into_iter()
    .map(|(s, w)| (s.to_owned(), w))
    .collect();
    assert_eq!(folded(&p), want);
    let s = &p.stats;
    assert_eq!(s.samples, 4);
    assert_eq!(
        s.skipped.get("bpftrace map without a key (no stack)"),
        Some(&1)
    );
    assert_eq!(
        s.skipped.get("bpftrace histogram bucket (not a count)"),
        Some(&2)
    );
    // `Tracing...`, `^C` and `Attaching…` are noise; a key line that is no entry is not.
    assert_eq!(s.line_counts.comments, 3);
    assert!(s.bad_lines.iter().any(|b| b.line == 12));
    // Dropped: the histogram's two key lines and the other map's entry (3 lines).
    assert_eq!(s.line_counts.dropped, 5);
    // Detection sees through the noise lines before the first entry.
    assert!(input::detect(text.as_bytes()) == Some(flametui::profile::Format::Bpftrace));
}

#[test]
fn bad_entry_is_reported_with_file_and_line_and_the_rest_loads() {
    let text = "\
@[
    vfs_read+570
]: 3
@[
    vfs_write+1
@[
    ksys_read+9
, python3]: 2
@[
    tail+1
";
    let p = text_profile(text, &LoadOptions::default());
    assert_eq!(
        folded(&p),
        [
            ("python3;ksys_read".to_owned(), 2),
            ("vfs_read".to_owned(), 3)
        ]
        .into_iter()
        .collect()
    );
    let bad = &p.stats.bad_lines;
    assert_eq!(bad[0].line, 6, "{bad:?}");
    assert!(bad[0].reason.contains("bpftrace"));
    assert!(
        bad.iter()
            .any(|b| b.line == 10 && b.reason.contains("without its count"))
    );
    // The command line names the file and the line.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-bad-bpf-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.bt.txt");
    fs::write(&file, text).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args(["--export", "folded"])
        .arg(&file)
        .output()
        .unwrap();
    fs::remove_dir_all(&dir).unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("bad.bt.txt:6:"), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "python3;ksys_read 2\nvfs_read 3\n"
    );
}

fn bpftrace_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("@[".to_owned()),
        Just("@m[".to_owned()),
        Just("@[, ".to_owned()),
        Just("]: 3".to_owned()),
        Just(", ".to_owned()),
        Just(", comm]: 1".to_owned()),
        Just("]:".to_owned()),
        Just("@x: 4".to_owned()),
        Just(String::new()),
        Just("Attaching 1 probe...".to_owned()),
        "    [a-z_]{1,6}\\+[0-9]{1,3}( \\(/lib/[a-z]{1,4}\\.so\\))?",
        "\t[0-9a-f]{1,16} [a-z0-9_]{1,5}\\+[0-9]{1,2}( \\(\\[unknown\\]\\))?",
        "    0x[0-9a-f]{1,16}",
        "@[a-z]{0,3}\\[[a-z0-9, ]{0,8}\\]: [0-9]{1,20}",
        "\\PC{0,30}",
    ]
}

proptest! {
    #[test]
    fn random_lines_never_panic_and_every_line_is_accounted(
        lines in prop::collection::vec(bpftrace_line(), 0..60),
        kernel in any::<bool>(),
        addrs in any::<bool>(),
    ) {
        let text = lines.join("\n");
        let o = LoadOptions { format: FormatChoice::Bpftrace, ..opts(kernel, addrs) };
        if let Ok(l) = input::load_reader(text.as_bytes(), "p", &o) {
            let s = &l.main().stats;
            prop_assert_eq!(s.accounted_lines(), s.lines);
        }
    }
}
