//! The Source screen (`a`): the selected frame's lines with the weight of its samples at
//! each, opened on the hottest line, from a real Go profile whose source is in testdata.

use crossterm::event::KeyCode;
use flametui::app::{App, Mode};
use flametui::source_files::{SourceCache, SourceSearch};
use flametui::view::color::ColorMode;

use crate::support::{key, marks, profile, session, testdata, text};

/// The pprof profile of `testdata/golines/main.go`, its source found under testdata.
fn app() -> App {
    let mut app = App::new(profile("pprof-lines.pb.gz"), ColorMode::Mono);
    app.sources = SourceCache::new(SourceSearch {
        dirs: vec![testdata("")],
        prefixes: Vec::new(),
    });
    app
}

/// Down to `main.work` (runtime.main → main.main → main.work), then `a`.
fn to_work() -> Vec<flametui::terminal::Input> {
    vec![
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Char('a')),
    ]
}

/// The selected row of the listing (the header and the footer are in reverse video too
/// without colours: the rows between them are looked at).
fn selected_row(buf: &ratatui::buffer::Buffer) -> String {
    let screen = text(buf);
    let marks = marks(buf);
    let rows: Vec<(&str, &str)> = screen.lines().zip(marks.lines()).collect();
    let listing = &rows[2..rows.len() - 4];
    let selected: Vec<&str> = listing
        .iter()
        .filter(|(_, m)| m.contains('S'))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(selected.len(), 1, "{screen}\n{marks}");
    selected[0].to_owned()
}

#[test]
fn source_opens_on_the_frames_hottest_line() {
    let (buf, app) = session(app(), 80, 24, to_work());
    assert_eq!(app.mode, Mode::Source);
    let screen = text(&buf);
    assert!(screen.contains("Line  main.work"), "{screen}");
    // Line 20 (the call of the inlined `square`) has the most total: 950 ms.
    let row = selected_row(&buf);
    assert!(row.contains("440 ms     950 ms     20"), "{row}");
    assert!(row.contains("s += square(uint64(i)) % 7"), "{row}");
    insta::assert_snapshot!("source_80x24", screen);
}

#[test]
fn source_at_200x50_walks_hot_lines_and_shows_shares() {
    let mut keys = to_work();
    keys.extend([key(KeyCode::Char('N')), key(KeyCode::Char('%'))]);
    let (buf, _) = session(app(), 200, 50, keys);
    let screen = text(&buf);
    // The hot line before line 20: line 19, as a share of main.work's 1.93 s.
    let row = selected_row(&buf);
    assert!(row.contains("26.94%     26.94%     19"), "{row}");
    insta::assert_snapshot!("source_200x50_shares", screen);
}

#[test]
fn esc_goes_back_and_a_format_without_lines_says_so() {
    let mut keys = to_work();
    keys.push(key(KeyCode::Esc));
    let (_, app) = session(app(), 80, 24, keys);
    assert_eq!(app.mode, Mode::Normal);
    let plain = App::new(profile("perf-two-libs.txt.gz"), ColorMode::Mono);
    let (buf, app) = session(
        plain,
        100,
        24,
        vec![key(KeyCode::Down), key(KeyCode::Char('a'))],
    );
    assert_eq!(app.mode, Mode::Normal);
    let screen = text(&buf);
    assert!(
        screen.contains("No source lines in perf script"),
        "{screen}"
    );
    // The word fits 80 columns, as every key's does.
    let stap = App::new(profile("stap-mysqld-on-off.txt"), ColorMode::Mono);
    let (buf, _) = session(
        stap,
        80,
        24,
        vec![key(KeyCode::Down), key(KeyCode::Char('a'))],
    );
    let screen = text(&buf);
    let said = screen
        .lines()
        .find(|l| l.starts_with("No source lines in SystemTap: "))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(said.ends_with("cpuprofile, speedscope"), "{said}");
}

#[test]
fn a_missing_file_still_lists_the_lines_and_says_where_it_looked() {
    let plain = App::new(profile("pprof-lines.pb.gz"), ColorMode::Mono);
    let (buf, _) = session(plain, 100, 24, to_work());
    let screen = text(&buf);
    assert!(screen.contains("golines/main.go (not found"), "{screen}");
    assert!(screen.contains("440 ms     950 ms     20"), "{screen}");
    assert!(screen.contains("looked at golines/main.go"), "{screen}");
}

/// In the bottom-up view a frame is no one frame of the profile as read: `a` lists its
/// function's lines over every frame of it, and the status line says so.
#[test]
fn in_an_inverted_view_the_functions_lines_are_listed() {
    let mut keys = vec![key(KeyCode::Char('r'))];
    // Bottom-up: the leaves are the roots; `main.square` (510 ms) is among them.
    keys.extend(crate::support::typing("/^main.square$"));
    keys.push(key(KeyCode::Enter));
    keys.push(key(KeyCode::Char('n')));
    keys.push(key(KeyCode::Char('a')));
    let (buf, app) = session(app(), 100, 30, keys);
    let screen = text(&buf);
    assert_eq!(app.mode, Mode::Source, "{screen}");
    assert!(screen.contains("Line  main.square"), "{screen}");
    assert!(screen.contains("510 ms     510 ms     12"), "{screen}");
    assert!(screen.contains("every frame of the function"), "{screen}");
}

/// After `H` (hide) the view's frames are not the profile's: a path in the view may name
/// another frame, or a part of one, as read. `a` then lists the function's lines over every
/// frame of it, and says so, rather than another frame's lines.
#[test]
fn in_a_transformed_view_the_functions_lines_are_listed() {
    let keys = vec![
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Char('H')),
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Char('a')),
    ];
    let (buf, app) = session(app(), 100, 30, keys);
    let screen = text(&buf);
    assert_eq!(app.mode, Mode::Source, "{screen}");
    assert!(screen.contains("Line  main.work"), "{screen}");
    assert!(screen.contains("every frame of the function"), "{screen}");
    assert!(screen.contains("440 ms     950 ms     20"), "{screen}");
}

/// With a time range shown, the figures are those of its samples (each keeps its stack of
/// lines), not the whole recording's: `work`'s hottest line in 0.3–0.7 s of the
/// frame-pointer srcline recording has 144 of its 394 samples (`source_slices.rs` holds
/// every figure to a load of those samples alone).
#[test]
fn source_counts_the_time_range_shown() {
    let mut app = App::new(profile("perf-srcline.txt.gz"), ColorMode::Mono);
    app.view.set_slice(flametui::profile::Slice {
        range: Some((300_000_000, 700_000_000)),
        tasks: None,
    });
    let keys = vec![
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Down),
        key(KeyCode::Char('a')),
    ];
    let (buf, app) = session(app, 100, 30, keys);
    assert_eq!(app.mode, Mode::Source);
    let screen = text(&buf);
    assert!(screen.contains("Line  work"), "{screen}");
    // The selected row (reverse video) is line 12's, with the range's figures.
    let marks = marks(&buf);
    let selected: Vec<&str> = screen
        .lines()
        .zip(marks.lines())
        .skip(3)
        .filter(|(t, m)| m.contains('S') && t.contains(" ms "))
        .map(|(t, _)| t)
        .collect();
    assert_eq!(selected.len(), 1, "{screen}\n{marks}");
    assert!(
        selected[0].contains("144 ms     144 ms     12"),
        "{}",
        selected[0]
    );
    assert!(!screen.contains("do not apply"), "{screen}");
}
