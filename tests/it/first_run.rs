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

/// A real recording as `dir/perf.data` (`testdata/perf-data-fp.data.gz` unzipped).
fn write_perf_data(dir: &std::path::Path) {
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(testdata("perf-data-fp.data.gz")).unwrap())
        .read_to_end(&mut data)
        .unwrap();
    std::fs::write(dir.join("perf.data"), data).unwrap();
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
    write_perf_data(&dir);
    let t = Tmux::start("perf-data", &format!("cd {} && {BIN}", quote(&dir)));
    t.wait_for("the recording's header", |s| s.contains("perf.data"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's first code block, a command a line (comments cut off).
fn readme_commands() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first sh block in README.md");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or(l).trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The README is the script: each command of its first code block runs in tmux at 80×24
/// as written, in a directory holding what the commands name (`./perf.data`, `./app` — a
/// small program that spins for a second —, `before.stap`, `after.stap`), shows its screen
/// and quits with status 0. `record` and `top` need perf to record here (else SKIPPED);
/// `perf script` without perf reads the same recording's text instead.
#[test]
fn the_readme_first_commands_work_as_written() {
    if !tmux_available() {
        return;
    }
    let dir = empty_dir("readme");
    write_perf_data(&dir);
    std::fs::copy(testdata("stap-seed-b0e0.txt"), dir.join("before.stap")).unwrap();
    std::fs::copy(testdata("stap-seed-b0e1.txt"), dir.join("after.stap")).unwrap();
    let busy = crate::busy::busy();
    if let Ok(b) = busy {
        std::fs::copy(&b.fp, dir.join("app")).unwrap();
    }
    let commands = readme_commands();
    assert!(commands.len() >= 5, "{commands:?}");
    for (i, command) in commands.iter().enumerate() {
        let needs_perf = command.contains(" record ") || command.ends_with(" top");
        if let (true, Err(why)) = (needs_perf, &busy) {
            eprintln!("SKIPPED: README command `{command}`: {why}");
            continue;
        }
        let (want, shell): (&str, String) = match command.as_str() {
            "flametui --demo" => ("demo: web service", command.clone()),
            "flametui record -- ./app" => ("Recording done", command.clone()),
            "flametui top" => ("perf top · ", command.clone()),
            "flametui" => ("perf.data", command.clone()),
            "perf script | flametui -" if busy.is_ok() => ("<stdin>", command.clone()),
            "perf script | flametui -" => (
                "<stdin>",
                command.replace(
                    "perf script",
                    &format!(
                        "gzip -dc {}",
                        quote(&testdata("perf-data-srcline.script.txt.gz"))
                    ),
                ),
            ),
            "flametui before.stap after.stap" => ("before.stap", command.clone()),
            other => panic!("the README's first block names `{other}`: teach this test to run it"),
        };
        let shell = shell.replace("flametui", BIN);
        let t = Tmux::start(
            &format!("readme-{i}"),
            &format!("cd {} && {shell}", quote(&dir)),
        );
        t.wait_for(command, |s| s.contains(want));
        t.send(&["q"]);
        let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
        assert!(screen.contains("EXITED:0"), "{command}:\n{screen}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
