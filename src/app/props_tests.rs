//! Property tests of the explorer over random trees, screen sizes and key sequences.

use std::fmt::Write as _;
use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;

use super::keymap::action_for;
use super::{Action, App, Mode, Screen, update};
use crate::input::{LoadOptions, load_reader};
use crate::view::color::ColorMode;

/// Random folded stacks: a few names, deep enough to need scrolling on a short screen.
fn stacks() -> impl Strategy<Value = String> {
    let frame = prop::sample::select(vec!["a", "b", "c", "dd", "eee", "f"]);
    let stack = (prop::collection::vec(frame, 1..40), 1u64..1000);
    prop::collection::vec(stack, 1..25).prop_map(|stacks| {
        let mut text = String::new();
        for (frames, w) in stacks {
            let _ = writeln!(text, "{} {w}", frames.join(";"));
        }
        text
    })
}

fn app(text: &str, w: u16, h: u16) -> App {
    let p = load_reader(Cursor::new(text), "p.folded", &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let mut app = App::new(p, ColorMode::Mono);
    update(&mut app, Action::Resize(w, h));
    app
}

/// One step of a session: a key through the keymap, or a mouse or resize event.
#[derive(Debug, Clone)]
enum Step {
    Key(KeyCode),
    Act(Action),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let keys: Vec<KeyCode> = [
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Enter,
        KeyCode::Backspace,
        KeyCode::Esc,
        KeyCode::PageUp,
        KeyCode::PageDown,
    ]
    .into_iter()
    .chain(
        "jjjjkhl[]0fnNnn/aebi/tgGprofFHxRuuz"
            .chars()
            .map(KeyCode::Char),
    )
    .collect();
    let step = prop_oneof![
        8 => prop::sample::select(keys).prop_map(Step::Key),
        1 => (-6i32..6).prop_map(|r| Step::Act(Action::Scroll(r))),
        1 => (0u16..200, 0u16..60).prop_map(|(x, y)| Step::Act(Action::Click(x, y))),
        1 => (10u16..200, 6u16..60).prop_map(|(w, h)| Step::Act(Action::Resize(w, h))),
    ];
    prop::collection::vec(step, 1..60)
}

fn apply(app: &mut App, step: &Step) {
    let action = match step {
        Step::Key(code) => action_for(app.mode, &KeyEvent::new(*code, KeyModifiers::NONE)),
        Step::Act(a) => Some(a.clone()),
    };
    if let Some(a) = action {
        update(app, a);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the keys, the selected frame is on a row drawn whenever the graph is shown.
    #[test]
    fn the_selection_stays_on_screen(
        text in stacks(),
        w in 10u16..200,
        h in 6u16..60,
        steps in steps(),
    ) {
        let mut app = app(&text, w, h);
        for (i, step) in steps.iter().enumerate() {
            apply(&mut app, step);
            let ex = app.explorer().unwrap();
            if !matches!(app.mode, Mode::Normal | Mode::Search)
                || ex.tools.screen != Screen::Graph
                || ex.areas.graph.height == 0
                || ex.layout.total_rows() == 0
            {
                continue;
            }
            let depth = ex.selected.depth(&ex.index);
            prop_assert!(
                ex.screen_y(depth).is_some(),
                "after step {i} ({step:?}): depth {depth} not in rows {}..{} of {}",
                ex.scroll,
                ex.scroll + ex.graph_rows(),
                ex.layout.total_rows()
            );
            prop_assert!(ex.selected_cell.is_some(), "after step {i}: no cell shows the selection");
        }
    }
}

/// A change of the view, or `u`.
#[derive(Debug, Clone)]
enum ViewStep {
    Invert,
    Order,
    Exclude(&'static str),
    Focus(&'static str),
    Hide(&'static str),
    Collapse,
    Group(u8),
    Range(Option<(u64, u64)>),
    Undo,
}

fn view_steps() -> impl Strategy<Value = Vec<ViewStep>> {
    let name = prop::sample::select(vec!["a", "b", "c"]);
    let step = prop_oneof![
        3 => Just(ViewStep::Invert),
        3 => Just(ViewStep::Order),
        1 => name.clone().prop_map(ViewStep::Exclude),
        1 => name.clone().prop_map(ViewStep::Focus),
        1 => name.prop_map(ViewStep::Hide),
        1 => Just(ViewStep::Collapse),
        1 => (0u8..4).prop_map(ViewStep::Group),
        1 => prop::option::of((0u64..3, 3u64..5)).prop_map(ViewStep::Range),
        4 => Just(ViewStep::Undo),
    ];
    prop::collection::vec(step, 1..40)
}

/// Everything a view shows, as text: slice, grouping, transforms, toggles.
fn fingerprint(v: &super::TransformStack) -> String {
    format!("{:?} {}", v.slice.range, v.summary())
}

fn change(v: &mut super::TransformStack, step: &ViewStep) {
    use crate::profile::group::Group;
    use crate::profile::transform::Transform;
    let re = |n: &str| super::transforms::exact(n).unwrap();
    match step {
        ViewStep::Invert => v.toggle_invert(),
        ViewStep::Order => v.toggle_order(),
        ViewStep::Exclude(n) => v.push(Transform::Exclude(re(n))),
        ViewStep::Focus(n) => v.push(Transform::Focus(re(n))),
        ViewStep::Hide(n) => v.push(Transform::Hide(re(n))),
        ViewStep::Collapse => v.push(Transform::CollapseRecursion),
        ViewStep::Group(g) => v.set_group(
            [
                Group::ThreadName,
                Group::Process,
                Group::Thread,
                Group::FoldedName,
            ][usize::from(*g)],
        ),
        ViewStep::Range(r) => v.set_slice(crate::profile::slice::Slice {
            range: *r,
            tasks: None,
        }),
        ViewStep::Undo => {
            v.undo();
        }
    }
}

/// The views `u` walks back through, from the one shown to the first.
fn walk(v: &super::TransformStack) -> Vec<String> {
    let mut v = v.clone();
    let mut out = vec![fingerprint(&v)];
    while v.undo() {
        out.push(fingerprint(&v));
    }
    out
}

proptest! {
    /// `u` restores exactly the view before the step it undoes, and never replays a detour:
    /// a change then `u` shows the view before the change, unless the change came back to
    /// a view `u` would have walked through — then the detour is gone, and `u` walks on
    /// from there. The views `u` walks through all differ and end at the first view.
    #[test]
    fn undo_restores_the_view_before_the_step(steps in view_steps()) {
        let mut v = super::TransformStack::default();
        let start = fingerprint(&v);
        for step in &steps {
            let before = walk(&v);
            change(&mut v, step);
            let after = walk(&v);
            match step {
                ViewStep::Undo if before.len() > 1 => prop_assert_eq!(&after[..], &before[1..]),
                ViewStep::Undo => prop_assert_eq!(&after, &before),
                _ if after[0] == before[0] => prop_assert_eq!(&after, &before),
                _ => match before.iter().position(|f| *f == after[0]) {
                    Some(i) => prop_assert_eq!(&after[..], &before[i..]),
                    None => {
                        prop_assert_eq!(&after[1..], &before[..]);
                    }
                },
            }
            let mut distinct = after.clone();
            distinct.sort();
            distinct.dedup();
            prop_assert_eq!(distinct.len(), after.len(), "u shows a view twice: {:?}", after);
            prop_assert_eq!(after.last().unwrap(), &start);
        }
    }
}
