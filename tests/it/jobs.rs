//! Changes of the view computed in the background (large trees): the badge that says what is
//! being computed, and a tmux session of the real binary in which keys work while a job
//! runs, Esc cancels it, and `q` quits at once. The binary's debug-only
//! `FLAMETUI_DEBUG_SLOW_JOBS` sends every change of a small profile to the background and
//! makes it last, so that the test can watch.

use std::time::Duration;

use flametui::app::{Action, App, ToolAction, update};
use flametui::view::color::ColorMode;
use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::e2e::{BIN, Tmux, quote, tmux_available};
use crate::support::{profile, testdata, text};

const PERF: &str = "perf-gzip-fp.txt.gz";

#[test]
fn the_header_says_what_is_being_computed() {
    let mut app = App::new(profile(PERF), ColorMode::Mono);
    app.jobs.background_from = 0;
    update(&mut app, Action::Resize(80, 24));
    for _ in 0..2 {
        update(&mut app, Action::Move(flametui::app::Dir::Down));
    }
    update(&mut app, Action::Tool(ToolAction::Invert));
    let id = app.jobs.pending.as_ref().unwrap().id;
    update(&mut app, Action::Computing(id, Duration::from_millis(1234)));
    let area = Rect::new(0, 0, 80, 24);
    let mut buf = Buffer::empty(area);
    (&app).render(area, &mut buf);
    assert_snapshot!("computing_80x24", text(&buf));
}

#[test]
fn tmux_keys_work_while_a_change_is_computed() {
    if !tmux_available() {
        return;
    }
    let file = testdata(PERF);
    let command = format!("FLAMETUI_DEBUG_SLOW_JOBS=1500 {BIN} {}", quote(&file));
    let t = Tmux::start("jobs", &command);
    let header = |s: &str| s.lines().next().unwrap_or("").to_owned();
    t.wait_for("the header", |s| {
        s.contains("perf-gzip-fp.txt.gz · perf script")
    });
    t.send(&["r"]);
    t.wait_for("the badge", |s| header(s).contains("⟳ bottom-up…"));
    // The old view answers keys meanwhile.
    t.send(&["j"]);
    t.wait_for("the selection to move", |s| {
        header(s).contains("⟳ bottom-up…") && s.lines().any(|l| l.starts_with("gzip"))
    });
    t.send(&["Escape"]);
    t.wait_for("the cancellation", |s| {
        s.contains("Cancelled: bottom-up") && !header(s).contains('⟳')
    });
    t.send(&["r"]);
    t.wait_for("the new view", |s| {
        header(s).contains("bottom-up │") && s.contains("bottom-up · u undoes")
    });
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn tmux_quitting_does_not_wait_for_a_job() {
    if !tmux_available() {
        return;
    }
    // A job that would take a minute, longer than the test waits for anything.
    let file = testdata(PERF);
    let command = format!("FLAMETUI_DEBUG_SLOW_JOBS=60000 {BIN} {}", quote(&file));
    let t = Tmux::start("jobs-quit", &command);
    t.wait_for("the header", |s| {
        s.contains("perf-gzip-fp.txt.gz · perf script")
    });
    t.send(&["o"]);
    t.wait_for("the badge", |s| s.contains("⟳ by weight…"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:0"));
    assert!(
        !screen.contains("icicle"),
        "alternate screen left:\n{screen}"
    );
}
