//! A program to record, built at test time with gcc: `busy SECONDS STATUS` prints `start`
//! on stdout, spins in `spin` (called from `work`) for SECONDS, prints `done` on stderr and
//! exits with STATUS. Built twice: with frame pointers (`busy`) and without
//! (`busy-nofp`). Shared by the `core` and `it` test binaries (`#[path]`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const SOURCE: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long spin(unsigned long n) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++) x += i;
    return x;
}

__attribute__((noinline)) unsigned long work(double seconds) {
    double end = now() + seconds;
    unsigned long s = 0;
    while (now() < end) s += spin(200000);
    return s;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    int status = argc > 2 ? atoi(argv[2]) : 0;
    puts("start");
    fflush(stdout);
    work(seconds);
    fputs("done\n", stderr);
    return status;
}
"#;

/// The two builds, in a directory of their own.
#[derive(Debug)]
pub struct Busy {
    /// Where they are.
    pub dir: PathBuf,
    /// Built with `-fno-omit-frame-pointer`.
    pub fp: PathBuf,
    /// Built with `-fomit-frame-pointer`.
    pub nofp: PathBuf,
}

/// The builds, once perf is known to record here; else why not (for `SKIPPED:`).
pub fn busy() -> Result<&'static Busy, String> {
    static BUSY: OnceLock<Result<Busy, String>> = OnceLock::new();
    BUSY.get_or_init(build).as_ref().map_err(Clone::clone)
}

/// Prints why a test is skipped; returns the builds when it is not.
pub fn busy_or_skip(test: &str) -> Option<&'static Busy> {
    match busy() {
        Ok(b) => Some(b),
        Err(why) => {
            eprintln!("SKIPPED: {test}: {why}");
            None
        }
    }
}

fn build() -> Result<Busy, String> {
    perf_records()?;
    let dir = scratch("busy");
    let source = dir.join("busy.c");
    std::fs::write(&source, SOURCE).map_err(|e| format!("cannot write busy.c: {e}"))?;
    let fp = dir.join("busy");
    let nofp = dir.join("busy-nofp");
    for (out, flag) in [
        (&fp, "-fno-omit-frame-pointer"),
        (&nofp, "-fomit-frame-pointer"),
    ] {
        let res = Command::new("gcc")
            .args(["-O2", "-g", flag, "-o"])
            .arg(out)
            .arg(&source)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("gcc cannot be run: {e}"))?;
        if !res.status.success() {
            return Err(format!(
                "gcc failed: {}",
                String::from_utf8_lossy(&res.stderr)
            ));
        }
    }
    Ok(Busy { dir, fp, nofp })
}

/// perf is installed and allowed to record a command here.
fn perf_records() -> Result<(), String> {
    let res = Command::new("perf")
        .args(["record", "-o", "/dev/null", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("perf cannot be run: {e}"))?;
    if res.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`perf record -o /dev/null -- true` failed: {}",
            String::from_utf8_lossy(&res.stderr).trim()
        ))
    }
}

/// A new empty directory for `name` under cargo's temporary directory for tests.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-tests-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
