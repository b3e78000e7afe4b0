use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::effects::Effect;
use crate::app::keymap::action_for;
use crate::app::{Action, Dir, Size, update};
use crate::export::folded_lines;
use crate::input::{LoadOptions, load_reader};
use crate::view::color::ColorMode;

const STACKS: &str = "main;commit;fsync 30\nmain;flush;fsync 10\nmain;select;exec 55\nmain 5\n";

fn app() -> App {
    app_of(STACKS, "t.folded")
}

/// An 80×24 app over `text`, read as the file `name`.
pub(super) fn app_of(text: &str, name: &str) -> App {
    let p = load_reader(Cursor::new(text), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let mut app = App::new(p, ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

/// Presses keys through the keymap, as the terminal loop does (without performing
/// effects: they stay in `app.effects`).
pub(super) fn press(app: &mut App, keys: &[KeyEvent]) {
    for k in keys {
        if let Some(a) = action_for(app.mode, k) {
            update(app, a);
        }
    }
}

pub(super) fn ch(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn chars(s: &str) -> Vec<KeyEvent> {
    s.chars().map(ch).collect()
}

fn ex(app: &App) -> &Explorer {
    app.explorer().unwrap()
}

fn selected_name(app: &App) -> Option<&str> {
    match ex(app).selected {
        Target::Frame(id) if id != NodeId::ROOT => Some(ex(app).profile.tree.name(id)),
        _ => None,
    }
}

#[test]
fn every_tool_key_maps_to_its_action() {
    use ToolAction as T;
    let tool = |t: T| Some(Action::Tool(t));
    let table: &[(Mode, KeyEvent, Option<Action>)] = &[
        (Mode::Normal, ch('t'), tool(T::Table)),
        (Mode::Normal, ch('p'), tool(T::Finder)),
        (Mode::Normal, ctrl('p'), tool(T::Finder)),
        (Mode::Normal, ch('s'), tool(T::Sandwich)),
        (Mode::Normal, ch('r'), tool(T::Invert)),
        (Mode::Normal, ch('o'), tool(T::Order)),
        (Mode::Normal, ch('x'), tool(T::Exclude)),
        (Mode::Normal, ch('X'), tool(T::ExcludeRegex)),
        (Mode::Normal, ch('F'), tool(T::Focus)),
        (Mode::Normal, ch('H'), tool(T::Hide)),
        (Mode::Normal, ch('R'), tool(T::CollapseRecursion)),
        (Mode::Normal, ch('u'), tool(T::Undo)),
        (Mode::Normal, ch('e'), tool(T::Export)),
        (Mode::Normal, ch('y'), tool(T::CopyName)),
        (Mode::Normal, ch('Y'), tool(T::CopyStack)),
        (Mode::Normal, ch('f'), Some(Action::Flip)),
        (Mode::Table, ch('j'), tool(T::Step(1))),
        (Mode::Table, code(KeyCode::Up), tool(T::Step(-1))),
        (Mode::Table, code(KeyCode::PageDown), tool(T::Page(true))),
        (Mode::Table, ch('G'), tool(T::Edge(true))),
        (Mode::Table, code(KeyCode::Enter), tool(T::Accept)),
        (Mode::Table, ch('o'), tool(T::Sort)),
        (Mode::Table, ch('/'), Some(Action::SearchStart)),
        (Mode::Table, ch('s'), tool(T::Sandwich)),
        (Mode::Table, ch('y'), tool(T::CopyName)),
        (Mode::Table, ch('t'), tool(T::Close)),
        (Mode::Table, code(KeyCode::Esc), tool(T::Close)),
        (Mode::Table, ch('?'), Some(Action::ToggleHelp)),
        (Mode::Finder, ctrl('p'), tool(T::Step(-1))),
        (Mode::Finder, ctrl('n'), tool(T::Step(1))),
        (Mode::Finder, code(KeyCode::Enter), tool(T::Accept)),
        (Mode::Finder, code(KeyCode::Esc), tool(T::Close)),
        (Mode::Finder, code(KeyCode::Backspace), tool(T::Backspace)),
        (Mode::Finder, ctrl('u'), tool(T::ClearLine)),
        (Mode::Finder, ch('q'), tool(T::Type('q'))),
        (Mode::Finder, ctrl('c'), Some(Action::Quit)),
        (Mode::Sandwich, ch('h'), tool(T::Move(Dir::Left))),
        (
            Mode::Sandwich,
            code(KeyCode::Down),
            tool(T::Move(Dir::Down)),
        ),
        (Mode::Sandwich, code(KeyCode::Tab), tool(T::Pane)),
        (Mode::Sandwich, code(KeyCode::Enter), tool(T::Recenter)),
        (Mode::Sandwich, ch('y'), tool(T::CopyName)),
        (Mode::Sandwich, code(KeyCode::Esc), tool(T::Close)),
        (Mode::Prompt, ch('/'), tool(T::Type('/'))),
        (Mode::Prompt, code(KeyCode::Enter), tool(T::Accept)),
        (Mode::Prompt, code(KeyCode::Esc), tool(T::Close)),
        (Mode::Prompt, ctrl('u'), tool(T::ClearLine)),
        (Mode::Help, ch('j'), tool(T::HelpScroll(1))),
        (Mode::Help, code(KeyCode::PageUp), tool(T::HelpScroll(-10))),
    ];
    for (mode, key, want) in table {
        let got = action_for(*mode, key);
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{mode:?} {key:?}");
    }
}

#[test]
fn table_keys() {
    let mut a = app();
    press(&mut a, &[ch('t')]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Table, Screen::Table));
    let rows: Vec<&str> = ex(&a)
        .tools
        .table
        .rows
        .iter()
        .map(|f| ex(&a).profile.tree.names().resolve(f.name))
        .collect();
    assert_eq!(rows, ["exec", "fsync", "main", "select", "commit", "flush"]);
    press(&mut a, &[ch('j'), ch('G'), ch('k')]);
    assert_eq!(ex(&a).tools.table.selected, 4);
    press(&mut a, &[ch('g'), code(KeyCode::PageDown)]);
    assert_eq!(ex(&a).tools.table.selected, 5);
    press(&mut a, &[ch('o'), ch('g')]);
    assert_eq!(ex(&a).tools.table.sort, crate::app::table::SortKey::Total);
    assert_eq!(
        ex(&a).tools.table.current(),
        ex(&a).profile.tree.names().lookup("main")
    );
    press(&mut a, &[ch('j'), ch('y')]);
    assert!(matches!(&a.effects[..], [Effect::Copy { text, .. }] if text == "exec"));
    // Filter with the search; Esc in the prompt clears it, back in the table.
    press(&mut a, &[ch('/'), ch('f'), ch('s')]);
    assert_eq!(ex(&a).tools.table.rows.len(), 1);
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!(a.mode, Mode::Table);
    assert_eq!(ex(&a).tools.table.rows.len(), 6);
    press(&mut a, &[ch('s')]);
    assert_eq!(a.mode, Mode::Sandwich);
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Table, Screen::Table));
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
    press(&mut a, &[ch('t'), ch('?')]);
    assert_eq!(a.mode, Mode::Help);
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!(a.mode, Mode::Table, "the help returns to the table");
}

#[test]
fn finder_keys() {
    let mut a = app();
    press(&mut a, &[ctrl('p')]);
    assert_eq!(a.mode, Mode::Finder);
    assert_eq!(ex(&a).tools.finder.hits.len(), 6);
    press(&mut a, &chars("fxx"));
    assert!(ex(&a).tools.finder.hits.is_empty());
    press(
        &mut a,
        &[code(KeyCode::Backspace), code(KeyCode::Backspace)],
    );
    assert_eq!(ex(&a).tools.finder.query, "f");
    press(&mut a, &[ctrl('u')]);
    assert_eq!(ex(&a).tools.finder.hits.len(), 6);
    press(&mut a, &chars("sync"));
    press(&mut a, &[ctrl('n'), ctrl('p'), code(KeyCode::Enter)]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(selected_name(&a), Some("fsync"));
    let m = ex(&a).search.matches.as_ref().unwrap();
    assert_eq!((m.len(), m.weight), (2, 40));
    press(&mut a, &[ch('p'), ch('e'), code(KeyCode::Esc)]);
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn sandwich_keys() {
    let mut a = app();
    press(&mut a, &[ch('s')]);
    assert_eq!(a.mode, Mode::Normal, "nothing selected: no sandwich");
    assert!(ex(&a).tools.message.is_some());
    press(&mut a, &[ctrl('p')]);
    press(&mut a, &chars("fsync"));
    press(&mut a, &[code(KeyCode::Enter), ch('s')]);
    assert_eq!(a.mode, Mode::Sandwich);
    let s = ex(&a).tools.sandwich.as_deref().unwrap();
    assert_eq!(s.panes[0].tree.total(), 40);
    // Up in the callers pane goes to the callers; Enter centres on the caller.
    press(&mut a, &[ch('k'), ch('y')]);
    assert!(matches!(&a.effects[..], [Effect::Copy { text, .. }] if text == "commit"));
    press(&mut a, &[code(KeyCode::Enter)]);
    let s = ex(&a).tools.sandwich.as_deref().unwrap();
    assert_eq!(ex(&a).profile.tree.names().resolve(s.name), "commit");
    press(&mut a, &[code(KeyCode::Tab)]);
    assert_eq!(ex(&a).tools.sandwich.as_deref().unwrap().focus, 1);
    press(&mut a, &[ch('j')]);
    let s = ex(&a).tools.sandwich.as_deref().unwrap();
    assert_eq!(s.panes[1].selected_name(), Some("fsync"));
    press(&mut a, &[ch('s')]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
}

#[test]
fn prompt_keys_and_export() {
    let mut a = app();
    press(&mut a, &[ch('e')]);
    assert_eq!(a.mode, Mode::Prompt);
    assert_eq!(ex(&a).tools.prompt.as_ref().unwrap().text, "t.svg");
    // ⌫ edits the suggestion; typing over it replaces it.
    press(&mut a, &[code(KeyCode::Backspace)]);
    assert_eq!(ex(&a).tools.prompt.as_ref().unwrap().text, "t.sv");
    press(&mut a, &[code(KeyCode::Esc), ch('e')]);
    press(&mut a, &chars("x.svg"));
    assert_eq!(ex(&a).tools.prompt.as_ref().unwrap().text, "x.svg");
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!(a.mode, Mode::Normal);
    assert!(a.effects.is_empty() && ex(&a).tools.prompt.is_none());
    press(&mut a, &[ch('e'), ctrl('u')]);
    press(&mut a, &chars("out.folded"));
    press(&mut a, &[code(KeyCode::Enter)]);
    assert_eq!(a.mode, Mode::Normal);
    let [Effect::Write { path, bytes, .. }] = &a.effects[..] else {
        panic!("{:?}", a.effects);
    };
    assert_eq!(path.to_str(), Some("out.folded"));
    let want = folded_lines(&ex(&a).profile.tree).join("\n") + "\n";
    assert_eq!(String::from_utf8_lossy(bytes), want);
}

#[test]
fn copy_carries_the_name_or_the_stack() {
    let mut a = app();
    press(&mut a, &[ctrl('p')]);
    press(&mut a, &chars("fsync"));
    press(&mut a, &[code(KeyCode::Enter), ch('y'), ch('Y')]);
    let texts: Vec<&str> = a
        .effects
        .iter()
        .map(|e| match e {
            Effect::Copy { text, .. } => text.as_str(),
            Effect::Write { .. } | Effect::StopRecording => "",
        })
        .collect();
    assert_eq!(texts, ["fsync", "main;commit;fsync"]);
    update(&mut a, Action::Tool(ToolAction::Notify("done".into())));
    assert_eq!(ex(&a).tools.message.as_deref(), Some("done"));
    press(&mut a, &[ch('j')]);
    assert!(ex(&a).tools.message.is_none(), "a key clears the message");
}

#[test]
fn help_scroll_stays_in_range() {
    let mut a = app();
    update(&mut a, Action::Resize(80, 24));
    press(&mut a, &[ch('?'), code(KeyCode::PageUp)]);
    assert_eq!(a.help_scroll, 0);
    for _ in 0..20 {
        press(&mut a, &[code(KeyCode::PageDown)]);
    }
    let max = crate::app::keymap::help_max_scroll(
        Size {
            width: 80,
            height: 24,
        },
        false,
    );
    assert!(max > 0);
    assert_eq!(a.help_scroll, max);
    press(&mut a, &[code(KeyCode::Esc), ch('?')]);
    assert_eq!(a.help_scroll, 0, "the help opens at the top");
    update(&mut a, Action::Resize(200, 60));
    assert_eq!(
        crate::app::keymap::help_max_scroll(
            Size {
                width: 200,
                height: 60
            },
            false
        ),
        0
    );
}

#[test]
fn excluding_everything_leaves_an_empty_view_that_undo_restores() {
    let mut a = app();
    press(&mut a, &[ctrl('p')]);
    press(&mut a, &chars("main"));
    press(&mut a, &[code(KeyCode::Enter), ch('x')]);
    assert!(ex(&a).profile.tree.is_empty());
    press(
        &mut a,
        &[
            ch('j'),
            ch('t'),
            ch('t'),
            ch('y'),
            ch('s'),
            ch('r'),
            ch('o'),
        ],
    );
    press(&mut a, &[ch('e'), code(KeyCode::Enter)]);
    assert_eq!(a.mode, Mode::Prompt);
    assert_eq!(
        ex(&a).tools.message.as_deref(),
        Some("Nothing to export: the view is empty")
    );
    // u takes back the order, the bottom-up view and the exclusion, newest first.
    press(&mut a, &[code(KeyCode::Esc), ch('u'), ch('u')]);
    assert!(!a.view.inverted && a.view.order == crate::profile::order::Order::Alpha);
    assert_eq!(a.view.transforms.len(), 1);
    press(&mut a, &[ch('u')]);
    assert!(a.view.is_identity());
    assert_eq!(ex(&a).profile.tree.total(), 100);
}

/// An app over a small perf script whose frames live in three libraries.
fn perf_app() -> App {
    let text = "\
rustc 1 1.0: 5 cpu-clock: \n\t3 alloc+0x1 (/lib/libc.so.6)\n\t2 pass+0x1 (/lib/libLLVM.so)\n\t1 opt+0x1 (/lib/libLLVM.so)\n\t0 main+0x1 (/bin/rustc)\n\n\
rustc 1 1.1: 3 cpu-clock: \n\t4 typeck+0x1 (/bin/rustc)\n\t0 main+0x1 (/bin/rustc)\n\n";
    app_of(text, "p.txt")
}

#[test]
fn l_lists_libraries_and_enter_collapses_one() {
    let mut a = perf_app();
    press(&mut a, &[ch('L')]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Table, Screen::Table));
    let t = &ex(&a).tools.table;
    assert!(t.by_library && t.current().is_none());
    let tree = &ex(&a).profile.tree;
    let rows: Vec<(&str, u64, u64)> = t
        .libraries
        .iter()
        .map(|r| {
            let lib = r.lib.map_or("", |l| tree.names().library_name(l));
            (lib, r.self_weight, r.total)
        })
        .collect();
    assert_eq!(
        rows,
        [("libc.so.6", 5, 5), ("rustc", 3, 8), ("libLLVM.so", 0, 5)]
    );
    // L again: the functions; once more: the libraries.
    press(&mut a, &[ch('L')]);
    assert!(!ex(&a).tools.table.by_library);
    assert_eq!(ex(&a).tools.table.len(), ex(&a).tools.table.rows.len());
    press(&mut a, &[ch('L'), ch('G'), code(KeyCode::Enter)]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
    assert_eq!(
        folded_lines(&ex(&a).profile.tree),
        ["rustc;main;libLLVM.so;alloc 5", "rustc;main;typeck 3"]
    );
    press(&mut a, &[ch('u')]);
    assert_eq!(folded_lines(&ex(&a).profile.tree).len(), 2);
    assert!(folded_lines(&ex(&a).profile.tree)[0].contains("opt;pass"));
}

#[test]
fn l_and_c_say_why_not_on_input_without_libraries() {
    let mut a = app();
    press(&mut a, &[ch('L')]);
    assert_eq!(a.mode, Mode::Normal);
    let m = ex(&a).tools.message.clone().unwrap();
    assert!(m.contains("names no libraries"), "{m}");
    press(&mut a, &[ch('C')]);
    assert!(!a.library_colors);
    assert!(
        ex(&a)
            .tools
            .message
            .as_deref()
            .unwrap()
            .contains("no libraries")
    );
    let mut p = perf_app();
    press(&mut p, &[ch('C')]);
    assert!(p.library_colors && ex(&p).library_colors);
    press(&mut p, &[ch('C')]);
    assert!(!ex(&p).library_colors);
}
