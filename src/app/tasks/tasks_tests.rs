use std::fmt::Write as _;
use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::keymap::action_for;
use crate::app::{Action, App, update};
use crate::input::{LoadOptions, load_reader};
use crate::profile::NodeId;
use crate::profile::group::Group;
use crate::view::color::ColorMode;

/// A perf script of `(comm, ids, time, leaf function)` samples, 1 ms apart, each 1 ms of
/// cpu-clock (`ids` is `pid/tid` or a tid alone).
fn perf(samples: &[(&str, &str, &str)]) -> String {
    let mut out = String::new();
    for (i, (comm, ids, leaf)) in samples.iter().enumerate() {
        let _ = write!(
            out,
            "{comm} {ids} [000] 100.{:06}: 1000000 cpu-clock:pppH: \n\t 1 {leaf} (/bin/x)\n\t 2 main (/bin/x)\n\n",
            i * 1000
        );
    }
    out
}

const POOL: &[(&str, &str, &str)] = &[
    ("server", "10/10", "accept"),
    ("worker-1", "10/11", "work"),
    ("worker-2", "10/12", "work"),
    ("worker-2", "10/12", "work"),
    ("worker-12", "10/13", "wait"),
    ("cron", "20/20", "tick"),
    ("cron", "20/20", "tick"),
    ("cron", "20/20", "tick"),
    ("cron", "20/20", "tick"),
    ("cron", "20/20", "tick"),
    ("server", "10/10", "accept"),
];

fn app_of(text: &str, name: &str) -> App {
    let p = load_reader(Cursor::new(text.to_owned()), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let mut app = App::new(p, ColorMode::Mono);
    update(&mut app, Action::Resize(100, 30));
    app
}

fn press(app: &mut App, keys: &[KeyEvent]) {
    for k in keys {
        if let Some(a) = action_for(app.mode, k) {
            update(app, a);
        }
    }
}

fn ch(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn ex(app: &App) -> &Explorer {
    app.explorer().unwrap()
}

/// The rows as `(nested, name, samples)`.
fn rows(app: &App) -> Vec<(bool, String, u64)> {
    ex(app)
        .tools
        .tasks
        .rows
        .iter()
        .map(|r| (r.nested, r.name.to_string(), r.totals.samples))
        .collect()
}

fn roots(app: &App) -> Vec<String> {
    let t = &ex(app).profile.tree;
    t.children(NodeId::ROOT)
        .map(|c| t.name(c).to_owned())
        .collect()
}

#[test]
fn processes_come_heaviest_first_with_their_threads() {
    let mut a = app_of(&perf(POOL), "p.txt");
    press(&mut a, &[ch('w')]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Tasks, Screen::Tasks));
    assert_eq!(
        rows(&a),
        [
            (false, "server".into(), 6),
            (true, "server".into(), 2),
            (true, "worker-2".into(), 2),
            (true, "worker-1".into(), 1),
            (true, "worker-12".into(), 1),
            (false, "cron".into(), 5),
        ]
    );
    let t = &ex(&a).tools.tasks;
    assert_eq!((t.counts, t.total.samples, t.has_pids), ((5, 2), 11, true));
    assert!(t.info.contains("5 threads in 2 processes"), "{}", t.info);
    // w closes it, Esc too.
    press(&mut a, &[ch('w')]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
    press(&mut a, &[ch('w'), code(KeyCode::Esc)]);
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn marked_tasks_are_the_slice_shown_and_u_undoes_it() {
    let mut a = app_of(&perf(POOL), "p.txt");
    // The server process (all its threads), then its main thread again: unmarked.
    press(&mut a, &[ch('w'), ch(' '), ch('j'), ch(' ')]);
    let marked = ex(&a).tools.tasks.marked.len();
    assert_eq!(marked, 3);
    assert_eq!(
        ex(&a).tools.tasks.marked_row(&ex(&a).tools.tasks.rows[0]),
        Some(false)
    );
    press(&mut a, &[code(KeyCode::Enter)]);
    assert_eq!((a.mode, ex(&a).tools.screen), (Mode::Normal, Screen::Graph));
    assert_eq!(ex(&a).profile.tree.node(NodeId::ROOT).samples, 4);
    assert_eq!(ex(&a).tools.applied.crumbs(), ["3 tasks"]);
    let named = ex(&a)
        .tools
        .applied
        .crumbs_named(&ex(&a).original().samples);
    assert_eq!(named, ["server 10 · 3 threads"]);
    assert_eq!(roots(&a), ["worker-1", "worker-12", "worker-2"]);
    // The heat map and the strip count those tasks too: they read the view's task set.
    assert_eq!(a.view.slice.tasks.as_ref().map(BTreeSet::len), Some(3));
    press(&mut a, &[ch('u')]);
    assert_eq!(ex(&a).profile.tree.node(NodeId::ROOT).samples, 11);
    // Enter with nothing marked shows the selected row; a shows all again.
    press(&mut a, &[ch('w'), ch('G'), code(KeyCode::Enter)]);
    assert_eq!(roots(&a), ["cron"]);
    press(&mut a, &[ch('w')]);
    assert_eq!(
        ex(&a).tools.tasks.marked.len(),
        1,
        "opened with the view's tasks marked"
    );
    press(&mut a, &[ch('a')]);
    assert_eq!(ex(&a).profile.tree.node(NodeId::ROOT).samples, 11);
    assert!(a.view.slice.tasks.is_none());
}

#[test]
fn the_range_shown_is_kept() {
    let mut a = app_of(&perf(POOL), "p.txt");
    a.view.set_slice(Slice {
        range: Some((0, 5_000_000)),
        tasks: None,
    });
    update(&mut a, Action::Resize(100, 30));
    press(&mut a, &[ch('w')]);
    // Only the first 5 samples (the server process) are in the range.
    assert_eq!(rows(&a)[0], (false, "server".into(), 5));
    assert_eq!(rows(&a).len(), 5);
    press(&mut a, &[ch('j'), code(KeyCode::Enter)]);
    assert_eq!(a.view.slice.range, Some((0, 5_000_000)));
    assert_eq!(ex(&a).profile.tree.node(NodeId::ROOT).samples, 2);
}

#[test]
fn the_filter_is_fuzzy_and_keeps_processes_over_their_threads() {
    let mut a = app_of(&perf(POOL), "p.txt");
    press(&mut a, &[ch('w'), ch('/')]);
    assert_eq!(a.mode, Mode::TaskFilter);
    // Letters are typed, not keys of the list.
    press(&mut a, &[ch('w'), ch('k'), ch('2')]);
    assert_eq!(ex(&a).tools.tasks.query, "wk2");
    assert_eq!(
        rows(&a),
        [
            (false, "server".into(), 6),
            (true, "worker-2".into(), 2),
            (true, "worker-12".into(), 1),
        ]
    );
    assert_eq!(ex(&a).tools.tasks.rows[1].indices, [0, 3, 7]);
    // A pid matches its process and keeps all its threads.
    press(
        &mut a,
        &[KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)],
    );
    press(&mut a, &[ch('2'), ch('0')]);
    assert_eq!(rows(&a), [(false, "cron".into(), 5)]);
    // Enter keeps the filter for the list keys; Esc clears it, then closes.
    press(&mut a, &[code(KeyCode::Enter)]);
    assert_eq!(a.mode, Mode::Tasks);
    press(&mut a, &[code(KeyCode::Esc)]);
    assert_eq!((a.mode, rows(&a).len()), (Mode::Tasks, 6));
    press(&mut a, &[ch('/'), ch('z'), ch('z'), code(KeyCode::Enter)]);
    assert!(rows(&a).is_empty());
    press(&mut a, &[code(KeyCode::Enter)]);
    assert!(
        ex(&a)
            .tools
            .message
            .as_deref()
            .unwrap_or("")
            .contains("No task to show")
    );
}

#[test]
fn w_groups_the_towers_and_u_undoes_it() {
    let mut a = app_of(&perf(POOL), "p.txt");
    let before = ex(&a).profile.tree.total();
    press(&mut a, &[ch('W')]);
    assert_eq!(a.view.group, Group::Process);
    assert_eq!(roots(&a), ["cron-20", "server-10"]);
    assert_eq!(ex(&a).tools.applied.crumbs(), ["by process"]);
    press(&mut a, &[ch('W')]);
    assert_eq!(roots(&a).len(), 5);
    assert!(roots(&a).contains(&"worker-12-13".to_owned()));
    press(&mut a, &[ch('W')]);
    assert_eq!(roots(&a), ["cron", "server", "worker-#"]);
    assert_eq!(ex(&a).profile.tree.total(), before);
    // Grouping and task sets combine, in the task screen too.
    press(
        &mut a,
        &[
            ch('w'),
            ch('j'),
            ch(' '),
            ch('j'),
            ch(' '),
            code(KeyCode::Enter),
        ],
    );
    assert_eq!(roots(&a), ["server", "worker-#"]);
    press(&mut a, &[ch('u')]);
    press(&mut a, &[ch('u')]);
    assert_eq!(a.view.group, Group::Thread);
    press(&mut a, &[ch('w'), ch('W')]);
    assert_eq!(a.view.group, Group::FoldedName);
    assert!(
        ex(&a).tools.tasks.info.contains("digits folded"),
        "{}",
        ex(&a).tools.tasks.info
    );
    press(&mut a, &[ch('W')]);
    assert!(a.view.is_identity());
}

#[test]
fn without_pids_threads_are_grouped_by_name() {
    let text = perf(&[
        ("gzip", "5", "deflate"),
        ("gzip", "6", "deflate"),
        ("gzip", "6", "deflate"),
        ("sh", "7", "wait"),
    ]);
    let mut a = app_of(&text, "nopid.txt");
    press(&mut a, &[ch('w')]);
    assert_eq!(
        rows(&a),
        [
            (false, "gzip".into(), 3),
            (true, "gzip".into(), 2),
            (true, "gzip".into(), 1),
            (false, "sh".into(), 1),
        ]
    );
    assert!(!ex(&a).tools.tasks.has_pids);
    assert!(ex(&a).tools.tasks.info.contains("in 2 names"));
    // Group by: no process without pids.
    press(&mut a, &[ch('W')]);
    assert_eq!(a.view.group, Group::Thread);
    assert_eq!(roots(&a), ["gzip-5", "gzip-6", "sh-7"]);
}

#[test]
fn input_without_tasks_says_so() {
    let mut a = app_of("main;a 3\nmain;b 2\n", "f.folded");
    press(&mut a, &[ch('w')]);
    assert_eq!(ex(&a).tools.screen, Screen::Graph);
    let m = ex(&a).tools.message.clone().unwrap_or_default();
    assert!(m.starts_with("No task information"), "{m}");
    press(&mut a, &[ch('W')]);
    assert!(a.view.is_identity());
    assert!(
        ex(&a)
            .tools
            .message
            .as_deref()
            .unwrap_or("")
            .starts_with("No task information")
    );
}
