//! Runs the real binary under a memory limit and a time limit, so that a test of a hostile
//! input fails when a regression needs too much memory or time, instead of swapping the
//! machine or hanging the suite. The limit is the writable private memory (`ulimit -d`,
//! which is `setrlimit(RLIMIT_DATA)` in the child the shell execs into: the heap, anonymous
//! mappings, thread stacks): an allocation past it fails, and the Rust runtime aborts, which
//! the test sees as a signal.
//!
//! Not the address space (`ulimit -v`): glibc reserves 64 MiB of it per thread arena, and a
//! new arena maps 128 MiB for a moment to align it, so a run of a few threads that used
//! 42 MB failed one time in ten under 160 MiB. Those reservations are not writable until
//! used, and `RLIMIT_DATA` counts a page range only when it becomes writable.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// What a limited run gave.
#[derive(Debug)]
pub struct Limited {
    /// The exit status (a signal when the limit was hit or the time ran out).
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// The run was killed because it took longer than its time limit.
    pub timed_out: bool,
}

impl Limited {
    /// The exit code; `None` when ended by a signal (an abort on a failed allocation).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }
}

/// Runs `flametui ARGS` with at most `mib` MiB of writable memory and `secs` seconds,
/// feeding `stdin` (or nothing) and collecting both outputs.
pub fn run_limited(args: &[&str], stdin: Option<&[u8]>, mib: u64, secs: u64) -> Limited {
    run_limited_env(args, stdin, mib, secs, &[])
}

/// As [`run_limited`], with `env` set in the child's environment.
pub fn run_limited_env(
    args: &[&str],
    stdin: Option<&[u8]>,
    mib: u64,
    secs: u64,
    env: &[(&str, &str)],
) -> Limited {
    let script = format!("ulimit -d {} && exec \"$0\" \"$@\"", mib * 1024);
    let mut child = Command::new("sh")
        .envs(env.iter().copied())
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.map(<[u8]>::to_vec);
    let feeder = std::thread::spawn(move || {
        if let Some(d) = data {
            // The program may stop reading early (an error, a cap): not a failure here.
            let _ = input.write_all(&d);
        }
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = feeder.join();
    Limited {
        status,
        stdout: reader.join().unwrap(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        timed_out,
    }
}

/// Asserts that a limited run ended by itself with one of the `codes`, not by the limit.
pub fn assert_held(r: &Limited, codes: &[i32], what: &str) {
    assert!(!r.timed_out, "{what}: took longer than its time limit");
    assert!(
        r.code().is_some_and(|c| codes.contains(&c)),
        "{what}: ended with {:?} (a signal means the memory limit was hit); stderr: {}",
        r.status,
        r.stderr.chars().take(2000).collect::<String>()
    );
}

#[test]
fn the_limit_stops_a_run_that_needs_more() {
    // A sanity check of the harness itself: 200,000 distinct stacks (5.6 MB) take far more
    // than 8 MiB to hold, so that run must end by the limit (a signal), and hold under 1 GiB.
    let input: String = (0..200_000)
        .map(|i| format!("main;work{i};leaf{i} 1\n"))
        .collect();
    let args = ["--export", "folded", "-o", "/dev/null", "-"];
    let r = run_limited(&args, Some(input.as_bytes()), 8, 60);
    assert!(!r.timed_out && r.code().is_none(), "{r:?}");
    let r = run_limited(&args, Some(input.as_bytes()), 1024, 60);
    assert_held(&r, &[0], "200,000 stacks under 1 GiB");
}
