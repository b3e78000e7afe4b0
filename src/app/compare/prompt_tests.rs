//! Compare mode's prompts: the finder over both sides, `X` excludes a typed regex from
//! both sides, `e` exports the differential view; and what a side without a frame says.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tests::*;
use super::*;
use crate::app::{App, keymap};
use crate::view::color::ColorMode;

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
