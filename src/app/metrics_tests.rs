//! `m`: the metrics of one input (perf events, pprof sample types, SystemTap halves), one
//! shown at a time, the same on both sides of a comparison.

use std::io::Cursor;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::Explorer;
use crate::app::keymap::action_for;
use crate::input::{LoadOptions, load_reader};
use crate::profile::NodeId;
use crate::profile::Profile;
use crate::profile::slice::Slice;
use crate::view::color::ColorMode;

/// Two events: cpu-clock (periods in ns) and a tracepoint counted once per sample.
const TWO: &str = "\
app 1/1 1.000: 5 cpu-clock: \n\t3 work+0x1 (/bin/app)\n\t0 main+0x1 (/bin/app)\n\n\
app 1/1 1.001: 1 sched:sched_switch: prev_comm=app\n\t9 __schedule+0x1 ([kernel.kallsyms])\n\t4 sleep+0x1 (/bin/app)\n\t0 main+0x1 (/bin/app)\n\n\
app 1/1 1.002: 7 cpu-clock: \n\t4 sleep+0x1 (/bin/app)\n\t0 main+0x1 (/bin/app)\n\n\
app 1/1 1.003: 1 sched:sched_switch: prev_comm=app\n\t9 __schedule+0x1 ([kernel.kallsyms])\n\t3 work+0x1 (/bin/app)\n\t0 main+0x1 (/bin/app)\n\n";

const ONE: &str = "\
app 1/1 1.000: 4 cpu-clock: \n\t3 work+0x1 (/bin/app)\n\t0 main+0x1 (/bin/app)\n\n";

fn profile(text: &str) -> Profile {
    load_reader(
        Cursor::new(text.to_owned()),
        "p.txt",
        &LoadOptions::default(),
    )
    .unwrap()
    .main()
    .clone()
}

fn sized(mut app: App) -> App {
    update(&mut app, Action::Resize(100, 30));
    app
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let k = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        if let Some(a) = action_for(app.mode, &k) {
            update(app, a);
        }
    }
}

fn shown(app: &App) -> &Explorer {
    match &app.phase {
        Phase::Ready(ex) => ex,
        Phase::Compare(cmp) => cmp.driver(),
        Phase::Loading(_) => panic!("loading"),
    }
}

fn message(app: &App) -> String {
    shown(app).tools.message.clone().unwrap_or_default()
}

fn event(ex: &Explorer) -> String {
    ex.profile.stats.event.clone().unwrap_or_default()
}

#[test]
fn m_cycles_the_events_each_with_its_own_tree_and_keeps_the_selection() {
    let mut app = sized(App::new(profile(TWO), ColorMode::Mono));
    assert_eq!(event(shown(&app)), "cpu-clock");
    assert_eq!(shown(&app).profile.tree.total(), 12);
    // Select app;main;work, which both events have.
    let tree = &shown(&app).profile.tree;
    let work = ["app", "main", "work"]
        .iter()
        .fold(NodeId::ROOT, |at, n| tree.child_named(at, n).unwrap());
    if let Phase::Ready(ex) = &mut app.phase {
        ex.selected = crate::view::Target::Frame(work);
    }
    press(&mut app, "m");
    let ex = shown(&app);
    assert_eq!(event(ex), "sched:sched_switch");
    assert_eq!(ex.profile.tree.total(), 2, "one per tracepoint sample");
    assert!(
        message(&app).contains("Metric 2/2 sched:sched_switch"),
        "{}",
        message(&app)
    );
    let crate::view::Target::Frame(sel) = ex.selected else {
        panic!("no frame selected")
    };
    assert_eq!(ex.profile.tree.path_string(sel), "app;main;work");
    press(&mut app, "m");
    assert_eq!(event(shown(&app)), "cpu-clock");
    assert_eq!(shown(&app).profile.tree.total(), 12);
}

#[test]
fn m_keeps_the_transforms_and_forgets_the_slice() {
    let mut app = sized(App::new(profile(TWO), ColorMode::Mono));
    press(&mut app, "r");
    assert!(app.view.inverted);
    app.view.set_slice(Slice {
        range: Some((0, 1_500_000)),
        tasks: None,
    });
    update(&mut app, Action::Resize(100, 30));
    press(&mut app, "m");
    assert!(app.view.inverted, "bottom-up stays");
    assert!(app.view.slice.is_everything());
    assert!(message(&app).contains("slice cleared"), "{}", message(&app));
    let ex = shown(&app);
    assert_eq!(event(ex), "sched:sched_switch");
    // Bottom-up: the leaves are the roots.
    let roots: Vec<&str> = ex
        .profile
        .tree
        .children(NodeId::ROOT)
        .map(|c| ex.profile.tree.name(c))
        .collect();
    assert!(roots.contains(&"__schedule"), "{roots:?}");
    press(&mut app, "u");
    assert!(!app.view.inverted);
    assert!(
        app.view.slice.is_everything(),
        "u does not bring back a slice of another metric"
    );
}

#[test]
fn m_on_one_metric_says_so() {
    let mut app = sized(App::new(profile(ONE), ColorMode::Mono));
    press(&mut app, "m");
    assert!(
        message(&app).starts_with("This profile has one metric"),
        "{}",
        message(&app)
    );
    assert_eq!(shown(&app).profile.tree.total(), 4);
}

#[test]
fn compare_shows_the_same_metric_on_both_sides_and_names_one_sided_ones() {
    // BEFORE has both events; AFTER only cpu-clock.
    let mut app = sized(App::compare(profile(TWO), profile(ONE), ColorMode::Mono));
    let Phase::Compare(cmp) = &app.phase else {
        panic!("not comparing")
    };
    assert_eq!(event(&cmp.before), "cpu-clock");
    assert_eq!(event(&cmp.after), "cpu-clock");
    press(&mut app, "m");
    let m = message(&app);
    assert!(m.contains("sched:sched_switch only in BEFORE"), "{m}");
    // Both sides with both events: m moves both.
    let mut app = sized(App::compare(profile(TWO), profile(TWO), ColorMode::Mono));
    press(&mut app, "m");
    let Phase::Compare(cmp) = &app.phase else {
        panic!("not comparing")
    };
    assert_eq!(event(&cmp.before), "sched:sched_switch");
    assert_eq!(event(&cmp.after), "sched:sched_switch");
    assert_eq!(cmp.after.profile.tree.total(), 2);
}

#[test]
fn compare_starts_on_a_metric_both_sides_have() {
    // AFTER shows sched_switch by --metric; BEFORE is moved onto it.
    let after = profile(TWO)
        .into_metric_named("sched:sched_switch")
        .unwrap();
    let app = sized(App::compare(profile(TWO), after, ColorMode::Mono));
    let Phase::Compare(cmp) = &app.phase else {
        panic!("not comparing")
    };
    assert_eq!(event(&cmp.before), event(&cmp.after));
    // A side with other units than the other says so.
    let folded = load_reader(Cursor::new("a;b 3\n"), "f.txt", &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let app = sized(App::compare(profile(TWO), folded, ColorMode::Mono));
    assert!(message(&app).is_empty() || message(&app).contains("Different metrics"));
}

/// The job the app asked the shell to start, run to its end.
fn started(app: &mut App) -> crate::app::jobs::Done {
    let job = app.jobs.take_orders().start.expect("a job to start");
    job.run(&|| false).expect("not stopped")
}

#[test]
fn a_large_metric_switch_is_a_job_keys_meanwhile_and_esc_gives_it_up() {
    let mut app = sized(App::new(profile(TWO), ColorMode::Mono));
    app.jobs.background_from = 0;
    press(&mut app, "m");
    // Wanted, not shown yet: the header's job line names it; keys work on cpu-clock.
    assert_eq!(event(shown(&app)), "cpu-clock");
    assert_eq!(
        app.jobs.pending.as_ref().unwrap().label,
        "metric sched:sched_switch"
    );
    press(&mut app, "j");
    let done = started(&mut app);
    crate::app::finish(&mut app, done);
    assert!(app.jobs.pending.is_none());
    assert_eq!(event(shown(&app)), "sched:sched_switch");
    assert!(
        message(&app).starts_with("Metric 2/2 sched:sched_switch"),
        "{}",
        message(&app)
    );
    // Esc while the next switch is computed: back to the metric shown, nothing pending.
    press(&mut app, "m");
    assert!(app.jobs.pending.is_some());
    update(&mut app, Action::Escape);
    assert!(app.jobs.pending.is_none());
    assert_eq!(
        app.metrics[0].shown, 1,
        "the metric wanted is the one shown again"
    );
    assert_eq!(event(shown(&app)), "sched:sched_switch");
    // A view change asked for while a switch is computed is computed on the new metric.
    press(&mut app, "m");
    let _superseded = app.jobs.take_orders();
    press(&mut app, "r");
    let done = started(&mut app);
    crate::app::finish(&mut app, done);
    assert_eq!(event(shown(&app)), "cpu-clock");
    assert!(shown(&app).tools.applied.inverted);
}

#[test]
fn a_large_metric_switch_in_compare_mode_is_a_job_too() {
    let mut app = sized(App::compare(profile(TWO), profile(TWO), ColorMode::Mono));
    app.jobs.background_from = 0;
    press(&mut app, "m");
    assert_eq!(
        app.jobs.pending.as_ref().unwrap().label,
        "metric sched:sched_switch (both profiles)"
    );
    let done = started(&mut app);
    crate::app::finish(&mut app, done);
    let Phase::Compare(cmp) = &app.phase else {
        panic!("not comparing")
    };
    assert_eq!(event(&cmp.before), "sched:sched_switch");
    assert_eq!(event(&cmp.after), "sched:sched_switch");
    assert!(message(&app).starts_with("Metric 2/2"), "{}", message(&app));
}
