//! The heat map screen (`T`): frames at two sizes, a range picked with the keyboard and
//! with the mouse becomes the view's slice (header breadcrumb and totals follow it),
//! search highlights cells, input without timestamps says why there is no map.

use crossterm::event::{KeyCode, MouseButton, MouseEventKind};
use insta::assert_snapshot;

use crate::support::{explore, key, marks, mouse, profile, session, text, typing};
use flametui::app::App;
use flametui::profile::slice::{Slice, slice_tree};
use flametui::terminal::Input;
use flametui::view::color::ColorMode;
use ratatui::buffer::Buffer;

/// 5 s, a cron spike in [1.5, 1.7) and a server stall in [3.0, 3.4): see testdata/README.md.
const TIMELINE: &str = "perf-timeline.txt.gz";

/// A session of the generated timeline recording at `w`×`h`, without colour.
fn timeline_session(w: u16, h: u16, inputs: Vec<Input>) -> (Buffer, App) {
    session(App::new(profile(TIMELINE), ColorMode::Mono), w, h, inputs)
}

#[test]
fn heat_map_80x24() {
    assert_snapshot!("heat_80x24", text(&explore(TIMELINE, 80, 24, typing("T"))));
}

#[test]
fn heat_map_200x50() {
    assert_snapshot!(
        "heat_200x50",
        text(&explore(TIMELINE, 200, 50, typing("T")))
    );
}

/// The header's first line.
fn header(buf: &ratatui::buffer::Buffer) -> String {
    text(buf).lines().next().unwrap_or_default().to_owned()
}

#[test]
fn a_range_marked_with_keys_is_the_graph_shown() {
    // 200×50: 20 ms rows. Column 1 (second 1), rows 25..=34: [1.5, 1.7), the cron spike.
    let mut inputs = typing("T");
    inputs.extend(typing("l"));
    inputs.extend(typing(&"j".repeat(25)));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.push(key(KeyCode::Enter));
    let (buf, app) = timeline_session(200, 50, inputs);
    let head = header(&buf);
    assert!(head.contains("1.50–1.70 s"), "{head}");
    // The graph and its totals are those of the slice: 10 cells × (5 server + 2 worker
    // + 20 cron) samples.
    let p = profile(TIMELINE);
    let want = slice_tree(
        &p.tree,
        &p.samples,
        &Slice {
            range: Some((1_500_000_000, 1_700_000_000)),
            tasks: None,
        },
    );
    let ex = app.explorer().unwrap();
    assert_eq!(ex.profile.tree.total(), want.total());
    assert_eq!(
        ex.profile
            .tree
            .node(flametui::profile::NodeId::ROOT)
            .samples,
        270
    );
    assert!(text(&buf).contains("cron"), "{}", text(&buf));
    // The timeline strip under the header marks the range: 0.2 s of 5 s on 194 columns.
    let strip = marks(&buf).lines().nth(1).unwrap_or_default().to_owned();
    let marked: Vec<usize> = strip.match_indices('S').map(|(i, _)| i).collect();
    assert!((8..=9).contains(&marked.len()), "{strip}");
    assert!(marked.windows(2).all(|w| w[1] == w[0] + 1), "{strip}");
    let first_bin = (marked[0] - 6) as f64;
    assert!((first_bin / 194.0 * 5.0 - 1.5).abs() < 0.03, "{strip}");
    // u brings the whole recording back.
    let mut inputs = typing("T");
    inputs.extend(typing("l"));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.push(key(KeyCode::Enter));
    inputs.extend(typing("u"));
    let (buf, app) = timeline_session(200, 50, inputs);
    assert!(!header(&buf).contains(" s │"), "{}", header(&buf));
    assert_eq!(
        app.explorer()
            .unwrap()
            .profile
            .tree
            .node(flametui::profile::NodeId::ROOT)
            .samples,
        1850
    );
}

#[test]
fn a_range_dragged_with_the_mouse_is_marked() {
    // 200×50: the grid starts at column 6, line 2 (header, legend); rows are 20 ms.
    let mut inputs = typing("T");
    inputs.push(mouse(MouseEventKind::Down(MouseButton::Left), 6 + 24, 2));
    inputs.push(mouse(MouseEventKind::Drag(MouseButton::Left), 6 + 24, 6));
    inputs.push(mouse(MouseEventKind::Up(MouseButton::Left), 6 + 24, 6));
    let (buf, app) = timeline_session(200, 50, inputs);
    let ex = app.explorer().unwrap();
    let heat = ex.tools.heat.as_ref().unwrap();
    let grid = heat.grid.as_ref().unwrap();
    // The column under x = 30 and rows 0..=8 of its second.
    let col = grid.column_at(24).unwrap();
    let second = grid.scale.second(col) * 1_000_000_000;
    assert_eq!(heat.range, Some((second, second + 9 * grid.row_ns)));
    assert!(text(&buf).contains("range"), "{}", text(&buf));
}

#[test]
fn search_marks_the_cells_with_matching_samples() {
    let mut inputs = typing("T/sha256");
    inputs.push(key(KeyCode::Enter));
    let buf = explore(TIMELINE, 200, 50, inputs);
    let m = marks(&buf);
    // Only the spike's cells (second 1, 1.5–1.7 s: lines 2 + 25/2 .. 2 + 34/2) hold cron.
    let lines: Vec<usize> = m
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains('M') || l.contains('B'))
        .map(|(i, _)| i)
        .collect();
    assert!(!lines.is_empty(), "{}", text(&buf));
    assert!(
        lines.iter().all(|&i| (2 + 12..=2 + 17).contains(&i)),
        "{lines:?}\n{m}"
    );
}

#[test]
fn input_without_timestamps_has_no_heat_map() {
    let buf = explore("folded-small.txt", 80, 24, typing("T"));
    assert!(text(&buf).contains("No timeline"), "{}", text(&buf));
}

#[test]
fn two_ranges_compared_name_the_spike_and_t_comes_back() {
    // Baseline [0.5, 0.7) (no cron), range [1.5, 1.7) (the cron spike): 20 ms rows.
    let mut inputs = typing("T");
    inputs.extend(typing(&"j".repeat(25)));
    inputs.extend(typing(" "));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.extend(typing(" b"));
    inputs.extend(typing("l"));
    inputs.extend(typing(&"k".repeat(9)));
    inputs.extend(typing(" "));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.extend(typing(" c"));
    inputs.extend(typing("vv"));
    let (buf, app) = timeline_session(200, 50, inputs);
    let screen = text(&buf);
    assert!(screen.contains("[0.50–0.70 s] → "), "{screen}");
    assert!(screen.contains("[1.50–1.70 s]"), "{screen}");
    // The delta table's first rows are the spike's functions (cron's job, all new).
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.trim_start().starts_with(['+', '-']))
        .collect();
    assert!(
        rows[0].contains("run_job") && rows[1].contains("sha256_block"),
        "{screen}"
    );
    assert!(rows[1].trim_start().starts_with("+33.33"), "{screen}");
    assert!(matches!(app.phase, flametui::app::Phase::Compare(_)));
    // T: back on the recording's heat map, with both ranges kept.
    let mut back = inputs_again();
    back.extend(typing("T"));
    let (buf, app) = timeline_session(200, 50, back);
    assert!(
        text(&buf).contains("baseline 0.50–0.70 s"),
        "{}",
        text(&buf)
    );
    assert_eq!(app.mode, flametui::app::Mode::Heat);
}

/// The keys of the comparison above, up to `c`.
fn inputs_again() -> Vec<flametui::terminal::Input> {
    let mut inputs = typing("T");
    inputs.extend(typing(&"j".repeat(25)));
    inputs.extend(typing(" "));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.extend(typing(" bl"));
    inputs.extend(typing(&"k".repeat(9)));
    inputs.extend(typing(" "));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.extend(typing(" c"));
    inputs
}

/// Shift and an arrow, as the terminal reports it.
fn shifted(code: KeyCode) -> flametui::terminal::Input {
    flametui::terminal::Input::Event(crossterm::event::Event::Key(
        crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::SHIFT),
    ))
}

#[test]
fn big_steps_pick_a_range_in_few_keys() {
    // [1.5, 1.7) again: a second on, five tenths down, mark, two tenths, a row back, mark.
    let mut inputs = typing("T");
    inputs.push(shifted(KeyCode::Right));
    inputs.extend(typing("JJJJJ "));
    inputs.push(shifted(KeyCode::Down));
    inputs.extend(typing("Jk "));
    assert!(inputs.len() < 15, "{} keys", inputs.len());
    inputs.push(key(KeyCode::Enter));
    let (buf, _) = timeline_session(200, 50, inputs);
    let head = header(&buf);
    assert!(head.contains("1.50–1.70 s"), "{head}");
}

#[test]
fn a_typed_range_is_marked_and_enter_shows_it() {
    let typed = || {
        let mut inputs = typing("T:1.5,1.7");
        inputs.push(key(KeyCode::Enter));
        inputs
    };
    let (buf, app) = timeline_session(200, 50, typed());
    let marked = app.explorer().unwrap().tools.heat.as_ref().unwrap().range;
    assert_eq!(marked, Some((1_500_000_000, 1_700_000_000)));
    assert_snapshot!("heat_typed_range_200x50", text(&buf));
    let mut inputs = typed();
    inputs.push(key(KeyCode::Enter));
    let (buf, _) = timeline_session(200, 50, inputs);
    let head = header(&buf);
    assert!(head.contains("1.50–1.70 s"), "{head}");
}

#[test]
fn a_bad_typed_range_says_why_and_esc_cancels() {
    let typed = || {
        let mut inputs = typing("T:1.7,1.5");
        inputs.push(key(KeyCode::Enter));
        inputs
    };
    let (buf, app) = timeline_session(80, 24, typed());
    let screen = text(&buf);
    assert!(
        screen.contains("The end (1.5) is not after the start (1.7)"),
        "{screen}"
    );
    assert_eq!(
        app.mode,
        flametui::app::Mode::Prompt,
        "the text can be fixed"
    );
    let mut inputs = typed();
    inputs.push(key(KeyCode::Esc));
    let (_, app) = timeline_session(80, 24, inputs);
    assert_eq!(app.mode, flametui::app::Mode::Heat);
    let heat = app.explorer().unwrap().tools.heat.as_ref().unwrap();
    assert_eq!(heat.range, None);
}
