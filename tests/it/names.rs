//! Names as the viewer shows them (issue 15): demangled by default (`d`, `--no-demangle`),
//! shortened on request (`S`, `--short-names`), with search, finder and copy following
//! what is shown; text outputs keep the input's names unless `--demangle` is given; and
//! a grey group cell names its heaviest frames.

use std::fmt::Write as _;
use std::process::Command;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use flametui::app::keymap::action_for;
use flametui::app::{Action, App, Effect, update};
use flametui::input::{LoadOptions, load_reader};
use flametui::view::color::ColorMode;
use insta::assert_snapshot;

use crate::support::{explore, key, session, testdata, text, typing};

const B0E1: &str = "stap-seed-b0e1.txt";
const DISPATCH: &str = "_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command";

fn viewer(folded: &str) -> App {
    let loaded = load_reader(folded.as_bytes(), "t.folded", &LoadOptions::default()).unwrap();
    let mut app = App::new(loaded.main().clone(), ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = if c == '\r' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        if let Some(a) = action_for(app.mode, &KeyEvent::new(code, KeyModifiers::NONE)) {
            update(app, a);
        }
    }
}

fn copied(app: &mut App) -> Vec<String> {
    std::mem::take(&mut app.effects)
        .into_iter()
        .filter_map(|e| match e {
            Effect::Copy { text, .. } => Some(text),
            Effect::Write { .. } | Effect::StopRecording => None,
        })
        .collect()
}

fn status(app: &App) -> String {
    let ex = app.explorer().unwrap();
    ex.status
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn seed_names_are_demangled_and_d_shows_them_as_read() {
    let screen = text(&explore(B0E1, 80, 24, typing("jjjjjj")));
    assert!(screen.contains("|do_command(THD*)"), "{screen}");
    assert!(!screen.contains("_Z10do_commandP3THD"), "{screen}");
    assert_snapshot!("names_demangled_80x24", screen);
    let screen = text(&explore(B0E1, 80, 24, typing("jjjjjjd")));
    assert!(screen.contains("|_Z10do_commandP3THD"), "{screen}");
    assert!(
        screen.contains("Names as read, mangled · d demangles them"),
        "{screen}"
    );
    assert_snapshot!("names_mangled_80x24", screen);
}

#[test]
fn short_names_fold_argument_lists_and_y_copies_the_whole_name() {
    let mut app = viewer(&format!("main;{DISPATCH} 5\nmain;other 1\n"));
    press(&mut app, "jjS");
    assert_eq!(
        status(&app).lines().next(),
        Some("dispatch_command(…)"),
        "{}",
        status(&app)
    );
    press(&mut app, "yY");
    assert_eq!(
        copied(&mut app),
        [
            "dispatch_command(THD*, COM_DATA const*, enum_server_command)",
            "main;dispatch_command(THD*, COM_DATA const*, enum_server_command)",
        ]
    );
    // As read: `y` copies the input's name.
    press(&mut app, "Sdy");
    assert_eq!(copied(&mut app), [DISPATCH]);
}

#[test]
fn short_names_keep_a_long_status_title_on_one_line() {
    // Without `S` the seed's dispatch_command wraps at 40 columns; with it, one line.
    let screen = text(&explore(B0E1, 80, 24, typing("jjjjjjjS")));
    assert!(screen.contains("\ndispatch_command(…)\n"), "{screen}");
    assert!(screen.contains("Short names (<…>, (…))"), "{screen}");
    assert_snapshot!("names_short_80x24", screen);
}

#[test]
fn search_and_finder_match_what_is_shown() {
    let mut app = viewer(&format!("main;{DISPATCH} 5\nmain;other 1\n"));
    press(&mut app, "/dispatch_command\\(THD\r");
    let ex = app.explorer().unwrap();
    assert_eq!(
        ex.search
            .matches
            .as_ref()
            .map(flametui::view::search::Matches::len),
        Some(1)
    );
    // Mangled again, the same query finds nothing: it is matched against the screen.
    press(&mut app, "d");
    let ex = app.explorer().unwrap();
    assert_eq!(
        ex.search
            .matches
            .as_ref()
            .map(flametui::view::search::Matches::len),
        Some(0)
    );
    press(&mut app, "d");
    // The finder ranks and shows the demangled name.
    let (buf, _) = session(
        viewer(&format!("main;{DISPATCH} 5\nmain;other 1\n")),
        80,
        24,
        typing("pdispcmdTHD"),
    );
    let screen = text(&buf);
    assert!(
        screen.contains("dispatch_command(THD*, COM_DATA const*"),
        "{screen}"
    );
    assert!(screen.contains(": 1 of "), "{screen}");
}

#[test]
fn a_demangled_name_is_still_sanitized_on_screen() {
    // Rust's legacy mangling spells any character but controls: `$u202e$` is the
    // right-to-left override, which the screen's sink escapes.
    let (buf, _) = session(viewer("main;_ZN12evil$u202e$xE 5\n"), 80, 24, typing("jj"));
    let screen = text(&buf);
    assert!(screen.contains("|evil\\u{202e}x"), "{screen}");
    assert!(!screen.contains('\u{202e}'), "{screen}");
}

#[test]
fn text_outputs_keep_the_input_names_unless_asked() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_flametui"))
            .args(extra)
            .arg(testdata(B0E1))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let folded = run(&["--export", "folded"]);
    assert!(folded.contains(";_Z10do_commandP3THD;"), "{folded}");
    let folded = run(&["--export", "folded", "--demangle"]);
    assert!(folded.contains(";do_command(THD*);"), "{folded}");
    assert!(!folded.contains("_Z10do_command"), "{folded}");
    let top = run(&["--top", "40"]);
    assert!(top.contains("_ZL27log_write_flush_to_disk_lowv"), "{top}");
    let top = run(&["--top", "40", "--demangle"]);
    assert!(top.contains("log_write_flush_to_disk_low()"), "{top}");
    // The transform flags match either spelling.
    let kept = run(&["--export", "folded", "--focus", r"^do_command\(THD\*\)$"]);
    assert!(!kept.is_empty() && kept.lines().all(|l| l.contains("_Z10do_commandP3THD")));
}

#[test]
fn a_grey_cell_names_its_heaviest_frames() {
    let mut folded = String::from("main;wide 100000\n");
    for i in 0..40 {
        writeln!(folded, "main;_ZN3app6step{i:02}Ev {}", i + 1).unwrap();
    }
    let (buf, app) = session(viewer(&folded), 80, 24, typing("jjh"));
    let screen = text(&buf);
    assert!(
        matches!(
            app.explorer().unwrap().selected,
            flametui::view::Target::Span { .. }
        ),
        "{screen}"
    );
    assert!(
        screen.contains(
            "heaviest in it: app::step39() 4.88%, app::step38() 4.76%, app::step37() 4.63%"
        ),
        "{screen}"
    );
    assert!(screen.lines().all(|l| l.chars().count() <= 80));
    assert_snapshot!("names_group_80x24", screen);
}

#[test]
fn keys_wait_for_the_graph_too() {
    // `d` pressed while loading applies once the graph is there.
    let (buf, _) = session(
        App::new(crate::support::profile(B0E1), ColorMode::Mono),
        80,
        24,
        vec![key(KeyCode::Char('d')), key(KeyCode::Char('j'))],
    );
    assert!(text(&buf).contains("_Z10do_commandP3THD"));
}

#[test]
fn the_table_sorts_by_the_names_shown() {
    // As read, `_Z1bv` sorts before `_Z3aaav`; as shown, `aaa()` comes before `b()`.
    let mut app = viewer("main;_Z1bv 1\nmain;_Z3aaav 2\n");
    press(&mut app, "too");
    let t = &app.explorer().unwrap().tools.table;
    let ex = app.explorer().unwrap();
    let shown: Vec<&str> = t.rows.iter().map(|r| ex.shown(r.name)).collect();
    assert_eq!(shown, ["aaa()", "b()", "main"]);
}

#[test]
fn d_and_s_work_in_the_tables_too() {
    let b0e0 = crate::support::profile("stap-seed-b0e0.txt");
    let app = App::compare(crate::support::profile(B0E1), b0e0, ColorMode::Mono);
    let (buf, _) = session(app, 140, 24, typing("vv"));
    assert!(text(&buf).contains("  log_write_up_to(unsigned long, bool) [off-cpu]"));
    let b0e0 = crate::support::profile("stap-seed-b0e0.txt");
    let app = App::compare(crate::support::profile(B0E1), b0e0, ColorMode::Mono);
    let (buf, _) = session(app, 140, 24, typing("vvS"));
    assert!(text(&buf).contains("  log_write_up_to(…) [off-cpu]"));
    let b0e0 = crate::support::profile("stap-seed-b0e0.txt");
    let app = App::compare(crate::support::profile(B0E1), b0e0, ColorMode::Mono);
    let (buf, _) = session(app, 140, 24, typing("vvd"));
    assert!(text(&buf).contains("  _Z15log_write_up_tomb [off-cpu]"));
    // The function table of one profile.
    let (buf, _) = session(
        App::new(crate::support::profile(B0E1), ColorMode::Mono),
        80,
        24,
        typing("td"),
    );
    let screen = text(&buf);
    assert!(screen.contains("  _Z10do_commandP3THD\n"), "{screen}");
}

#[test]
fn tmux_the_binary_demangles_toggles_and_shortens() {
    use crate::e2e::{BIN, Tmux, quote, tmux_available};
    if !tmux_available() {
        return;
    }
    let t = Tmux::start(
        "names",
        &format!("NO_COLOR=1 {BIN} {}", quote(&testdata(B0E1))),
    );
    t.wait_for("demangled names", |s| s.contains("|do_command(THD*)"));
    t.send(&["/", "log_write_flush", "Enter", "n"]);
    t.wait_for("the search matched the shown name", |s| {
        s.contains("\nlog_write_flush_to_disk_low()\n") && s.contains("Matched: on-CPU 4.10%")
    });
    t.send(&["d"]);
    t.wait_for("names as read", |s| s.contains("|_Z10do_commandP3THD"));
    t.send(&["d", "S"]);
    t.wait_for("short names", |s| s.contains("|dispatch_command(…)"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
    let t = Tmux::start(
        "names-flags",
        &format!(
            "NO_COLOR=1 {BIN} --no-demangle --short-names {}",
            quote(&testdata(B0E1))
        ),
    );
    t.wait_for("mangled at start", |s| s.contains("|_Z10do_commandP3THD"));
    t.send(&["d"]);
    t.wait_for("demangled and short", |s| s.contains("|do_command(…)"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn y_in_the_function_table_copies_the_whole_shown_name() {
    let mut app = viewer(&format!("main;{DISPATCH} 5\nmain;other 1\n"));
    press(&mut app, "tSy");
    assert_eq!(
        copied(&mut app),
        ["dispatch_command(THD*, COM_DATA const*, enum_server_command)"]
    );
}
