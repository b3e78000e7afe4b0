//! Readable at first glance (issue 15): the selection stays on screen after every jump,
//! undo restores the view before the step, keys that cannot act say why, the footer and
//! help fit 80 columns, the search remembers its queries, compare mode marks the pane keys
//! go to, and copying says what it did — sessions at 80×24 with snapshots of the new states.

use crossterm::event::KeyCode;
use flametui::app::{App, Mode};
use flametui::terminal::Input;
use flametui::view::color::ColorMode;
use insta::assert_snapshot;
use ratatui::style::Modifier;

use crate::support::{key, marks, profile, session, text};

const STAP: &str = "stap-seed-b0e1.txt";
const PERF: &str = "perf-gzip-fp.txt.gz";

/// Keys, with `\r` for Enter.
fn keys(s: &str) -> Vec<Input> {
    s.chars()
        .map(|c| match c {
            '\r' => key(KeyCode::Enter),
            c => key(KeyCode::Char(c)),
        })
        .collect()
}

fn run(file: &str, inputs: Vec<Input>) -> (String, String, App) {
    let (buf, app) = session(App::new(profile(file), ColorMode::Mono), 80, 24, inputs);
    (text(&buf), marks(&buf), app)
}

/// The selected frame is on a graph row, and that row is drawn selected.
fn assert_selection_drawn(app: &App, marks: &str) {
    let ex = app.explorer().unwrap();
    let depth = ex.selected.depth(&ex.index);
    let y = ex.screen_y(depth).unwrap_or_else(|| {
        panic!(
            "selection at depth {depth}, rows {}..{} drawn",
            ex.scroll,
            ex.scroll + ex.graph_rows()
        )
    });
    let row = marks.lines().nth(usize::from(y)).unwrap();
    assert!(
        row.contains('S') || row.contains('B'),
        "row {y} not drawn selected:\n{marks}"
    );
}

// ---- 1. the selection stays on screen ---------------------------------------------------

#[test]
fn next_match_scrolls_to_the_selection_after_the_status_grows() {
    let (screen, marks, app) = run(STAP, keys("/log_write_flush\rn"));
    assert_selection_drawn(&app, &marks);
    assert_snapshot!("next_match_deep_80x24", screen);
    let (_, marks, app) = run(STAP, keys("/log_write_flush\rnn"));
    assert_selection_drawn(&app, &marks);
}

#[test]
fn finder_and_table_enter_show_the_selection() {
    let (_, marks, app) = run(STAP, keys("plogwriteflushtodisk\r"));
    assert_selection_drawn(&app, &marks);
    let (_, marks, app) = run(STAP, keys("pfsposix\r"));
    assert_selection_drawn(&app, &marks);
    let mut table = keys("t/os_file_fsync");
    table.push(key(KeyCode::Enter));
    table.push(key(KeyCode::Enter));
    let (_, marks, app) = run(STAP, table);
    assert_eq!(app.mode, Mode::Normal);
    assert_selection_drawn(&app, &marks);
}

#[test]
fn compare_finder_enter_shows_the_selection_in_its_pane() {
    let app = App::compare(
        profile("perf-dd-nosync.txt.gz"),
        profile("perf-dd-fsync.txt.gz"),
        ColorMode::Mono,
    );
    let (buf, app) = session(app, 80, 24, keys("pfsyncnojour\r"));
    assert_selection_drawn(&app, &marks(&buf));
}

// ---- 2. undo restores the view before the step -------------------------------------------

#[test]
fn undo_does_not_replay_toggles() {
    // A frame selected, so that F and H act: r r is a detour back to the profile as read.
    let (_, _, app) = run(PERF, keys("jjjrroFHuuuu"));
    let ex = app.explorer().unwrap();
    assert!(
        ex.tools.applied.is_identity(),
        "{}",
        ex.tools.applied.summary()
    );
    assert_eq!(ex.tools.message.as_deref(), Some("Nothing to undo"));
    // Three u: focus, hide and the order undone, in that order.
    let (_, _, app) = run(PERF, keys("jjjrroFHu"));
    let applied = &app.explorer().unwrap().tools.applied;
    assert_eq!(applied.summary(), "focus [gzip] › by weight");
    let (_, _, app) = run(PERF, keys("jjjrroFHuu"));
    assert_eq!(app.explorer().unwrap().tools.applied.summary(), "by weight");
    // The selection comes back too: H hid the selected function (the root was selected
    // then); u selects it again.
    let selected = |app: &App| {
        let ex = app.explorer().unwrap();
        ex.profile
            .tree
            .name(match ex.selected {
                flametui::view::Target::Frame(id) => id,
                flametui::view::Target::Span { .. } => panic!("a group is selected"),
            })
            .to_owned()
    };
    let (_, _, app) = run(PERF, keys("jjjH"));
    assert_eq!(selected(&app), "all");
    let (_, _, app) = run(PERF, keys("jjjHu"));
    assert_eq!(selected(&app), "[gzip]");
}

// ---- 4. every key acts or says why not, in a line that fits -----------------------------

fn ctrl_u() -> Input {
    Input::Event(crossterm::event::Event::Key(
        crossterm::event::KeyEvent::new(
            KeyCode::Char('u'),
            crossterm::event::KeyModifiers::CONTROL,
        ),
    ))
}

fn export_to(path: &std::path::Path) -> Vec<Input> {
    let mut v = keys("e");
    v.push(ctrl_u());
    v.extend(keys(path.to_str().unwrap()));
    v.push(key(KeyCode::Enter));
    v
}

/// The line under the status area (messages, search results).
fn message_line(app: &App, screen: &str) -> String {
    let y = app.explorer().unwrap().areas.search.y;
    screen.lines().nth(usize::from(y)).unwrap().to_owned()
}

#[test]
fn transforms_on_the_root_say_why_not() {
    for k in ["F", "H", "x"] {
        let (screen, _, app) = run(PERF, keys(k));
        assert!(app.explorer().unwrap().tools.applied.is_identity());
        assert!(
            message_line(&app, &screen).starts_with("Select a frame first"),
            "{k}: {screen}"
        );
    }
}

#[test]
fn freezing_a_file_says_there_is_nothing_to_freeze() {
    let (screen, _, app) = run(PERF, keys("jz"));
    assert!(!app.frozen);
    assert!(
        message_line(&app, &screen).starts_with("Nothing to freeze"),
        "{screen}"
    );
    // The header keeps its breadcrumbs (no frozen badge over them).
    assert!(
        !screen.lines().next().unwrap().contains("frozen"),
        "{screen}"
    );
    assert_snapshot!("freeze_a_file_80x24", screen);
}

#[test]
fn export_asks_before_replacing_a_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-readable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a-rather-long-directory-name-for-the-export/out.folded");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "keep me\n").unwrap();
    let (screen, _, app) = run(PERF, export_to(&path));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
    assert_eq!(app.mode, Mode::Prompt);
    let line = message_line(&app, &screen);
    assert!(line.contains(" exists · Enter replaces it"), "{screen}");
    assert!(line.chars().count() <= 80);
    // Enter again replaces it, and the report fits the line.
    let mut again = export_to(&path);
    again.push(key(KeyCode::Enter));
    let (screen, _, app) = run(PERF, again);
    assert_ne!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
    let line = message_line(&app, &screen);
    assert!(
        line.starts_with("Wrote ") && line.ends_with(" bytes"),
        "{screen}"
    );
    assert!(line.contains("out.folded: "), "{line}");
    // Editing the name asks again for the new name, and writes a new file at once.
    let other = path.with_file_name("new.svg");
    let _ = std::fs::remove_file(&other);
    let (screen, _, app) = run(PERF, export_to(&other));
    assert!(
        message_line(&app, &screen).starts_with("Wrote "),
        "{screen}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- 11. search history --------------------------------------------------------------

#[test]
fn search_reopens_with_the_previous_query_and_walks_the_history() {
    let (_, _, app) = run(PERF, keys("/chacha\r/"));
    let ex = app.explorer().unwrap();
    assert_eq!(app.mode, Mode::Search);
    assert_eq!(ex.search.query, "chacha");
    assert!(ex.search.suggested);
    // Typing replaces the query put back; ⌫ edits it.
    let (_, _, app) = run(PERF, keys("/chacha\r/read"));
    assert_eq!(app.explorer().unwrap().search.query, "read");
    let mut edit = keys("/chacha\r/");
    edit.push(key(KeyCode::Backspace));
    edit.extend(keys("_x"));
    let (_, _, app) = run(PERF, edit);
    assert_eq!(app.explorer().unwrap().search.query, "chach_x");
    // After Esc, `/` brings the last query back; ↑ and ↓ walk the older ones.
    let walk = |more: &[KeyCode]| {
        let mut v = keys("/chacha\r/read\r");
        v.push(key(KeyCode::Esc));
        v.extend(keys("/"));
        v.extend(more.iter().map(|&c| key(c)));
        run(PERF, v)
    };
    let query = |app: &App| app.explorer().unwrap().search.query.clone();
    assert_eq!(query(&walk(&[]).2), "read");
    let (screen, _, app) = walk(&[KeyCode::Up]);
    assert_eq!(query(&app), "chacha");
    assert_snapshot!("search_history_80x24", screen);
    assert_eq!(query(&walk(&[KeyCode::Up, KeyCode::Up]).2), "chacha");
    assert_eq!(query(&walk(&[KeyCode::Up, KeyCode::Down]).2), "read");
    assert_eq!(
        query(&walk(&[KeyCode::Up, KeyCode::Down, KeyCode::Down]).2),
        ""
    );
}

// ---- 13. copy says what it did, no more ---------------------------------------------------

#[test]
fn copy_says_the_name_was_sent_as_osc52() {
    let (screen, _, app) = run(STAP, keys("/log_write_flush\rny"));
    let line = message_line(&app, &screen);
    assert!(
        line.starts_with("Sent \"log_write_flush_to_disk…\" to the terminal as OSC 52"),
        "{line}"
    );
    assert!(!line.contains("Copied"), "{line}");
    assert!(line.chars().count() <= 80, "{line}");
    let (screen, _, app) = run(STAP, keys("/log_write_flush\rnY"));
    let line = message_line(&app, &screen);
    assert!(
        line.starts_with("Sent the stack of 19 frames to the terminal"),
        "{line}"
    );
}

// ---- 10. footer and help at 80 columns ----------------------------------------------------

#[test]
fn the_footer_at_80_columns_keeps_the_tools() {
    let (screen, _, _) = run(PERF, Vec::new());
    let footer = screen.lines().last().unwrap();
    for hint in [
        "t table",
        "p find",
        "s callers",
        "/ search",
        "? help",
        "q quit",
    ] {
        assert!(footer.contains(hint), "{hint}: {footer}");
    }
}

#[test]
fn the_help_at_80x24_cuts_no_entry() {
    // Page through the whole help: no entry ends in `…`, and every help text shows.
    let mut seen = String::new();
    for pages in 0..8 {
        let mut inputs = keys("?");
        inputs.extend((0..pages).map(|_| key(KeyCode::PageDown)));
        let (screen, _, _) = run(PERF, inputs);
        assert!(!screen.contains('…'), "{screen}");
        seen.push_str(&screen);
        if pages == 7 {
            assert_snapshot!("help_end_80x24", screen);
        }
    }
    let flat: String = seen.split_whitespace().collect::<Vec<_>>().join(" ");
    for (_, rows) in flametui::app::keymap::help_sections() {
        for (_, help) in rows {
            let first = help.split(' ').next().unwrap();
            assert!(flat.contains(first), "{help}");
        }
    }
}

// ---- 12. compare mode at 80×24 ------------------------------------------------------------

fn compare_seed(colors: ColorMode, inputs: Vec<Input>) -> (ratatui::buffer::Buffer, App) {
    let app = App::compare(profile(STAP), profile("stap-seed-b0e0.txt"), colors);
    session(app, 80, 24, inputs)
}

/// The first cell showing `name`, as (x, y).
fn find_cell(buf: &ratatui::buffer::Buffer, name: &str) -> (u16, u16) {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let row: String = (area.left()..area.right())
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        if let Some(i) = row.find(name) {
            return (u16::try_from(row[..i].chars().count()).unwrap(), y);
        }
    }
    panic!("{name} not on screen");
}

#[test]
fn compare_marks_the_pane_keys_go_to_and_uses_every_row() {
    let (buf, _) = compare_seed(ColorMode::Mono, keys("jjj"));
    let screen = text(&buf);
    // The pane labels (at 80 columns the top line gives its room to the sample counts).
    let labels: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("stap-seed-b0e") && l.contains("SystemTap"))
        .collect();
    assert!(labels[0].starts_with("   BEFORE"), "{screen}");
    assert!(labels[1].starts_with(" ▶ AFTER"), "{screen}");
    assert_snapshot!("compare_active_pane_80x24", screen);
    let mut tab = keys("jjj");
    tab.push(key(KeyCode::Tab));
    let (buf, app) = compare_seed(ColorMode::Mono, tab);
    let screen = text(&buf);
    assert!(
        screen.contains(" ▶ BEFORE") && screen.contains("   AFTER"),
        "{screen}"
    );
    // The two panes and their titles fill the rows between the top line and the status.
    let cmp = app.comparison().unwrap();
    let (b, a) = (cmp.before.areas.graph, cmp.after.areas.graph);
    let status = cmp.driver().areas.status;
    assert_eq!(
        usize::from(b.height + a.height + 2 + 1),
        usize::from(status.y)
    );
}

#[test]
fn a_search_in_the_differential_view_keeps_the_change_colours() {
    let mode = ColorMode::TrueColor;
    let name = "mysql_execute_command(";
    let (plain, _) = compare_seed(mode, keys("v"));
    let (searched, _) = compare_seed(mode, keys("v/mysql_execute\r"));
    let (x, y) = find_cell(&plain, name);
    assert_eq!(find_cell(&searched, name), (x, y));
    assert_eq!(
        plain[(x, y)].bg,
        searched[(x, y)].bg,
        "the blue of the shrunk frame stays"
    );
    let m = searched[(x + 2, y)].modifier;
    assert!(m.contains(Modifier::UNDERLINED) && m.contains(Modifier::BOLD));
}

// ---- the real binary in tmux at 80×24 -------------------------------------------------

#[test]
fn tmux_jump_shows_the_selection_and_search_remembers() {
    use crate::e2e::{BIN, Tmux, quote, tmux_available};
    if !tmux_available() {
        return;
    }
    let file = crate::support::testdata(STAP);
    let t = Tmux::start("readable", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the graph", |s| {
        s.contains("stap-seed-b0e1.txt · SystemTap")
    });
    t.send(&["/", "log_write_flush", "Enter", "n"]);
    // The frame is drawn on a graph row, besides being named in the status.
    let screen = t.wait_for("the match on screen", |s| {
        s.contains("selection is #1") && s.matches("log_write_flush_to").count() >= 2
    });
    let footer = screen.lines().rfind(|l| !l.trim().is_empty()).unwrap();
    for hint in ["t table", "p find", "s callers"] {
        assert!(footer.contains(hint), "{footer}");
    }
    // Esc clears the search (a key sent right after it would read as Alt-key).
    t.send(&["Escape"]);
    t.wait_for("the search cleared", |s| !s.contains("selection is #1"));
    t.send(&["/"]);
    t.wait_for("the last query back", |s| s.contains("/log_write_flush"));
    t.send(&["Enter", "n", "y"]);
    t.wait_for("the copy report", |s| {
        s.contains("to the terminal as OSC 52")
    });
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}
