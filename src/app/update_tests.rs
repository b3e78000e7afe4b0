use std::fmt::Write as _;
use std::io::Cursor;
use std::time::Duration;

use super::*;
use crate::app::{Dir, Explorer, Progress};
use crate::input::{LoadOptions, load_reader};
use crate::profile::{NodeId, Profile};
use crate::view::color::ColorMode;
use crate::view::{CellKind, Target};

fn profile(text: &str) -> Profile {
    load_reader(Cursor::new(text), "t.folded", &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

fn app(text: &str) -> App {
    let mut app = App::new(profile(text), ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

fn ex(app: &App) -> &Explorer {
    app.explorer().unwrap()
}

fn id(app: &App, path: &str) -> NodeId {
    let t = &ex(app).profile.tree;
    path.split(';')
        .fold(NodeId::ROOT, |at, n| t.child_named(at, n).unwrap())
}

fn run(app: &mut App, actions: impl IntoIterator<Item = Action>) {
    for a in actions {
        update(app, a);
    }
}

const SMALL: &str = "main;parse;lex 30\nmain;eval 60\nmain 5\nidle 5\n";

#[test]
fn opens_on_the_root() {
    let a = app(SMALL);
    let e = ex(&a);
    assert_eq!(e.selected, Target::Frame(NodeId::ROOT));
    assert_eq!(e.selected_cell, Some((0, 0)));
    assert_eq!(e.areas.graph.width, 80);
    assert!(e.layout.rows.len() >= 4);
    assert_eq!(e.status[0].text, "all");
}

#[test]
fn keys_move_by_screen_direction() {
    let mut a = app(SMALL);
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main;eval")));
    run(&mut a, [Action::Move(Dir::Right)]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main;parse")));
    run(&mut a, [Action::Move(Dir::Right), Action::Move(Dir::Up)]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main")));
    run(&mut a, [Action::Flip, Action::Move(Dir::Up)]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main;eval")));
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    assert_eq!(ex(&a).selected, Target::Frame(NodeId::ROOT));
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Left)]);
    assert_eq!(ex(&a).selected, Target::Frame(NodeId::ROOT));
}

#[test]
fn zoom_back_forward_reset() {
    let mut a = app(SMALL);
    let parse = id(&a, "main;parse");
    ex_mut(&mut a).selected = Target::Frame(parse);
    run(&mut a, [Action::Zoom]);
    let e = ex(&a);
    assert_eq!(e.zoom.root, parse);
    let row = e.layout.row(2).unwrap();
    assert_eq!((row.cells[0].x0, row.cells[0].x1), (0, 80));
    assert_eq!(e.layout.row(1).unwrap().cells[0].x1, 80, "ancestors stay");
    run(&mut a, [Action::Back]);
    assert_eq!(ex(&a).zoom.root, NodeId::ROOT);
    assert_eq!(ex(&a).selected, Target::Frame(parse), "selection kept");
    run(&mut a, [Action::Forward]);
    assert_eq!(ex(&a).zoom.root, parse);
    run(&mut a, [Action::Reset, Action::Back]);
    assert_eq!(ex(&a).zoom.root, parse);
    run(&mut a, [Action::Escape]);
    assert_eq!(ex(&a).zoom.root, NodeId::ROOT);
}

fn ex_mut(app: &mut App) -> &mut Explorer {
    match &mut app.phase {
        Phase::Ready(e) => e,
        _ => panic!("not loaded"),
    }
}

#[test]
fn search_is_live_and_survives_bad_regexes() {
    let mut a = app(SMALL);
    run(&mut a, [Action::SearchStart]);
    assert_eq!(a.mode, Mode::Search);
    run(&mut a, "pa(".chars().map(Action::SearchType));
    let s = &ex(&a).search;
    assert_eq!(s.error.as_deref(), Some("unclosed group"));
    assert!(s.matches.is_none());
    run(&mut a, [Action::SearchDelete, Action::SearchDelete]);
    let m = ex(&a).search.matches.as_ref().unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.weight, 30);
    run(&mut a, [Action::SearchAccept]);
    assert_eq!(a.mode, Mode::Normal);
    run(&mut a, [Action::NextMatch]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main;parse")));
    run(&mut a, [Action::Escape]);
    assert!(!ex(&a).search.is_active());
}

#[test]
fn case_toggle_reruns_the_search() {
    let mut a = app(SMALL);
    run(&mut a, [Action::SearchStart]);
    run(&mut a, "MAIN".chars().map(Action::SearchType));
    assert!(ex(&a).search.matches.as_ref().unwrap().is_empty());
    run(&mut a, [Action::ToggleCase]);
    assert_eq!(ex(&a).search.matches.as_ref().unwrap().len(), 1);
    run(&mut a, [Action::SearchCancel]);
    assert!(ex(&a).search.ignore_case);
    assert!(!ex(&a).search.is_active());
}

#[test]
fn next_match_zooms_to_reveal_a_narrow_frame() {
    let mut a = app("big;work 100000\nbig;tiny;needle 1\n");
    run(&mut a, [Action::SearchStart]);
    run(&mut a, "needle".chars().map(Action::SearchType));
    run(&mut a, [Action::SearchAccept, Action::NextMatch]);
    let e = ex(&a);
    let needle = id(&a, "big;tiny;needle");
    assert_eq!(e.selected, Target::Frame(needle));
    let (d, i) = e.selected_cell.unwrap();
    assert_eq!(
        e.layout.row(d).unwrap().cells[i].kind,
        CellKind::Frame(needle)
    );
    assert!(e.screen_y(d).is_some());
    run(&mut a, [Action::Back]);
    assert_eq!(ex(&a).zoom.root, NodeId::ROOT);
}

#[test]
fn groups_can_be_selected_and_zoomed() {
    let mut text = String::from("wide 100000\n");
    for i in 0..40 {
        writeln!(text, "n{i:02} 1").unwrap();
    }
    let mut a = app(&text);
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Left)]);
    let Target::Span { depth, lo, hi } = ex(&a).selected else {
        panic!("expected a group, got {:?}", ex(&a).selected);
    };
    assert_eq!(depth, 1);
    assert!(ex(&a).status[0].text.contains("narrower than a column"));
    run(&mut a, [Action::Zoom]);
    let e = ex(&a);
    assert_eq!((e.zoom.lo, e.zoom.hi), (lo, hi));
    let frames = e.layout.row(1).unwrap().cells.iter();
    assert!(
        frames
            .filter(|c| matches!(c.kind, CellKind::Frame(_)))
            .count()
            >= 10
    );
}

#[test]
fn mouse_selects_hovers_and_zooms() {
    let mut a = app(SMALL);
    let y = ex(&a).screen_y(1).unwrap();
    run(&mut a, [Action::Hover(1, y)]);
    let hover = ex(&a).hover.as_ref().unwrap();
    assert_eq!(hover.target, Target::Frame(id(&a, "idle")));
    assert_eq!(hover.tip.title, "idle");
    run(&mut a, [Action::Click(50, y)]);
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main")));
    assert!(ex(&a).hover.is_none());
    run(&mut a, [Action::DoubleClick(50, y)]);
    assert_eq!(ex(&a).zoom.root, id(&a, "main"));
    run(&mut a, [Action::Click(0, 0), Action::Hover(0, 23)]);
    assert!(ex(&a).hover.is_none());
}

#[test]
fn scrolling_is_clamped() {
    let deep: Vec<String> = (0..60).map(|i| format!("f{i}")).collect();
    let mut a = app(&format!("{} 1\n", deep.join(";")));
    run(
        &mut a,
        [Action::PageDown, Action::PageDown, Action::PageDown],
    );
    let e = ex(&a);
    assert_eq!(e.scroll, 61 - e.graph_rows());
    run(&mut a, [Action::Top]);
    assert_eq!(ex(&a).scroll, 0);
    run(&mut a, [Action::Scroll(5), Action::Flip, Action::Scroll(2)]);
    assert_eq!(ex(&a).scroll, 3);
    run(&mut a, [Action::Bottom]);
    assert_eq!(ex(&a).scroll, 0, "flame: the root is at the bottom");
}

#[test]
fn help_toggles_and_blocks_graph_keys() {
    let mut a = app(SMALL);
    run(&mut a, [Action::ToggleHelp, Action::Move(Dir::Down)]);
    assert_eq!(a.mode, Mode::Help);
    assert_eq!(ex(&a).selected, Target::Frame(NodeId::ROOT));
    run(&mut a, [Action::ToggleHelp]);
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn loading_then_loaded_or_failed() {
    let mut a = App::loading("<stdin>", ColorMode::Mono);
    let p = Progress {
        bytes: 10,
        total: Some(100),
        elapsed: Duration::from_millis(5),
        idle: Duration::ZERO,
    };
    run(
        &mut a,
        [
            Action::Resize(80, 24),
            Action::Progress(p),
            Action::Move(Dir::Down),
            Action::ToggleHelp,
        ],
    );
    assert!(matches!(a.phase, Phase::Loading(q) if q == p));
    assert_eq!(a.mode, Mode::Normal, "no help over the loading screen");
    run(&mut a, [Action::Loaded(Box::new(profile(SMALL)))]);
    assert!(a.explorer().is_some());
    let mut b = App::loading("x", ColorMode::Mono);
    run(&mut b, [Action::Failed("x: empty".into())]);
    assert!(b.quit);
    assert_eq!(b.failure.as_deref(), Some("x: empty"));
}

#[test]
fn tiny_and_odd_sizes_do_not_panic() {
    let mut a = app(SMALL);
    for (w, h) in [
        (0, 0),
        (1, 1),
        (5, 3),
        (80, 2),
        (2, 80),
        (29, 7),
        (300, 100),
    ] {
        run(
            &mut a,
            [Action::Resize(w, h), Action::Move(Dir::Down), Action::Zoom],
        );
        run(
            &mut a,
            [Action::PageDown, Action::Hover(1, 1), Action::Click(0, 1)],
        );
    }
}

/// Keys pressed while "Reading …" shows were dropped; they now apply once the graph is
/// there, in order (and `q` still quits at once).
#[test]
fn keys_pressed_while_loading_apply_when_the_graph_appears() {
    let mut a = App::loading("t.folded", ColorMode::Mono);
    run(
        &mut a,
        [
            Action::Resize(80, 24),
            Action::Move(Dir::Down),
            Action::Move(Dir::Down),
        ],
    );
    assert!(a.explorer().is_none());
    assert_eq!(a.queued.len(), 2);
    update(&mut a, Action::Loaded(Box::new(profile(SMALL))));
    assert!(a.queued.is_empty());
    assert_eq!(ex(&a).selected, Target::Frame(id(&a, "main;eval")));
    let mut b = App::loading("t.folded", ColorMode::Mono);
    for _ in 0..10_000 {
        update(&mut b, Action::Move(Dir::Down));
    }
    assert_eq!(b.queued.len(), 256);
    update(&mut b, Action::Quit);
    assert!(b.quit);
}

/// A process frame (perf's root) is not a function: no "if removed" line of 0.00%.
#[test]
fn a_process_frame_has_no_impact_line() {
    let text = "p 1 1.0: 5 cycles: \n\t1 f+0x1 (/bin/x)\n\np 1 1.1: 5 cycles: \n\n";
    let p = load_reader(Cursor::new(text), "t.perf", &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let mut a = App::new(p, ColorMode::Mono);
    run(&mut a, [Action::Resize(80, 24), Action::Move(Dir::Down)]);
    let tip = ex(&a).status_tip();
    assert!(
        tip.facts.iter().any(|f| f.contains("not a function")),
        "{tip:?}"
    );
    assert!(
        !tip.facts.iter().any(|f| f.starts_with("if removed")),
        "{tip:?}"
    );
}
