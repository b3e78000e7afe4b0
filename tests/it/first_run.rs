//! The first command a perf user types: `flametui` alone, on a terminal, in a directory
//! where `perf record` just wrote `perf.data` (opened, as `perf report` opens it) and in one
//! without (usage, exit status 2).

use std::io::Read;
use std::path::PathBuf;

use crate::e2e::{BIN, Tmux, quote, tmux_available};
use crate::support::testdata;

/// An empty directory of this test's own under the target's temporary directory.
fn empty_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-first-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn without_arguments_a_terminal_gets_usage_and_status_2() {
    if !tmux_available() {
        return;
    }
    let dir = empty_dir("none");
    let t = Tmux::start("no-args", &format!("cd {} && {BIN}", quote(&dir)));
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:2"), "{screen}");
    assert!(screen.contains("no profile given"), "{screen}");
    assert!(screen.contains("perf.data"), "{screen}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_arguments_perf_data_here_is_opened() {
    if !tmux_available() {
        return;
    }
    let dir = empty_dir("here");
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(testdata("perf-data-fp.data.gz")).unwrap())
        .read_to_end(&mut data)
        .unwrap();
    std::fs::write(dir.join("perf.data"), data).unwrap();
    let t = Tmux::start("perf-data", &format!("cd {} && {BIN}", quote(&dir)));
    t.wait_for("the recording's header", |s| s.contains("perf.data"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
    let _ = std::fs::remove_dir_all(&dir);
}
