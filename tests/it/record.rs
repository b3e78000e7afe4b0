//! `flametui record` and `flametui top` in a terminal: the real binary in tmux, recording a
//! small C program (built at test time) with the real perf. Skipped, with a message,
//! without tmux, gcc or a perf that may record here.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::busy::{Busy, busy_or_skip, scratch};
use crate::e2e::{BIN, Tmux, quote, tmux_available};

/// tmux, gcc and perf, or why the test is skipped.
fn ready(test: &str) -> Option<&'static Busy> {
    if !tmux_available() {
        return None;
    }
    busy_or_skip(test)
}

/// The exit status the pane's shell printed (`EXITED:N`), once it did.
fn exited(t: &Tmux) -> u8 {
    let screen = t.wait_for("the exit", |s| s.contains("EXITED:"));
    let rest = &screen[screen.find("EXITED:").unwrap() + "EXITED:".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// The screen once `want` holds and two captures in a row are the same (no frame half
/// painted).
fn settled(t: &Tmux, what: &str, want: impl Fn(&str) -> bool) -> String {
    let last = std::cell::RefCell::new(String::new());
    t.wait_for(what, |s| {
        let same = *last.borrow() == s;
        last.replace(s.to_owned());
        same && want(s)
    })
}

/// The samples of the status line's `… in 3,213 samples · 100.00% of total` (the root
/// selected: all of them).
fn samples_on_screen(screen: &str) -> u64 {
    let line = screen
        .lines()
        .find(|l| l.contains(" samples · 100.00% of total"))
        .unwrap_or_else(|| panic!("no status line of the root:\n{screen}"));
    let before = &line[..line.find(" samples · ").unwrap()];
    let number = before.rsplit(' ').next().unwrap();
    number.replace(',', "").parse().unwrap()
}

/// The samples of a recording, from `flametui FILE --print`'s header
/// (`FILE: perf.data — 1,384 samples, total 1.39 s, …`).
fn samples_in_file(file: &Path) -> u64 {
    let out = Command::new(BIN)
        .arg(file)
        .args(["--print", "--min-percent", "50"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let head = text.lines().next().unwrap();
    let count = head
        .split(" — ")
        .nth(1)
        .and_then(|r| r.split(" samples").next())
        .unwrap_or_else(|| panic!("no sample count in {head:?}"));
    count.replace(',', "").parse().unwrap()
}

#[test]
fn a_recording_live_then_final_equals_the_file() {
    let Some(busy) = ready("record in tmux") else {
        return;
    };
    let dir = scratch("tmux-record");
    let (data, log) = (dir.join("busy.data"), dir.join("busy.log"));
    let t = Tmux::start(
        "record-done",
        &format!(
            "cd {} && {BIN} record -o {} --log {} -- ./busy 2 5",
            quote(&busy.dir),
            quote(&data),
            quote(&log)
        ),
    );
    t.wait_for("the recording badge", |s| {
        s.contains("⟳ recording ./busy 2 5") && s.contains("Ctrl-C stops")
    });
    let screen = settled(&t, "the end of the recording", |s| {
        s.contains("Recording done")
    });
    assert!(!screen.contains("⟳ recording"), "badge left:\n{screen}");
    assert!(screen.contains("spin"), "{screen}");
    let shown = samples_on_screen(&screen);
    t.send(&["q"]);
    assert_eq!(exited(&t), 5, "the command's status");
    let screen = t.wait_for("the notes", |s| s.contains("the recording is in"));
    assert!(
        screen.contains("the command's output and perf's messages are in"),
        "{screen}"
    );
    // The command's output went to the log, not over the viewer.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("start\n") && logged.contains("done\n"),
        "{logged}"
    );
    assert!(
        !screen.contains("start") && !screen.contains("done"),
        "{screen}"
    );
    // The profile shown at the end is the whole of the saved one.
    assert!(shown > 500, "{shown} samples in 2 s at 997 Hz");
    assert_eq!(samples_in_file(&data), shown);
}

#[test]
fn ctrl_c_stops_the_command_and_keeps_the_view() {
    let Some(busy) = ready("record Ctrl-C in tmux") else {
        return;
    };
    let dir = scratch("tmux-ctrl-c");
    let (data, log) = (dir.join("busy.data"), dir.join("busy.log"));
    let t = Tmux::start(
        "record-ctrl-c",
        &format!(
            "cd {} && {BIN} record -o {} --log {} -- ./busy 30 0",
            quote(&busy.dir),
            quote(&data),
            quote(&log)
        ),
    );
    t.wait_for("spin while recording", |s| {
        s.contains("spin") && s.contains("⟳ recording")
    });
    t.send(&["C-c"]);
    // perf and the command stop at once (not after flametui's 10 s of patience).
    t.wait_within(Duration::from_secs(5), "the stop", |s| {
        s.contains("Recording stopped")
    });
    let screen = settled(&t, "the stopped view", |s| s.contains("Recording stopped"));
    assert!(screen.contains("spin"), "the graph went:\n{screen}");
    assert!(!screen.contains("EXITED"), "the viewer left:\n{screen}");
    let shown = samples_on_screen(&screen);
    t.send(&["q"]);
    // perf passes on the SIGINT that ended it: 128 + 2, as a shell says it.
    assert_eq!(exited(&t), 130);
    assert_eq!(samples_in_file(&data), shown);
    // The command was stopped, not left to finish.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("start\n") && !logged.contains("done\n"),
        "{logged}"
    );
}

/// The busy program in the background, killed when dropped.
struct Background(Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn top_shows_the_busy_loop_switches_modes_and_freezes() {
    let Some(busy) = ready("top in tmux") else {
        return;
    };
    let _busy = Background(
        Command::new(&busy.fp)
            .args(["20", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let t = Tmux::start_sized("top", &format!("{BIN} top"), (120, 40));
    // At 120 columns the badge says the rate as `1,234/s` (`samples/s` from 176).
    t.wait_for("the rate", |s| {
        s.contains("⟳ accumulate · ") && s.contains("/s · lost ")
    });
    t.send(&["t"]);
    let screen = settled(&t, "the table with spin", |s| {
        s.contains("Function (") && s.contains("spin")
    });
    let rows: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains("Function ("))
        .skip(1)
        .take(3)
        .collect();
    assert!(
        rows.iter().any(|r| r.trim_end().ends_with(" spin")),
        "spin is not on the first rows:\n{screen}"
    );
    t.send(&["t"]);
    t.wait_for("the graph", |s| !s.contains("Function ("));
    t.send(&["4"]);
    let screen = t.wait_for("the diff view", |s| {
        s.contains("Δ AFTER") && s.contains("⟳ diff 10 · ")
    });
    assert!(screen.contains("perf top · after"), "{screen}");
    t.send(&["z"]);
    t.wait_for("frozen", |s| {
        s.contains("❚❚ frozen") && s.contains("z resumes")
    });
    // Refreshes go on while frozen, counted.
    t.wait_for("an update pending", |s| s.contains("pending · z resumes"));
    t.send(&["z"]);
    t.wait_for("running again", |s| {
        !s.contains("❚❚ frozen") && s.contains("⟳ diff 10 · ")
    });
    t.send(&["1"]);
    t.wait_for("accumulate again", |s| {
        s.contains("⟳ accumulate · ") && !s.contains("Δ AFTER")
    });
    t.send(&["q"]);
    assert_eq!(exited(&t), 0);
}

#[test]
fn top_fits_a_small_terminal() {
    let Some(_) = ready("top at 80×24") else {
        return;
    };
    let t = Tmux::start("top-small", &format!("{BIN} top -d 0.5"));
    // Drawn whole (a capture may catch a frame half painted over the loading screen): the
    // header with its badge on the first row, the footer on the last.
    t.wait_for("the header's badge and the footer", |s| {
        let lines: Vec<&str> = s.lines().collect();
        lines.len() == 24
            && lines[0].starts_with(" perf top · ")
            && lines[0].contains("/s · lost ")
            && lines[23].contains("q quit")
            && !s.contains("Reading perf top")
    });
    t.send(&["4"]);
    t.wait_for("the diff view", |s| s.contains("Δ AFTER"));
    t.send(&["q"]);
    assert_eq!(exited(&t), 0);
}
