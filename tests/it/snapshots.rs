//! Whole frames after scripted sessions, at 80×24 and 160×45, without colour (selection and
//! matches are checked separately with `marks`). Review changes with `cargo insta review`.

use crossterm::event::{KeyCode, MouseEventKind};
use flametui::app::{App, Progress};
use flametui::terminal::Input;
use flametui::view::color::ColorMode;
use insta::assert_snapshot;

use crate::support::{explore, key, marks, mouse, profile, session, text, typing};

const PERF: &str = "perf-gzip-fp.txt.gz";
const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

fn each_size(name: &str, file: &str, script: impl Fn() -> Vec<Input>) {
    for (w, h) in SIZES {
        let buf = explore(file, w, h, script());
        assert_snapshot!(format!("{name}_{w}x{h}"), text(&buf));
    }
}

#[test]
fn open() {
    each_size("open", PERF, Vec::new);
}

#[test]
fn move_down_and_across() {
    each_size("move", PERF, || typing("jjjl"));
}

#[test]
fn zoom_into_a_frame() {
    each_size("zoom", PERF, || {
        let mut keys = typing("jjj");
        keys.push(key(KeyCode::Enter));
        keys
    });
}

#[test]
fn search_and_jump() {
    each_size("search", PERF, || {
        let mut keys = typing("/chacha");
        keys.push(key(KeyCode::Enter));
        keys.extend(typing("n"));
        keys
    });
}

#[test]
fn help_overlay() {
    each_size("help", PERF, || typing("?"));
}

#[test]
fn search_marks_matches_and_selection() {
    let mut keys = typing("/chacha");
    keys.push(key(KeyCode::Enter));
    keys.extend(typing("n"));
    let buf = explore(PERF, 80, 24, keys);
    assert_snapshot!("search_marks_80x24", marks(&buf));
}

#[test]
fn flame_orientation() {
    let buf = explore(PERF, 80, 24, typing("fkk"));
    assert_snapshot!("flame_80x24", text(&buf));
}

#[test]
fn off_cpu_stap() {
    let buf = explore("stap-mysqld-on-off.txt", 80, 24, typing("j"));
    assert_snapshot!("stap_80x24", text(&buf));
}

#[test]
fn invalid_regex_shows_its_error() {
    let buf = explore(PERF, 80, 24, typing("/a(b"));
    assert_snapshot!("bad_regex_80x24", text(&buf));
}

#[test]
fn hover_tooltip() {
    let buf = explore(PERF, 80, 24, vec![mouse(MouseEventKind::Moved, 10, 3)]);
    assert_snapshot!("hover_80x24", text(&buf));
}

#[test]
fn loading_progress() {
    let app = App::loading("big.txt", ColorMode::Mono);
    let progress = Progress {
        bytes: 47_500_000,
        total: Some(190_000_000),
        elapsed: std::time::Duration::from_millis(500),
        idle: std::time::Duration::ZERO,
    };
    let (buf, _) = session(app, 80, 24, vec![Input::Progress(progress)]);
    assert_snapshot!("loading_80x24", text(&buf));
}

/// A pipe that has said nothing for seconds says why a perf record pipe may (its buffers).
#[test]
fn loading_a_silent_pipe_says_why() {
    let app = App::loading("<stdin>", ColorMode::Mono);
    let progress = Progress {
        bytes: 3_500,
        total: None,
        elapsed: std::time::Duration::from_secs(8),
        idle: std::time::Duration::from_secs(7),
    };
    let (buf, _) = session(app, 80, 24, vec![Input::Progress(progress)]);
    let screen = text(&buf);
    assert!(screen.contains("nothing new for 7 s"), "{screen}");
    assert!(screen.contains("--no-buffering"), "{screen}");
    assert_snapshot!("loading_silent_pipe_80x24", screen);
}

#[test]
fn too_small() {
    let buf = explore(PERF, 24, 6, typing("jj"));
    assert_snapshot!("too_small", text(&buf));
}

#[test]
fn resize_reflows_and_odd_sizes_do_not_panic() {
    let app = App::new(profile(PERF), ColorMode::TrueColor);
    let mut inputs = Vec::new();
    for (w, h) in [(1, 1), (30, 8), (0, 0), (200, 60), (80, 24)] {
        inputs.push(Input::Event(crossterm::event::Event::Resize(w, h)));
        inputs.extend(typing("jjl"));
        inputs.push(key(KeyCode::Enter));
    }
    let (_, app) = session(app, 80, 24, inputs);
    assert_eq!(app.explorer().unwrap().areas.graph.width, 80);
}

#[test]
fn colour_modes_render() {
    for mode in [ColorMode::TrueColor, ColorMode::Ansi256, ColorMode::Ansi16] {
        let app = App::new(profile("stap-mysqld-on-off.txt"), mode);
        let (buf, _) = session(app, 80, 24, typing("/poll\rn"));
        let row = &buf[(0, 2)];
        assert_ne!(row.bg, ratatui::style::Color::Reset, "{mode:?}");
    }
}

#[test]
fn quit_key_ends_the_loop() {
    let app = App::new(profile(PERF), ColorMode::Mono);
    let (_, app) = session(app, 80, 24, typing("qjjj"));
    assert!(app.quit);
    assert_eq!(
        app.explorer().unwrap().selected,
        flametui::view::Target::Frame(flametui::profile::NodeId::ROOT)
    );
}

/// A bracketed paste far past the cap: one edit, cut at 4 KiB, and the status line says
/// so; the export prompt shows the end of its cut text.
#[test]
fn a_long_paste_is_cut_and_says_so() {
    let paste = |text: String| Input::Event(crossterm::event::Event::Paste(text));
    let mut keys = typing("/");
    keys.push(paste("chacha\n".repeat(150_000)));
    let buf = explore(PERF, 80, 24, keys);
    assert_snapshot!("paste_search_80x24", text(&buf));
    let mut keys = typing("e");
    keys.push(paste(format!("{}/end.svg", "dir/".repeat(300_000))));
    let buf = explore(PERF, 80, 24, keys);
    assert_snapshot!("paste_export_80x24", text(&buf));
}
