//! The binary as a user runs it: exit codes, messages naming file and line, stdin, gzip.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// Runs the binary with `args`, `stdin` written to it.
pub(crate) fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(data) = stdin {
        // The program may exit before reading everything (a usage error): not a failure.
        if let Err(e) = input.write_all(data) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn tmp(name: &str, content: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_owned()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn export_folded_from_stdin_sums_and_sorts() {
    let out = run(&["--export", "folded", "-"], Some(b"b;c 2\na;b 1\nb;c 3\n"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a;b 1\nb;c 5\n");
}

#[test]
fn export_folded_of_several_parser_threads_equals_one_thread() {
    // Over 1 MiB (a parser chunk) of stacks, each distinct one seen four times far apart
    // (in different chunks, so in different threads): on several threads the
    // export takes the union of the threads' trees without merging them.
    let mut perf = String::new();
    for i in 0..6000u32 {
        perf.push_str(&format!(
            "app {} [000] {i}.5: 1000 cpu-clock: \n",
            100 + i % 3
        ));
        for d in 0..(4 + i % 9) {
            let f = if d < 2 {
                d
            } else {
                (i % 1500).wrapping_mul(2_654_435_761).rotate_left(d * 5) % 997
            };
            perf.push_str(&format!(
                "\t7f00{d:04x} fn{f}_{d}(int)+0x1 (/usr/lib/libx.so)\n"
            ));
        }
        perf.push('\n');
    }
    assert!(perf.len() > 2 << 20, "{} bytes", perf.len());
    let one = run(
        &["--threads", "1", "--export", "folded", "-"],
        Some(perf.as_bytes()),
    );
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert!(text(&one.stdout).lines().count() > 3000);
    for threads in ["2", "3"] {
        let many = run(
            &["--threads", threads, "--export", "folded", "-"],
            Some(perf.as_bytes()),
        );
        assert!(many.status.success(), "{}", text(&many.stderr));
        assert_eq!(text(&many.stdout), text(&one.stdout), "{threads} threads");
    }
}

#[test]
fn export_perf_script_to_file() {
    let perf = b"cat 1234 100.000001:   250000 cpu-clock:pppH: \n\tffffffff81 read+0x1 ([kernel.kallsyms])\n\t7f00 main+0x10 (/usr/bin/cat)\n\ncat 1234 100.000002:   250000 cpu-clock:pppH: \n\t7f00 main+0x10 (/usr/bin/cat)\n\n";
    let input = tmp("p.txt", perf);
    let output = tmp("out.folded", b"");
    let out = run(
        &["--export", "folded", "-o", &output, "--kernel", &input],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "cat;main 250000\ncat;main;read_[k] 250000\n"
    );
}

#[test]
fn gzip_input_is_read_transparently() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"a;b 7\n").unwrap();
    let path = tmp("f.txt.gz", &gz.finish().unwrap());
    let out = run(&["--export", "folded", &path], None);
    assert_eq!(text(&out.stdout), "a;b 7\n");
}

#[test]
fn empty_input_is_an_error_naming_the_file() {
    let path = tmp("empty.txt", b"");
    let out = run(&["--export", "folded", &path], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("empty.txt") && err.contains("empty"), "{err}");
}

#[test]
fn unknown_format_shows_what_was_seen() {
    let path = tmp("junk.txt", b"hello there\nthis is not a profile\n");
    let out = run(&["--export", "folded", &path], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("junk.txt") && err.contains("hello there"),
        "{err}"
    );
    // One line of the input per line of the message, each quoted.
    assert!(
        err.contains("it starts with:\n  | hello there\n  | this is not a profile"),
        "{err}"
    );
}

#[test]
fn errors_say_each_cause_once_and_cannot_be_faked_by_a_file_name() {
    let out = run(&["--print", "missing\nflametui: all good"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("flametui: missing\\x0aflametui: all good: "),
        "{err}"
    );
    assert_eq!(err.matches("(os error 2)").count(), 1, "{err}");
    let binary = tmp("binary.dat", b"\x7fELF\x02\x01\x01\0\0\0\x03\0>\0");
    let err = text(&run(&["--print", &binary], None).stderr);
    assert!(
        err.contains("(binary data, not text: 14 bytes read)"),
        "{err}"
    );
}

#[test]
fn bad_lines_are_reported_with_file_and_line_and_the_rest_loads() {
    let path = tmp("bad.folded", b"a;b 1\nTHIS IS BAD\na;c 2\n");
    let out = run(&["--export", "folded", &path], None);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "a;b 1\na;c 2\n");
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.folded:2:") && err.contains("THIS IS BAD"),
        "{err}"
    );
}

#[test]
fn top_table_counts_recursion_once() {
    let out = run(&["--top", "2", "-"], Some(b"main;f;f;g 4\nmain;f;h 6\n"));
    assert!(out.status.success());
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert!(
        lines[2].ends_with(" h") && lines[2].contains("60.00%"),
        "{s}"
    );
    assert!(
        lines[3].ends_with(" g") && lines[3].contains("40.00%"),
        "{s}"
    );
}

#[test]
fn report_without_a_terminal_escapes_control_characters() {
    let out = run(&["-"], Some(b"evil\x1b]52;c;Zm9v\x07name;leaf 5\n"));
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(!s.contains('\x1b') && s.contains("evil\\x1b]52"), "{s}");
    assert!(s.contains("100.00%"), "{s}");
}

#[test]
fn two_profiles_export_a_differential_file() {
    let a = tmp("a.folded", b"x;y 3\nx;z 1\n");
    let b = tmp("b.folded", b"x;y 5\n");
    let out = run(&["--export", "folded", &a, &b], None);
    assert_eq!(text(&out.stdout), "x;y 3 5\nx;z 1 0\n");
}

#[test]
fn stap_off_cpu_blocks_get_pseudo_frames() {
    let stap = b" 0x1 : work+0x1/0x10 [/bin/app]\n 0x2 : main+0x1/0x10 [/bin/app]\n\t7\n--- 0x3 : schedule+0x0/0x10 [kernel]\n 0x2 : main+0x1/0x10 [/bin/app]\n\t900\n";
    let out = run(&["--export", "folded", "-"], Some(stap));
    assert_eq!(
        text(&out.stdout),
        "[off-cpu];main;schedule 900\n[on-cpu];main;work 7\n"
    );
}

#[test]
fn transforms_apply_from_the_command_line() {
    let input: &[u8] = b"m;commit;sync;my_sync;fsync 37\nm;commit;flush;fsync 31\nm;select 32\n";
    let out = run(
        &["--export", "folded", "--exclude", "my_sync", "-"],
        Some(input),
    );
    assert_eq!(text(&out.stdout), "m;commit;flush;fsync 31\nm;select 32\n");
    let out = run(
        &["--export", "folded", "--focus", "^fsync$", "-"],
        Some(input),
    );
    assert_eq!(text(&out.stdout), "fsync 68\n");
    let out = run(
        &["--export", "folded", "--hide", "^commit$", "--invert", "-"],
        Some(input),
    );
    assert_eq!(
        text(&out.stdout),
        "fsync;flush;m 31\nfsync;my_sync;sync;m 37\nselect;m 32\n"
    );
    let out = run(&["--export", "folded", "--exclude", "(", "-"], Some(input));
    // A bad value: a usage error.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--exclude '('"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn normalize_scales_before_to_after_total() {
    let a = tmp("na.folded", b"x;y 30\nx;z 10\n");
    let b = tmp("nb.folded", b"x;y 5\nx;z 15\n");
    let out = run(&["--export", "folded", "-n", &a, &b], None);
    assert_eq!(text(&out.stdout), "x;y 15 5\nx;z 5 15\n");
}

#[test]
fn completions_and_man_page_come_from_the_clap_definition() {
    let out = run(&["--completions", "bash"], None);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("--collapse-recursion"));
    let out = run(&["--man"], None);
    assert!(out.status.success());
    let man = text(&out.stdout);
    assert!(
        man.contains(".TH flametui") && man.contains("normalize"),
        "{man}"
    );
}

#[test]
fn stats_account_for_every_line() {
    let perf = b"# header\nx 1 1.0: 5 cycles: \n\t1 f+0x1 (/bin/x)\n\tWEIRD\n\ny 1 1.1: 5 instructions: \n\t1 g+0x1 (/bin/x)\n\n";
    let out = run(&["--stats", "-"], Some(perf));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("8 lines read"), "{s}");
    for (what, n) in [
        ("in the tree", 4),
        ("dropped", 0),
        ("comments", 1),
        ("blank", 2),
        ("skipped", 1),
    ] {
        let line = s
            .lines()
            .find(|l| l.trim_start().starts_with(what))
            .unwrap();
        assert!(
            line.split_whitespace().any(|w| w == n.to_string()),
            "{what}: {line}"
        );
    }
    assert!(s.contains("every line accounted for"), "{s}");
    assert!(
        s.contains("1 sample in the tree, 1 sample of other events in metrics of their own"),
        "{s}"
    );
}

/// Folded counts are samples, but its lines are stacks: the header and `--stats` said
/// "2 samples" for two lines weighing 12.
#[test]
fn folded_lines_are_counted_as_stacks() {
    let out = run(&["--print", "-"], Some(b"a;b 5\na;c 7\n"));
    let s = text(&out.stdout);
    assert!(
        s.starts_with("<stdin>: folded — 2 stacks, total 12 samples"),
        "{s}"
    );
    let out = run(&["--stats", "-"], Some(b"a;b 5\na;c 7\n"));
    let s = text(&out.stdout);
    assert!(s.contains("2 stacks in the tree"), "{s}");
    assert!(!s.contains("samples in the tree"), "{s}");
}

/// `--hide` moves a hidden frame's time to its caller; a stack made only of hidden
/// frames is charged to the root: the total stays 20 (it was 15).
#[test]
fn hide_keeps_the_total() {
    let out = run(
        &["--print", "--hide", "^a$", "-"],
        Some(b"a;b 10\na 5\nc 5\n"),
    );
    let s = text(&out.stdout);
    assert!(s.contains("total 20 samples"), "{s}");
    assert!(s.contains(" 50.00%             10  b"), "{s}");
    let out = run(
        &["--print", "--exclude", "^a$", "-"],
        Some(b"a;b 10\na 5\nc 5\n"),
    );
    assert!(
        text(&out.stdout).contains("total 5 samples"),
        "{}",
        text(&out.stdout)
    );
}

/// `--threads` is bounded by clap: 10000 spawned 10000 parser threads, 100000000 never
/// finished spawning and 99999999999 aborted on allocating the chunk channel; 0 silently
/// meant one thread.
#[test]
fn thread_counts_out_of_bounds_are_usage_errors() {
    for n in ["0", "10000", "99999999999", "100000000", "1e8"] {
        let out = run(&["--threads", n, "--export", "folded", "-"], Some(b"a 1\n"));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--threads {n}: {err}");
        assert!(
            err.contains("--threads") && err.contains(&format!("'{n}'")),
            "{err}"
        );
        assert!(
            !err.contains("panicked") && !err.contains("memory"),
            "{err}"
        );
    }
    let err = text(&run(&["--threads", "10000", "-"], Some(b"a 1\n")).stderr);
    assert!(err.contains("at most") && err.contains("cores"), "{err}");
    let err = text(&run(&["--threads", "0", "-"], Some(b"a 1\n")).stderr);
    assert!(err.contains("at least 1"), "{err}");
    for n in ["1", "2"] {
        let out = run(&["--threads", n, "--export", "folded", "-"], Some(b"a 1\n"));
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "a 1\n");
    }
}

/// 200 folded lines gzipped, less the last 10 bytes (the CRC and length, and some data):
/// the decoder gives most lines, then an error.
fn truncated_gzip() -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..200 {
        writeln!(gz, "main;f{i} 1").unwrap();
    }
    let mut bytes = gz.finish().unwrap();
    bytes.truncate(bytes.len() - 10);
    bytes
}

/// A truncated gzip exited 0 from every text mode: a script could not tell that the data
/// was partial. What was read is still written, and the status says it is partial.
#[test]
fn an_input_that_ended_early_exits_3_after_writing_what_was_read() {
    let cut = tmp("cut.folded.gz", &truncated_gzip());
    let whole = tmp("whole.folded", b"main;f0 1\n");
    let modes: [(&[&str], &str); 7] = [
        (&["--export", "folded", &cut], "main;f1 1\n"),
        (&["--export", "svg", &cut], "f1"),
        (&["--print", &cut], "f1"),
        (&["--top", "3", &cut], "f1"),
        (&["--stats", &cut], "lines read"),
        (&["--export", "folded", &whole, &cut], "main;f1 0 1\n"),
        (&[&cut, &whole], "f1"),
    ];
    for (args, written) in modes {
        let out = run(args, None);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains("the input ended early"), "{args:?}: {err}");
        assert!(text(&out.stdout).contains(written), "{args:?}");
    }
    let out = run(&["--export", "folded", &whole], None);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&run(&["--help"], None).stdout);
    assert!(
        help.contains("Exit status") && help.contains("3  an input ended early"),
        "{help}"
    );
}

/// A full disk: the report said "No space left on device" without naming where, and
/// `--stats` and `--completions` panicked (status 101).
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_is_an_error_naming_it() {
    let path = tmp("full.folded", b"a;b 1\n");
    let modes: [&[&str]; 7] = [
        &["--export", "folded", &path],
        &["--export", "svg", &path],
        &["--print", &path],
        &["--top", "3", &path],
        &["--stats", &path],
        &["--completions", "bash"],
        &["--man"],
    ];
    for args in modes {
        let out = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("flametui: <stdout>: ") && err.contains("No space left"),
            "{args:?}: {err}"
        );
    }
    let out = run(&["--export", "folded", "-o", "/dev/full", &path], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("flametui: /dev/full: "), "{err}");
}

/// A reader that stops early (`| head -c 10`) is not an error: the output ends quietly
/// with status 0.
#[test]
fn a_reader_closing_the_pipe_ends_the_output_quietly() {
    use std::io::Read;
    let lines: String = (0..20_000).map(|i| format!("main;f{i} 1\n")).collect();
    let path = tmp("many.folded", lines.as_bytes());
    // SVG too: inferno's error wrapped the closed pipe, which came out as status 1.
    for export in ["folded", "svg"] {
        let mut child = Command::new(BIN)
            .args(["--export", export, &path])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 10];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{export}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stderr), "", "{export}");
    }
}

/// Stacks of weight 0 have no width: the export leaves them out, and an input whose
/// every stack weighs 0 has no usable samples (as a pprof profile of zeros says).
#[test]
fn stacks_of_weight_zero_are_not_exported() {
    let out = run(&["--export", "folded", "-"], Some(b"a;b 0\nc 2\na;d 0\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "c 2\n");
    let out = run(&["--export", "folded", "-"], Some(b"a;b 0\n"));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("no usable samples") && err.contains("weight 0"),
        "{err}"
    );
    let before = tmp("zero-before.folded", b"a;b 0\nc 2\n");
    let after = tmp("zero-after.folded", b"a;b 0\nc 1\nd 1\n");
    let out = run(&["--export", "folded", &before, &after], None);
    assert_eq!(text(&out.stdout), "c 2 1\nd 0 1\n", "{}", text(&out.stderr));
}

/// A differential file as one side of a comparison silently stood for its AFTER column:
/// `x;y 3 5` compared with `x;y 4` read as 5 against 4. It is refused, naming the file.
#[test]
fn a_differential_file_is_refused_as_one_side_of_a_comparison() {
    let diff = tmp("side.diff.folded", b"x;y 3 5\nx;z 1 0\n");
    let plain = tmp("side.folded", b"x;y 4\n");
    let modes: [&[&str]; 4] = [
        &["--export", "folded", &diff, &plain],
        &["--export", "folded", &plain, &diff],
        &[&diff, &plain],
        &["--top", "5", &plain, &diff],
    ];
    for args in modes {
        let out = run(args, None);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("side.diff.folded") && err.contains("differential"),
            "{args:?}: {err}"
        );
        assert!(err.contains("open it alone"), "{err}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
    }
    // Alone, it is the comparison of its two columns.
    let out = run(&["--export", "folded", &diff], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "x;y 3 5\nx;z 1 0\n");
}

/// A fresh directory of this test run.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `-o` onto an input replaced a perf.data recording with folded text, status 0. Every
/// spelling of the same file (itself, a symlink, a hard link, `x/..`, a gzipped input,
/// either side of a comparison) is refused with status 2, naming both, the input's bytes
/// unchanged; no temporary file is left.
#[test]
fn an_output_onto_an_input_is_refused_and_the_input_kept() {
    let dir = scratch("onto-input");
    let data = crate::testdata_gunzipped("perf-data-fp.data.gz");
    let input = dir.join("in.data");
    std::fs::write(&input, &data).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"a;b 3\na;c 1\n").unwrap();
    let gz_path = dir.join("in.folded.gz");
    std::fs::write(&gz_path, gz.finish().unwrap()).unwrap();
    let gz_bytes = std::fs::read(&gz_path).unwrap();
    let other = dir.join("other.folded");
    std::fs::write(&other, b"a;b 1\n").unwrap();
    std::os::unix::fs::symlink(&input, dir.join("sym")).unwrap();
    std::fs::hard_link(&input, dir.join("hard")).unwrap();
    std::fs::create_dir_all(dir.join("x")).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let (inp, gzp, oth) = (s(&input), s(&gz_path), s(&other));
    let cases: Vec<(String, Vec<String>, &str)> = vec![
        (inp.clone(), vec![inp.clone()], "in.data"),
        (s(&dir.join("sym")), vec![inp.clone()], "in.data"),
        (s(&dir.join("hard")), vec![inp.clone()], "in.data"),
        (s(&dir.join("x/../in.data")), vec![inp.clone()], "in.data"),
        (gzp.clone(), vec![gzp.clone()], "in.folded.gz"),
        (oth.clone(), vec![gzp.clone(), oth.clone()], "other.folded"),
        (gzp.clone(), vec![gzp.clone(), oth.clone()], "in.folded.gz"),
    ];
    for (out, inputs, named) in cases {
        for export in ["folded", "svg"] {
            let mut args = vec!["--export", export, "-o", &out];
            args.extend(inputs.iter().map(String::as_str));
            let r = run(&args, None);
            let err = text(&r.stderr);
            assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains("refusing to write") && err.contains(named),
                "{err}"
            );
        }
    }
    let r = run(&["--print", "-o", &inp, &inp], None);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), data);
    assert_eq!(std::fs::read(&gz_path).unwrap(), gz_bytes);
    assert_eq!(std::fs::read(&other).unwrap(), b"a;b 1\n");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.ends_with(".tmp").then_some(n)
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An export is written to a temporary file renamed over the target when complete: an
/// export interrupted (SIGTERM while the input is still arriving) or failed (an input
/// that is not a profile) leaves the old file as it was and no temporary file.
#[test]
fn an_interrupted_or_failed_export_leaves_the_target_as_it_was() {
    let dir = scratch("interrupted");
    let target = dir.join("out.folded");
    std::fs::write(&target, b"old;content 1\n").unwrap();
    let t = target.to_str().unwrap();
    let temps = || -> Vec<String> {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    };
    let mut child = Command::new(BIN)
        .args(["--export", "folded", "-o", t, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"a;b 3\n".repeat(1000).as_slice()).unwrap();
    let start = std::time::Instant::now();
    while temps().is_empty() {
        assert!(start.elapsed().as_secs() < 30, "no temporary file appeared");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    drop(input);
    assert_eq!(status.code(), Some(128 + 15), "{status:?}");
    assert_eq!(std::fs::read(&target).unwrap(), b"old;content 1\n");
    assert!(temps().is_empty(), "{:?}", temps());
    let r = run(
        &["--export", "folded", "-o", t, "-"],
        Some(b"\x00\x01not a profile\n"),
    );
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stderr));
    assert_eq!(std::fs::read(&target).unwrap(), b"old;content 1\n");
    assert!(temps().is_empty(), "{:?}", temps());
    let r = run(&["--export", "folded", "-o", t, "-"], Some(b"a;b 3\n"));
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    assert_eq!(std::fs::read(&target).unwrap(), b"a;b 3\n");
}

/// A `--pids` list that selects nothing was repeated whole in the error: 20,000 ids on one
/// line. The error names the first ten and how many more.
#[test]
fn an_error_about_a_long_id_list_names_ten_and_counts_the_rest() {
    // 15,000 (one argument may be at most 128 KiB).
    let ids: Vec<String> = (100_000..115_000).map(|i| i.to_string()).collect();
    let list = ids.join(",");
    let path = crate::testdata("perf-system-wide.txt.gz");
    for flag in ["--pids", "--tids"] {
        let out = run(&["--export", "folded", flag, &list, &path], None);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("selects no sample"), "{err}");
        assert!(
            err.contains("100000,100001,") && err.contains("100009 (and 14990 more)"),
            "{err}"
        );
        assert!(err.len() < 1000, "{} bytes: {err}", err.len());
    }
}

/// `O_NONBLOCK`, to open a FIFO for reading without waiting for a writer.
const O_NONBLOCK: i32 = if cfg!(target_os = "macos") {
    0x4
} else {
    0o4000
};

/// Runs `flametui ARGS FIFO` on a new FIFO that a thread writes `content` into, as a
/// shell's `<(…)` or `mkfifo` would. If the binary ended without reading it all, the
/// FIFO is drained here so that the writer (waiting for a reader) ends too.
fn through_fifo(name: &str, content: Vec<u8>, args: &[&str]) -> Output {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let made = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(made.success(), "mkfifo");
    let fifo = path.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
        let _ = f.write_all(&content);
    });
    let mut all_args = args.to_vec();
    all_args.push(path.to_str().unwrap());
    let out = run(&all_args, None);
    let mut rest = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(&path)
        .unwrap();
    let mut buf = vec![0; 1 << 16];
    while !writer.is_finished() {
        match std::io::Read::read(&mut rest, &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
    writer.join().unwrap();
    out
}

/// A FIFO (or `<(…)`, `/dev/fd/N`) gave "Illegal seek" for every format: it is read as a
/// stream, as standard input is, and gives what the same bytes in a file give.
#[test]
fn a_fifo_is_read_as_the_same_bytes_in_a_file() {
    let gunzip = crate::testdata_gunzipped;
    let perf_data = ["--kallsyms", "/dev/null", "--export", "folded"];
    let cases: [(&str, Vec<u8>, &[&str]); 5] = [
        (
            "folded",
            std::fs::read(crate::testdata("folded-small.txt")).unwrap(),
            &["--export", "folded"],
        ),
        (
            "perf-script",
            gunzip("perf-dd-fsync.txt.gz"),
            &["--export", "folded"],
        ),
        (
            "gzipped",
            std::fs::read(crate::testdata("perf-dd-fsync.txt.gz")).unwrap(),
            &["--top", "5"],
        ),
        (
            "perf-data-pipe",
            gunzip("perf-data-pipe.data.gz"),
            &perf_data,
        ),
        ("perf-data-file", gunzip("perf-data-fp.data.gz"), &perf_data),
    ];
    for (name, content, args) in cases {
        let file = tmp(name, &content);
        let mut file_args = args.to_vec();
        file_args.push(&file);
        let want = run(&file_args, None);
        assert!(want.status.success(), "{name}: {}", text(&want.stderr));
        assert!(!want.stdout.is_empty(), "{name}");
        let got = through_fifo(name, content, args);
        assert!(got.status.success(), "{name}: {}", text(&got.stderr));
        // The report names its input: the FIFO's path for the file's.
        let got = text(&got.stdout).replace("flametui-fifo-", "flametui-cli-");
        assert_eq!(got, text(&want.stdout), "{name}");
    }
    // A shell's process substitution: a `/dev/fd/N` pipe.
    let file = tmp("substituted", b"a;b 2\na;c 1\n");
    let out = Command::new("bash")
        .args([
            "-c",
            "exec \"$0\" --export folded <(cat \"$1\")",
            BIN,
            &file,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a;b 2\na;c 1\n");
}

/// Folded counts are samples unless `--countname` says what they are (issue 30.7): a
/// folded export of a cpu-clock profile holds nanoseconds, shown as times with `ns`;
/// another name labels them. Formats that say their unit keep it.
#[test]
fn countname_says_what_folded_counts_are() {
    let folded = b"main;work 1500000000\nmain 500000000\n";
    let top = |extra: &[&str]| {
        let mut args = vec!["--top", "1"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = run(&args, Some(folded));
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        top(&[]).ends_with("(total 2,000,000,000 samples)"),
        "{}",
        top(&[])
    );
    let ns = top(&["--countname", "ns"]);
    assert!(ns.ends_with("(total 2.00 s)"), "{ns}");
    let exact = top(&["--countname", "ns", "--exact"]);
    assert!(exact.ends_with("(total 2,000,000,000 ns)"), "{exact}");
    let bytes = top(&["--countname", "bytes"]);
    assert!(bytes.ends_with("(total 2,000,000,000 bytes)"), "{bytes}");
    // perf script says its unit (cpu-clock: time); the flag leaves it alone.
    let perf = crate::testdata("perf-inlined-dwarf.txt.gz");
    let out = run(&["--top", "1", "--countname", "bytes", &perf], None);
    let first = text(&out.stdout);
    assert!(
        first.starts_with("Top 1 function by self weight (total 287 ms CPU in "),
        "{first}"
    );
}

/// `--export svg BEFORE AFTER` draws the differential graph (it drew BEFORE alone), each
/// frame's tooltip with AFTER's weight and its change of share in pp, and its fill the
/// viewer's colour of that change, whatever the two totals.
#[test]
fn svg_of_two_profiles_is_differential_in_shares() {
    let dir = std::env::temp_dir().join(format!("flametui-diffsvg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let before = dir.join("before.folded");
    let after = dir.join("after.folded");
    std::fs::write(&before, "main;io 8000\nmain;cpu 2000\n").unwrap();
    std::fs::write(&after, "main;io 6\nmain;cpu 141\n").unwrap();
    let out = run(
        &[
            "--export",
            "svg",
            before.to_str().unwrap(),
            after.to_str().unwrap(),
        ],
        None,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    assert!(
        svg.contains("<title>io (6 samples, 4.08%; -75.92%)</title><rect"),
        "{svg}"
    );
    let io = svg.split("<title>io (").nth(1).unwrap();
    assert!(
        io.split("</g>")
            .next()
            .unwrap()
            .contains(r#"fill="rgb(0,0,255)""#),
        "{io}"
    );
}
