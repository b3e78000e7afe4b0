use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::{App, Phase, keymap, update};
use crate::input::{LoadOptions, load_reader};
use crate::view::color::ColorMode;

pub(super) fn profile(name: &str, text: &str) -> Profile {
    load_reader(Cursor::new(text), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

/// `flush` vanishes, `parse` appears, `insert` grows from 70% to 80%.
pub(super) const BEFORE: &str = "main;commit;flush 30\nmain;insert 70\n";
pub(super) const AFTER: &str = "main;insert 80\nmain;parse 20\n";

pub(super) fn app() -> App {
    let before = profile("before.folded", BEFORE);
    let after = profile("after.folded", AFTER);
    let mut app = App::compare(before, after, ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

pub(super) fn cmp(app: &App) -> &Compare {
    app.comparison().unwrap()
}

pub(super) fn run(app: &mut App, actions: impl IntoIterator<Item = Action>) {
    for a in actions {
        update(app, a);
    }
}

/// The selected path of one side, as `a;b;c`.
pub(super) fn selected(app: &App, side: Side) -> String {
    let ex = cmp(app).side(side);
    match ex.selected {
        Target::Frame(id) => ex.profile.tree.path_string(id),
        Target::Span { .. } => "<span>".to_owned(),
    }
}

pub(super) fn select(app: &mut App, side: Side, path: &str) {
    let Phase::Compare(c) = &mut app.phase else {
        panic!("not comparing");
    };
    let ex = c.side_mut(side);
    let id =
        crate::profile::diff::find_path(&ex.profile.tree, &path.split(';').collect::<Vec<_>>())
            .unwrap();
    ex.selected = Target::Frame(id);
    c.active = side;
    update(app, Action::Resize(80, 24));
}

pub(super) fn status(app: &App) -> String {
    cmp(app)
        .status
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn opens_side_by_side_with_keys_in_after() {
    let a = app();
    assert!(matches!(a.phase, Phase::Compare(_)));
    let c = cmp(&a);
    assert_eq!(c.view, View::SideBySide);
    assert_eq!(c.driver_side(), Side::After);
    assert!(c.before.areas.graph.height > 2 && c.after.areas.graph.height > 2);
    assert_eq!(
        c.before.areas.graph.height, c.after.areas.graph.height,
        "panes of equal height, so scrolling lines up"
    );
    assert!(
        c.after.areas.graph.y > c.before.areas.graph.y,
        "top/bottom under 160 columns"
    );
    assert_eq!(a.explorer().unwrap().profile.source, "after.folded");
}

#[test]
fn wide_terminals_put_the_panes_side_by_side() {
    let mut a = app();
    run(&mut a, [Action::Resize(160, 45)]);
    let c = cmp(&a);
    let (b, f) = (c.before.areas.graph, c.after.areas.graph);
    assert_eq!((b.y, b.width), (f.y, f.width));
    assert!(f.x > b.right() - 1);
    assert_eq!(c.areas.divider.x, b.right());
}

#[test]
fn selection_follows_by_path_and_says_when_it_is_missing() {
    let mut a = app();
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    assert_eq!(selected(&a, Side::After), "main;insert");
    assert_eq!(selected(&a, Side::Before), "main;insert");
    assert_eq!(cmp(&a).missing, None);
    assert!(cmp(&a).before.selected_cell.is_some());
    // `parse` is only in AFTER: BEFORE keeps the deepest ancestor, unhighlighted.
    run(&mut a, [Action::Move(Dir::Right)]);
    assert_eq!(selected(&a, Side::After), "main;parse");
    assert_eq!(selected(&a, Side::Before), "main");
    assert_eq!(cmp(&a).missing, Some(Side::Before));
    assert_eq!(cmp(&a).before.selected_cell, None);
    assert!(
        cmp(&a).areas.notes[0].width > 0,
        "BEFORE's pane has the note"
    );
    let s = status(&a);
    assert!(s.contains("BEFORE 0 samples: not in BEFORE"), "{s}");
    assert!(s.contains("AFTER 20 samples (20.00%)"), "{s}");
    assert!(s.contains("relative new"), "{s}");
}

#[test]
fn zoom_scroll_orientation_and_history_follow() {
    let mut a = app();
    select(&mut a, Side::After, "main;insert");
    run(&mut a, [Action::Zoom, Action::Flip]);
    let c = cmp(&a);
    let root = |s: Side| c.side(s).profile.tree.path_string(c.side(s).zoom.root);
    assert_eq!(
        (root(Side::Before), root(Side::After)),
        ("main;insert".into(), "main;insert".into())
    );
    assert!(c.before.flame && c.after.flame);
    assert_eq!(c.before.back.len(), 1);
    run(&mut a, [Action::Back]);
    let c = cmp(&a);
    assert_eq!(c.before.zoom.root, NodeId::ROOT);
    assert_eq!(c.before.forward.len(), 1);
}

#[test]
fn tab_moves_the_keys_and_the_other_side_follows() {
    let mut a = app();
    select(&mut a, Side::After, "main;insert");
    run(&mut a, [Action::SwitchPane]);
    assert_eq!(cmp(&a).driver_side(), Side::Before);
    run(&mut a, [Action::Move(Dir::Left)]);
    assert_eq!(selected(&a, Side::Before), "main;commit");
    assert_eq!(selected(&a, Side::After), "main");
    assert_eq!(cmp(&a).missing, Some(Side::After));
}

#[test]
fn clicking_a_pane_makes_it_active() {
    let mut a = app();
    let g = cmp(&a).before.areas.graph;
    run(&mut a, [Action::Click(g.x + 1, g.y + 1)]);
    assert_eq!(cmp(&a).driver_side(), Side::Before);
    assert_eq!(selected(&a, Side::Before), "main");
    assert_eq!(selected(&a, Side::After), "main");
}

#[test]
fn hover_describes_both_sides() {
    let mut a = app();
    let g = cmp(&a).after.areas.graph;
    run(&mut a, [Action::Hover(g.x + 1, g.y + 1)]);
    let hover = cmp(&a).hover.as_ref().unwrap();
    assert_eq!(hover.tip.title, "main");
    assert!(
        hover.tip.facts.iter().any(|f| f == "Δ 0.00 pp ~"),
        "{:?}",
        hover.tip
    );
    run(&mut a, [Action::Move(Dir::Down)]);
    assert!(cmp(&a).hover.is_none());
}

#[test]
fn internal_frames_get_inclusive_totals() {
    let mut a = app();
    select(&mut a, Side::Before, "main;commit");
    let s = status(&a);
    assert!(s.starts_with("commit\n"), "{s}");
    assert!(s.contains("BEFORE 30 samples (30.00%)"), "{s}");
    assert!(s.contains("Δ -30.00 pp *"), "{s}");
    assert!(s.contains("samples 30/100 → 0/100: p < 0.001"), "{s}");
    assert!(s.contains("relative -100.0%"), "{s}");
    assert!(s.contains("self 0 samples → 0 samples"), "{s}");
}

#[test]
fn search_next_goes_to_the_side_that_has_matches() {
    let mut a = app();
    run(&mut a, [Action::SearchStart]);
    run(&mut a, "flush".chars().map(Action::SearchType));
    run(&mut a, [Action::SearchAccept]);
    assert!(cmp(&a).only_other_matches());
    run(&mut a, [Action::NextMatch]);
    assert_eq!(cmp(&a).driver_side(), Side::Before);
    assert_eq!(selected(&a, Side::Before), "main;commit;flush");
    assert_eq!(cmp(&a).after.search.query, "flush", "search follows too");
}

#[test]
fn views_cycle_and_the_table_has_its_own_keys() {
    let mut a = app();
    run(&mut a, [Action::CycleView]);
    assert_eq!(cmp(&a).view, View::Differential);
    assert_eq!(cmp(&a).panes(), vec![Side::After]);
    assert_eq!(cmp(&a).before.areas.graph.width, 0);
    run(&mut a, [Action::SwapShape]);
    assert_eq!(cmp(&a).panes(), vec![Side::Before]);
    run(&mut a, [Action::CycleView]);
    assert_eq!((cmp(&a).view, a.mode), (View::Table, Mode::DeltaTable));
    let t = &cmp(&a).table;
    assert_eq!(
        t.current().unwrap().name,
        "commit",
        "largest |Δ| first, ties by name"
    );
    run(&mut a, [Action::Move(Dir::Down), Action::Bottom]);
    assert_eq!(cmp(&a).table.selected, cmp(&a).table.shown.len() - 1);
    run(&mut a, [Action::ToggleHelp]);
    assert_eq!(a.mode, Mode::Help);
    run(&mut a, [Action::ToggleHelp]);
    assert_eq!(
        a.mode,
        Mode::DeltaTable,
        "closing the help returns to the table"
    );
    run(&mut a, [Action::Escape]);
    assert_eq!((cmp(&a).view, a.mode), (View::Differential, Mode::Normal));
    run(&mut a, [Action::CycleView, Action::CycleView]);
    assert_eq!(cmp(&a).view, View::SideBySide);
}

#[test]
fn table_filters_by_search_and_enter_shows_the_heaviest_frame() {
    let mut a = app();
    run(
        &mut a,
        [Action::CycleView, Action::CycleView, Action::SearchStart],
    );
    run(&mut a, "^fl".chars().map(Action::SearchType));
    run(&mut a, [Action::SearchAccept]);
    assert_eq!(a.mode, Mode::DeltaTable);
    let t = &cmp(&a).table;
    assert_eq!(t.shown.len(), 1);
    assert_eq!(t.current().unwrap().name, "flush");
    let s = status(&a);
    assert!(
        s.contains("BEFORE 30 samples (30.00%) · AFTER 0 samples: not in AFTER"),
        "{s}"
    );
    // `flush` is not in AFTER (the differential shape): the graph swaps to BEFORE's.
    run(&mut a, [Action::ShowInGraph]);
    let c = cmp(&a);
    assert_eq!((c.view, a.mode), (View::Differential, Mode::Normal));
    assert_eq!(c.driver_side(), Side::Before);
    assert_eq!(selected(&a, Side::Before), "main;commit;flush");
    assert_eq!(c.before.search.query, "^flush$");
    assert!(c.before.selected_cell.is_some(), "the frame is on screen");
}

#[test]
fn heaviest_occurrence() {
    let p = profile("t", "a;f 5\nb;f 7\nb;c;f 9\n");
    let id = heaviest(&p.tree, "f").unwrap();
    assert_eq!(p.tree.path_string(id), "b;c;f");
    assert!(heaviest(&p.tree, "nope").is_none());
}

#[test]
fn compare_keys_only_when_comparing() {
    let v = KeyEvent::new(KeyCode::Char('v'), KeyModifiers::NONE);
    assert!(keymap::action_for(Mode::Normal, &v).is_none());
    assert!(matches!(
        keymap::action_in(Mode::Normal, true, &v),
        Some(Action::CycleView)
    ));
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert!(matches!(
        keymap::action_in(Mode::DeltaTable, true, &enter),
        Some(Action::ShowInGraph)
    ));
    let sections = keymap::help_sections_in(true);
    assert!(sections.iter().any(|(t, _)| *t == "Delta table"));
    assert!(sections[0].1.iter().any(|(k, _)| *k == "Tab"));
    assert!(
        !keymap::help_sections()[0]
            .1
            .iter()
            .any(|(k, _)| *k == "Tab")
    );
}

#[test]
fn transforms_apply_to_both_sides_and_undo() {
    use crate::app::action::ToolAction;
    let mut a = app();
    // main → insert (the widest child in AFTER, the side keys go to).
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    assert_eq!(selected(&a, Side::After), "main;insert");
    run(&mut a, [Action::Tool(ToolAction::Hide)]);
    for side in [Side::Before, Side::After] {
        let tree = &cmp(&a).side(side).profile.tree;
        // Names stay interned across transforms; no frame is called `insert` any more.
        assert!(tree.ids().all(|id| tree.name(id) != "insert"), "{side:?}");
        assert_eq!(tree.total(), 100, "{side:?}");
    }
    // The delta table is rebuilt from the transformed profiles.
    assert!(cmp(&a).table.rows.iter().all(|r| r.name != "insert"));
    run(&mut a, [Action::Tool(ToolAction::Undo)]);
    for side in [Side::Before, Side::After] {
        let tree = &cmp(&a).side(side).profile.tree;
        assert!(tree.ids().any(|id| tree.name(id) == "insert"), "{side:?}");
    }
    run(&mut a, [Action::Tool(ToolAction::Invert)]);
    let after = &cmp(&a).side(Side::After).profile.tree;
    assert!(after.child_named(NodeId::ROOT, "insert").is_some());
}

#[test]
fn one_profile_tools_say_so_and_copy_works_while_comparing() {
    use crate::app::Effect;
    use crate::app::action::ToolAction;
    use crate::app::tools::NOT_WHILE_COMPARING;
    let mut a = app();
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    for tool in [ToolAction::Table, ToolAction::Sandwich, ToolAction::Group] {
        run(&mut a, [Action::Tool(tool.clone())]);
        assert_eq!(a.mode, Mode::Normal, "{tool:?}");
        let message = cmp(&a).driver().tools.message.clone().unwrap_or_default();
        assert!(
            message.ends_with(NOT_WHILE_COMPARING),
            "{tool:?}: {message}"
        );
        assert!(message.len() < 80, "{message}");
    }
    // A move clears the message; y copies the selected frame of the side keys go to.
    run(&mut a, [Action::Move(Dir::Up), Action::Move(Dir::Down)]);
    assert_eq!(cmp(&a).driver().tools.message, None);
    run(&mut a, [Action::Tool(ToolAction::CopyStack)]);
    let Some(Effect::Copy { text, .. }) = a.effects.pop() else {
        panic!("no copy: {:?}", a.effects);
    };
    assert_eq!(text, "main;insert");
    // The shell's report lands in the status line.
    run(&mut a, [Action::Tool(ToolAction::Notify("Copied".into()))]);
    assert_eq!(cmp(&a).driver().tools.message.as_deref(), Some("Copied"));
}

#[test]
fn a_message_lasts_until_the_next_key_in_any_view_or_side() {
    use crate::app::action::ToolAction;
    let mut a = app();
    let message = |a: &App| {
        let c = cmp(a);
        [Side::Before, Side::After].map(|s| c.side(s).tools.message.is_some())
    };
    for next in [
        Action::CycleView,
        Action::SwitchPane,
        Action::Move(Dir::Down),
    ] {
        run(&mut a, [Action::Tool(ToolAction::Table)]);
        assert!(message(&a).contains(&true));
        run(&mut a, [next.clone()]);
        assert_eq!(message(&a), [false, false], "{next:?}");
    }
    // In the delta table too.
    run(
        &mut a,
        [
            Action::CycleView,
            Action::CycleView,
            Action::Tool(ToolAction::Table),
        ],
    );
    run(&mut a, [Action::Move(Dir::Down)]);
    assert_eq!(message(&a), [false, false]);
}
