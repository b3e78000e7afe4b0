//! Runs that cannot start a thread. Under a memory limit a thread's stack may not be
//! mappable, and `std`'s `spawn` then panics; near the limit that panic can hang the
//! program instead of ending it (its backtrace cannot be allocated, and the allocation
//! error waits on the lock the panic holds). flametui does the work on the calling thread
//! instead: the output must be the one of an unhindered run.
//!
//! Every thread's stack is made 1 GiB (`RUST_MIN_STACK`) under a 256 MiB limit of writable
//! memory, so no thread can start, whatever the build, while the work itself has room.

use super::busy::scratch;
use super::limited::{assert_held, run_limited, run_limited_env};
use super::{testdata, testdata_gunzipped};

const NO_THREADS: [(&str, &str); 1] = [("RUST_MIN_STACK", "1073741824")];

/// `flametui ARGS` with threads and without: both exit 0 with the same output.
fn same_without_threads(args: &[&str], stdin: Option<&[u8]>, what: &str) {
    let free = run_limited(args, stdin, 1024, 120);
    assert_held(&free, &[0], what);
    assert!(!free.stdout.is_empty(), "{what}: nothing written");
    let bound = run_limited_env(args, stdin, 256, 120, &NO_THREADS);
    assert_held(&bound, &[0], &format!("{what}, no thread to be had"));
    assert!(
        free.stdout == bound.stdout,
        "{what}: the output without threads differs"
    );
}

/// A new scratch directory `dir` holding testdata's `gz` unpacked as `file`, and that
/// file's path.
fn unpacked(dir: &str, file: &str, gz: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = scratch(dir);
    let file = dir.join(file);
    std::fs::write(&file, testdata_gunzipped(gz)).unwrap();
    (dir, file)
}

/// In a child of [`the_limit_leaves_no_thread_to_start`] alone (where `PROBE` is set):
/// whether a thread starts.
#[test]
fn probe_a_thread() {
    if std::env::var_os(PROBE).is_some() {
        assert!(
            std::thread::Builder::new().spawn(|| ()).is_err(),
            "a thread started under the limit"
        );
    }
}

const PROBE: &str = "FLAMETUI_TEST_PROBE_NO_THREADS";

#[test]
fn the_limit_leaves_no_thread_to_start() {
    // The premise of the tests here, checked in this test binary run again under the
    // limit (the test harness runs a test on its own thread when it cannot start one).
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("sh")
        .envs(NO_THREADS)
        .env(PROBE, "1")
        .arg("-c")
        .arg("ulimit -d 262144 && exec \"$0\" \"$@\"")
        .arg(exe)
        .args(["--exact", "no_threads::probe_a_thread", "--test-threads=1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn perf_script_exports_the_same_without_threads() {
    let (dir, file) = unpacked(
        "no-threads-script",
        "system-wide.txt",
        "perf-system-wide.txt.gz",
    );
    let path = file.to_str().unwrap();
    for threads in ["1", "2", "4"] {
        let args = ["--threads", threads, "--export", "folded", path];
        same_without_threads(&args, None, &format!("a file, {threads} threads"));
    }
    let input = std::fs::read(&file).unwrap();
    let args = ["--threads", "2", "--export", "folded", "-"];
    same_without_threads(&args, Some(&input), "a pipe, 2 threads");
    let args = ["--threads", "2", "--top", "20", path];
    same_without_threads(&args, None, "--top");
    // Into a file: its temporary file is removed on a signal by a thread of its own.
    let out = file.with_extension("folded");
    let args = ["--export", "folded", "-o", out.to_str().unwrap(), path];
    let free = run_limited(&args, None, 1024, 120);
    assert_held(&free, &[0], "-o");
    let written = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let bound = run_limited_env(&args, None, 256, 120, &NO_THREADS);
    assert_held(&bound, &[0], "-o, no thread to be had");
    assert!(
        std::fs::read(&out).unwrap() == written,
        "-o: the file differs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A perf script of `samples` distinct stacks of four frames: over a megabyte (several
/// chunks, so the parser's threads each make a tree and the export takes their union) and
/// over 50,000 nodes (so the export formats on threads).
fn distinct_perf_script(samples: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for i in 0..samples {
        let _ = write!(
            s,
            "prog 100/100 [000] {}.{:06}: 1000 cpu-clock:\n\
             \t    {:x} leaf_{i}+0x1 (/usr/lib/libx.so)\n\
             \t    {:x} mid_{}+0x2 (/usr/lib/libx.so)\n\
             \t    {:x} top_{}+0x3 (/bin/prog)\n\
             \t    1000 main+0x4 (/bin/prog)\n\n",
            1 + i / 1_000_000,
            i % 1_000_000,
            0x10_0000 + i,
            0x20_0000 + i / 3,
            i / 3,
            0x30_0000 + i / 7,
            i / 7,
        );
    }
    s
}

#[test]
fn a_large_export_formats_on_the_calling_thread() {
    let dir = scratch("no-threads-large");
    let file = dir.join("distinct.txt");
    let text = distinct_perf_script(40_000);
    assert!(text.len() > 3 << 20, "{} bytes", text.len());
    std::fs::write(&file, &text).unwrap();
    let path = file.to_str().unwrap();
    for threads in ["2", "4"] {
        let args = ["--threads", threads, "--export", "folded", path];
        same_without_threads(&args, None, &format!("many stacks, {threads} threads"));
    }
    let args = ["--threads", "2", "--export", "folded", "-"];
    same_without_threads(&args, Some(text.as_bytes()), "many stacks through a pipe");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_collapser_runs_on_the_calling_thread() {
    // DTrace is read through inferno's collapser, which runs on a thread of its own.
    let path = testdata("dtrace-ustack.txt");
    same_without_threads(&["--export", "folded", &path], None, "DTrace");
}

#[test]
fn perf_data_reads_the_same_without_threads() {
    let (dir, file) = unpacked("no-threads-perf-data", "fp.data", "perf-data-fp.data.gz");
    let path = file.to_str().unwrap();
    let args = ["--kallsyms", "/dev/null", "--export", "folded", path];
    same_without_threads(&args, None, "perf.data");
    let _ = std::fs::remove_dir_all(&dir);
}
