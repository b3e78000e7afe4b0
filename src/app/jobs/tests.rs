use std::io::Cursor;
use std::time::Duration;

use super::*;
use crate::app::explorer::Explorer;
use crate::app::state::Screen;
use crate::app::{Action, Dir, Mode, ToolAction, finish, update};
use crate::input::{LoadOptions, load_reader};
use crate::view::Target;
use crate::view::color::ColorMode;

const STACKS: &str = "main;parse;lex 30\nmain;eval;lex 60\nmain 5\nidle 5\n";

fn profile(text: &str, name: &str) -> Profile {
    load_reader(Cursor::new(text), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

/// An app on a small tree whose every recomputation goes to the background.
fn app() -> App {
    let mut app = App::new(profile(STACKS, "t.folded"), ColorMode::Mono);
    app.jobs.background_from = 0;
    update(&mut app, Action::Resize(80, 24));
    app
}

fn tool(app: &mut App, t: ToolAction) {
    update(app, Action::Tool(t));
}

fn ex(app: &App) -> &Explorer {
    app.explorer().unwrap()
}

fn message(app: &App) -> &str {
    ex(app).tools.message.as_deref().unwrap_or("")
}

/// The job the app asked the shell to start, run to its end.
fn started(app: &mut App) -> Done {
    let job = app.jobs.take_orders().start.expect("a job to start");
    job.run(&|| false).expect("not stopped")
}

fn selected_path(app: &App) -> String {
    match ex(app).selected {
        Target::Frame(id) => ex(app).profile.tree.path_string(id),
        Target::Span { .. } => "(group)".to_owned(),
    }
}

#[test]
fn a_large_change_is_a_job_and_keys_work_on_the_old_view_meanwhile() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    // Wanted, not shown yet: the job is pending, the header names it.
    assert!(a.view.inverted);
    assert!(!ex(&a).tools.applied.inverted);
    assert_eq!(a.jobs.pending.as_ref().unwrap().label, "bottom-up");
    let done = started(&mut a);
    update(
        &mut a,
        Action::Computing(done.id, Duration::from_millis(1200)),
    );
    assert_eq!(
        a.jobs.pending.as_ref().unwrap().elapsed,
        Duration::from_millis(1200)
    );
    // Keys keep working on what is shown.
    update(&mut a, Action::Move(Dir::Down));
    update(&mut a, Action::Move(Dir::Down));
    assert_eq!(selected_path(&a), "main;eval");
    // The result arrives: the view is bottom-up, the selected function still selected.
    finish(&mut a, done);
    assert!(a.jobs.pending.is_none());
    assert!(ex(&a).tools.applied.inverted);
    assert_eq!(selected_path(&a), "lex;eval");
    assert_eq!(message(&a), "bottom-up · u undoes");
    // What it replaced goes back to the shell to be freed elsewhere.
    assert_eq!(a.jobs.take_orders().garbage.len(), 1);
}

#[test]
fn a_newer_change_supersedes_and_the_stale_result_is_dropped() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    let first = started(&mut a);
    tool(&mut a, ToolAction::Order);
    let second = started(&mut a);
    assert_eq!(
        a.jobs.pending.as_ref().unwrap().label,
        "bottom-up › by weight"
    );
    // The first result is stale: dropped (for the shell to free), nothing changes.
    finish(&mut a, first);
    assert!(!ex(&a).tools.applied.inverted);
    assert!(a.jobs.pending.is_some());
    assert_eq!(a.jobs.take_orders().garbage.len(), 1);
    // Progress of a stale job is ignored too.
    update(
        &mut a,
        Action::Computing(second.id - 1, Duration::from_secs(9)),
    );
    assert_eq!(a.jobs.pending.as_ref().unwrap().elapsed, Duration::ZERO);
    finish(&mut a, second);
    assert!(ex(&a).tools.applied.shows_the_same(&a.view));
    assert_eq!(ex(&a).tools.applied.flags(), ["bottom-up", "by weight"]);
}

#[test]
fn esc_cancels_the_pending_change() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    let done = started(&mut a);
    update(&mut a, Action::Escape);
    assert!(a.jobs.pending.is_none());
    assert!(!a.view.inverted);
    assert_eq!(message(&a), "Cancelled: bottom-up");
    let orders = a.jobs.take_orders();
    assert!(orders.stop && orders.start.is_none());
    // A result that was already on its way is dropped.
    finish(&mut a, done);
    assert!(!ex(&a).tools.applied.inverted);
    // Esc without a pending job keeps its meaning (zoom back, clear the search).
    update(&mut a, Action::SearchStart);
    update(&mut a, Action::SearchType('l'));
    update(&mut a, Action::SearchAccept);
    update(&mut a, Action::Escape);
    assert!(!ex(&a).search.is_active());
}

#[test]
fn undo_cancels_the_pending_change_and_only_it() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    finish_started(&mut a);
    tool(&mut a, ToolAction::Order);
    assert!(a.jobs.pending.is_some());
    // `u` undoes the change being computed: what is shown is what is wanted again.
    tool(&mut a, ToolAction::Undo);
    assert!(a.jobs.pending.is_none());
    assert!(a.jobs.take_orders().stop);
    assert_eq!(message(&a), "Cancelled: bottom-up › by weight");
    assert!(ex(&a).tools.applied.inverted);
    // The next `u` undoes what is shown, in the background again.
    tool(&mut a, ToolAction::Undo);
    assert_eq!(
        a.jobs.pending.as_ref().unwrap().label,
        "the profile as read"
    );
    finish_started(&mut a);
    assert!(ex(&a).tools.applied.is_identity());
    assert_eq!(message(&a), "Showing the profile as read");
}

fn finish_started(a: &mut App) {
    let done = started(a);
    finish(a, done);
}

#[test]
fn a_job_told_to_stop_returns_nothing() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    let job = a.jobs.take_orders().start.unwrap();
    assert!(job.run(&|| true).is_none());
}

#[test]
fn small_trees_change_at_once() {
    let mut a = App::new(profile(STACKS, "t.folded"), ColorMode::Mono);
    update(&mut a, Action::Resize(80, 24));
    tool(&mut a, ToolAction::Invert);
    assert!(a.jobs.pending.is_none());
    assert!(a.jobs.take_orders().start.is_none());
    assert!(ex(&a).tools.applied.inverted);
    assert_eq!(message(&a), "bottom-up · u undoes");
}

#[test]
fn callers_and_callees_of_a_large_function_are_a_job() {
    let mut a = app();
    update(&mut a, Action::Move(Dir::Down));
    tool(&mut a, ToolAction::Sandwich);
    assert_eq!(
        a.jobs.pending.as_ref().unwrap().label,
        "callers / callees of main"
    );
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
    finish_started(&mut a);
    assert_eq!(
        (a.mode, ex(&a).tools.screen),
        (Mode::Sandwich, Screen::Sandwich)
    );
    let s = ex(&a).tools.sandwich.as_ref().unwrap();
    assert_eq!(s.panes[1].tree.total(), 95);
    // Closing while a recentring is computed gives it up.
    a.jobs.background_from = 0;
    tool(&mut a, ToolAction::Pane);
    tool(&mut a, ToolAction::Move(Dir::Down));
    tool(&mut a, ToolAction::Recenter);
    assert!(a.jobs.pending.is_some());
    tool(&mut a, ToolAction::Close);
    assert!(a.jobs.pending.is_none());
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn callers_and_callees_asked_for_during_a_view_change_come_after_it() {
    let mut a = app();
    update(&mut a, Action::Move(Dir::Down));
    tool(&mut a, ToolAction::Invert);
    tool(&mut a, ToolAction::Sandwich);
    // The view is computed first; the sandwich waits for it.
    assert_eq!(a.jobs.pending.as_ref().unwrap().label, "bottom-up");
    finish_started(&mut a);
    assert_eq!(
        a.jobs.pending.as_ref().unwrap().label,
        "callers / callees of main"
    );
    finish_started(&mut a);
    assert_eq!(ex(&a).tools.screen, Screen::Sandwich);
    assert!(ex(&a).tools.applied.inverted);
}

#[test]
fn an_open_finder_lists_the_new_view() {
    let mut a = app();
    update(&mut a, Action::Move(Dir::Down));
    update(&mut a, Action::Move(Dir::Down));
    tool(&mut a, ToolAction::Exclude);
    tool(&mut a, ToolAction::Finder);
    tool(&mut a, ToolAction::Type('l'));
    finish_started(&mut a);
    assert_eq!(a.mode, Mode::Finder);
    let f = &ex(&a).tools.finder;
    assert_eq!(f.query, "l");
    // eval's stacks are gone: lex weighs what parse left of it.
    let names: Vec<&str> = f
        .hits
        .iter()
        .map(|h| ex(&a).profile.tree.names().resolve(h.name))
        .collect();
    assert_eq!(names, ["lex", "idle"]);
    assert_eq!(f.weights[f.hits[0].name.0 as usize], 30);
}

#[test]
fn compare_mode_recomputes_both_sides_in_the_background() {
    let before = profile(STACKS, "before.folded");
    let after = profile("main;eval;lex 10\nmain 5\n", "after.folded");
    let mut a = App::compare(before, after, ColorMode::Mono);
    a.jobs.background_from = 0;
    update(&mut a, Action::Resize(80, 24));
    tool(&mut a, ToolAction::Invert);
    let cmp = a.comparison().unwrap();
    assert!(!cmp.applied().inverted);
    assert_eq!(a.jobs.pending.as_ref().unwrap().label, "bottom-up");
    finish_started(&mut a);
    let cmp = a.comparison().unwrap();
    assert!(cmp.applied().inverted);
    assert!(
        cmp.after
            .profile
            .tree
            .child_named(NodeId::ROOT, "lex")
            .is_some()
    );
    assert_eq!(
        cmp.driver().tools.message.as_deref(),
        Some("bottom-up (both profiles) · u undoes")
    );
    tool(&mut a, ToolAction::Undo);
    update(&mut a, Action::Escape);
    assert!(a.jobs.pending.is_none());
    assert!(a.comparison().unwrap().applied().inverted);
}

#[test]
fn quitting_does_not_wait_for_a_job() {
    let mut a = app();
    tool(&mut a, ToolAction::Invert);
    update(&mut a, Action::Quit);
    assert!(a.quit);
}
