use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::{App, Phase, keymap, update};
use crate::input::{LoadOptions, load_reader};
use crate::view::color::ColorMode;

fn profile(name: &str, text: &str) -> Profile {
    load_reader(Cursor::new(text), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

/// `flush` vanishes, `parse` appears, `insert` grows from 70% to 80%.
const BEFORE: &str = "main;commit;flush 30\nmain;insert 70\n";
const AFTER: &str = "main;insert 80\nmain;parse 20\n";

fn app() -> App {
    let before = profile("before.folded", BEFORE);
    let after = profile("after.folded", AFTER);
    let mut app = App::compare(before, after, ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

fn cmp(app: &App) -> &Compare {
    app.comparison().unwrap()
}

fn run(app: &mut App, actions: impl IntoIterator<Item = Action>) {
    for a in actions {
        update(app, a);
    }
}

/// The selected path of one side, as `a;b;c`.
fn selected(app: &App, side: Side) -> String {
    let ex = cmp(app).side(side);
    match ex.selected {
        Target::Frame(id) => ex.profile.tree.path_string(id),
        Target::Span { .. } => "<span>".to_owned(),
    }
}

fn select(app: &mut App, side: Side, path: &str) {
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

fn status(app: &App) -> String {
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

#[test]
fn the_finder_ranks_both_sides_and_shows_the_pick_where_it_is() {
    use crate::app::action::ToolAction;
    let mut a = app();
    // A case-insensitive search before does not widen what Enter highlights.
    run(
        &mut a,
        [Action::ToggleCase, Action::Tool(ToolAction::Finder)],
    );
    assert_eq!(a.mode, Mode::Finder);
    // Every function of either side; ties by the larger change.
    let f = &cmp(&a).finder.as_ref().unwrap();
    assert_eq!(f.state.candidates, cmp(&a).table.rows.len());
    // Keys go to the finder, not to the graph.
    let before_keys = selected(&a, Side::After);
    run(
        &mut a,
        "flsh".chars().map(|c| Action::Tool(ToolAction::Type(c))),
    );
    run(&mut a, [Action::Move(Dir::Down), Action::Click(5, 5)]);
    assert_eq!(selected(&a, Side::After), before_keys);
    let f = cmp(&a).finder.as_ref().unwrap();
    let names: Vec<&str> = f
        .state
        .hits
        .iter()
        .map(|h| f.names.resolve(h.name))
        .collect();
    assert_eq!(names, ["flush"]);
    // Enter: `flush` is only in BEFORE, so keys go there, on its frame, highlighted.
    run(&mut a, [Action::Tool(ToolAction::Accept)]);
    assert_eq!(a.mode, Mode::Normal);
    assert!(cmp(&a).finder.is_none());
    assert_eq!(cmp(&a).driver_side(), Side::Before);
    assert_eq!(selected(&a, Side::Before), "main;commit;flush");
    assert_eq!(cmp(&a).driver().search.query, "^flush$");
    assert!(!cmp(&a).driver().search.ignore_case);
    // Esc closes and gives the keys back, from the delta table too (where p opens it).
    run(&mut a, [Action::CycleView, Action::CycleView]);
    assert_eq!(a.mode, Mode::DeltaTable);
    let p = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::NONE);
    let open = keymap::action_in(Mode::DeltaTable, true, &p).unwrap();
    run(&mut a, [open]);
    assert_eq!(a.mode, Mode::Finder);

    run(&mut a, [Action::Tool(ToolAction::Close)]);
    assert_eq!(a.mode, Mode::DeltaTable);
    assert!(cmp(&a).finder.is_none());
}

#[test]
fn undo_takes_back_toggles_too_and_says_what_is_shown() {
    use crate::app::action::ToolAction;
    let mut a = app();
    run(&mut a, [Action::Move(Dir::Down), Action::Move(Dir::Down)]);
    run(
        &mut a,
        [
            Action::Tool(ToolAction::Hide),
            Action::Tool(ToolAction::Invert),
        ],
    );
    let message = |a: &App| cmp(a).driver().tools.message.clone().unwrap_or_default();
    assert_eq!(
        message(&a),
        "hide insert › bottom-up (both profiles) · u undoes"
    );
    // u undoes the last change — the bottom-up view — then the hide.
    run(&mut a, [Action::Tool(ToolAction::Undo)]);
    assert!(!a.view.inverted && a.view.transforms.len() == 1);
    run(&mut a, [Action::Tool(ToolAction::Undo)]);
    assert_eq!(message(&a), "Showing the profiles as read");
    run(&mut a, [Action::Tool(ToolAction::Undo)]);
    assert_eq!(message(&a), "Nothing to undo");
}

#[test]
fn a_resize_keeps_the_finders_selection_on_screen() {
    use crate::app::action::ToolAction;
    let lines: Vec<String> = (0..40).map(|i| format!("main;f{i:02} {}", i + 1)).collect();
    let text = lines.join("\n");
    let mut a = App::compare(
        profile("b.folded", &text),
        profile("a.folded", &text),
        ColorMode::Mono,
    );
    run(
        &mut a,
        [Action::Resize(160, 45), Action::Tool(ToolAction::Finder)],
    );
    run(&mut a, (0..25).map(|_| Action::Tool(ToolAction::Step(1))));
    run(&mut a, [Action::Resize(80, 10)]);
    let f = &cmp(&a).finder.as_ref().unwrap().state;
    let rows = crate::app::finder::list_rows(cmp(&a).areas.body);
    assert!(rows < 10, "{rows}");
    assert_eq!(f.selected, 25);
    assert!(
        f.offset <= f.selected && f.selected < f.offset + rows,
        "{f:?}"
    );
}

/// Types `text` into the open prompt (over its suggestion) and presses Enter.
fn answer(app: &mut App, text: &str) {
    use crate::app::action::ToolAction;
    run(app, [Action::Tool(ToolAction::ClearLine)]);
    run(app, text.chars().map(|c| Action::Tool(ToolAction::Type(c))));
    run(app, [Action::Tool(ToolAction::Accept)]);
}

#[test]
fn x_excludes_a_typed_regex_from_both_sides_and_u_undoes_it() {
    use crate::app::action::ToolAction;
    use crate::app::state::PromptKind;
    let mut a = app();
    run(&mut a, [Action::Tool(ToolAction::ExcludeRegex)]);
    assert_eq!(a.mode, Mode::Prompt);
    let prompt = cmp(&a).driver().tools.prompt.clone().unwrap();
    assert_eq!(prompt.kind, PromptKind::Exclude);
    // An invalid regex says why and keeps the prompt open.
    answer(&mut a, "(");
    assert_eq!(a.mode, Mode::Prompt);
    let message = cmp(&a).driver().tools.message.clone().unwrap_or_default();
    assert!(message.starts_with("Invalid regex"), "{message}");
    answer(&mut a, "^(flush|parse)$");
    assert_eq!(a.mode, Mode::Normal);
    let names = |a: &App, side: Side| {
        let t = &cmp(a).side(side).profile.tree;
        t.ids()
            .skip(1)
            .map(|id| t.name(id).to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&a, Side::Before), ["main", "insert"]);
    assert_eq!(names(&a, Side::After), ["main", "insert"]);
    // A breadcrumb in the header, and the same undo as the other transforms.
    let summary = cmp(&a).applied().summary();
    assert!(summary.contains("(flush|parse)"), "{summary}");
    run(&mut a, [Action::Tool(ToolAction::Undo)]);
    assert!(cmp(&a).applied().is_identity());
    assert!(names(&a, Side::Before).contains(&"flush".to_owned()));
    assert!(names(&a, Side::After).contains(&"parse".to_owned()));
    // Esc gives the prompt up.
    run(
        &mut a,
        [
            Action::Tool(ToolAction::ExcludeRegex),
            Action::Tool(ToolAction::Close),
        ],
    );
    assert_eq!(a.mode, Mode::Normal);
    assert!(cmp(&a).applied().is_identity());
}

/// The file an export asked the shell to write.
fn written(app: &mut App) -> (std::path::PathBuf, String, bool) {
    use crate::app::Effect;
    match app.effects.pop() {
        Some(Effect::Write {
            path,
            bytes,
            replace,
            ..
        }) => (path, String::from_utf8(bytes).unwrap(), replace),
        other => panic!("no file written: {other:?}"),
    }
}

#[test]
fn e_exports_the_differential_folded_view_of_the_transformed_trees() {
    use crate::app::action::ToolAction;
    use crate::app::state::PromptKind;
    let mut a = app();
    run(&mut a, [Action::Tool(ToolAction::ExcludeRegex)]);
    answer(&mut a, "^commit$");
    run(&mut a, [Action::Tool(ToolAction::Export)]);
    assert_eq!(a.mode, Mode::Prompt);
    let prompt = cmp(&a).driver().tools.prompt.clone().unwrap();
    assert_eq!(prompt.kind, PromptKind::Export);
    assert_eq!(prompt.text, "before-vs-after.svg");
    answer(&mut a, "d.folded");
    assert_eq!(a.mode, Mode::Normal);
    let (path, text, replace) = written(&mut a);
    assert_eq!(path, std::path::Path::new("d.folded"));
    assert!(!replace, "an existing file is kept unless the user says so");
    let c = cmp(&a);
    let want = crate::export::diff_folded_lines(
        &c.side(Side::Before).profile.tree,
        &c.side(Side::After).profile.tree,
    );
    assert_eq!(text.lines().collect::<Vec<_>>(), want);
    assert_eq!(
        want,
        ["main;insert 70 80", "main;parse 0 20"],
        "the excluded stack is in neither column"
    );
    // A file already there: the prompt asks again, and Enter replaces it.
    run(
        &mut a,
        [Action::Tool(ToolAction::Exists("d.folded".into()))],
    );
    assert_eq!(a.mode, Mode::Prompt);
    let message = cmp(&a).driver().tools.message.clone().unwrap_or_default();
    assert!(message.contains("exists · Enter replaces it"), "{message}");
    run(&mut a, [Action::Tool(ToolAction::Accept)]);
    let (_, again, replace) = written(&mut a);
    assert!(replace);
    assert_eq!(again, text);
    // An unknown extension says which ones work.
    run(&mut a, [Action::Tool(ToolAction::Export)]);
    answer(&mut a, "d.png");
    assert_eq!(a.mode, Mode::Prompt);
    assert!(a.effects.is_empty());
}

#[test]
fn e_exports_a_differential_svg_that_parses() {
    use crate::app::action::ToolAction;
    let mut a = app();
    run(&mut a, [Action::Tool(ToolAction::Export)]);
    run(&mut a, [Action::Tool(ToolAction::Accept)]);
    let (path, svg, _) = written(&mut a);
    assert_eq!(path, std::path::Path::new("before-vs-after.svg"));
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&svg, opts).unwrap();
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    // inferno's differential frames: AFTER's weight and the change (red grew, blue shrank).
    let frame = |name: &str| {
        titles
            .iter()
            .find(|t| t.starts_with(&format!("{name} (")))
            .copied()
            .unwrap_or_else(|| panic!("no {name} in {titles:?}"))
    };
    assert!(frame("insert").contains("; +10.00%"), "{}", frame("insert"));
    assert!(frame("parse").contains("; +20.00%"), "{}", frame("parse"));
    assert!(svg.contains("rgb(255,"), "a red (grown) frame");
    assert!(
        !titles.iter().any(|t| t.starts_with("flush (")),
        "AFTER's shape"
    );
    let title = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("title"))
        .and_then(|n| n.text());
    assert_eq!(title, Some("before.folded → after.folded"));
}

#[test]
fn x_and_e_are_in_the_compare_help_and_footer() {
    let comparing: Vec<_> = keymap::help_sections_in(true)
        .into_iter()
        .flat_map(|(_, rows)| rows)
        .map(|(keys, _)| keys)
        .collect();
    assert!(comparing.contains(&"X"), "{comparing:?}");
    assert!(comparing.contains(&"e"), "{comparing:?}");
}

/// A side without the frame says nothing with the other side's unit: `0 ms` beside
/// `147 ms`, `0 samples` beside samples.
#[test]
fn a_zero_side_keeps_the_unit() {
    use super::facts::zero_beside;
    let mut timed = profile("t.folded", "main 1\n");
    timed.stats.unit = crate::profile::Unit::Nanoseconds;
    assert_eq!(zero_beside(&timed, "147 ms", Some(false)), "0 ms");
    assert_eq!(zero_beside(&timed, "1.20 s", Some(false)), "0 s");
    let counted = profile("c.folded", "main 1\n");
    assert_eq!(
        zero_beside(&counted, "30 samples", Some(false)),
        "0 samples"
    );
}
