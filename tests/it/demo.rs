//! `flametui --demo`: the compiled-in recording opens as the README's first command says,
//! at 80×24 and 200×50, on its named threads on and off the CPU.

use flametui::app::App;
use flametui::input::{DEMO_PATH, LoadOptions, load_path};
use flametui::profile::Profile;
use flametui::profile::metrics::BOTH_HALVES;
use flametui::view::color::ColorMode;
use insta::assert_snapshot;

use crate::e2e::{BIN, Tmux, tmux_available};
use crate::support::{key, session, text};
use crossterm::event::KeyCode;

/// The demo as `--demo` loads it: on+off-CPU time.
fn demo_profile() -> Profile {
    demo_as(BOTH_HALVES)
}

/// The demo shown as `metric` (what `m` switches to).
fn demo_as(metric: &str) -> Profile {
    let opts = LoadOptions {
        metric: Some(metric.to_owned()),
        ..LoadOptions::default()
    };
    load_path(DEMO_PATH, &opts).unwrap().main().clone()
}

#[test]
fn the_demo_holds_what_it_shows_off() {
    let p = demo_profile();
    let names = p.tree.names();
    for want in [
        "[on-cpu]",
        "[off-cpu]",
        "http-worker-1",
        "db-writer",
        "json_decode",
        "deflate_block",
        "do_syscall_64",
        "[off-cpu: S]",
        "[off-cpu: D]",
    ] {
        let found = names.lookup(want).is_some() || names.lookup_task(want).is_some();
        assert!(found, "no {want} in the demo");
    }
}

#[test]
fn the_demo_at_80x24_and_200x50() {
    for (w, h) in [(80, 24), (200, 50)] {
        let app = App::new(demo_profile(), ColorMode::Mono);
        let (buf, _) = session(app, w, h, Vec::new());
        assert_snapshot!(format!("demo_{w}x{h}"), text(&buf));
    }
}

/// On+off-CPU time is made of two events and has no timeline of its own: `T` says to
/// switch, and on cpu-clock the heat map shows the workers' change of phase.
#[test]
fn the_demo_heat_map_shows_the_phase_change() {
    let app = App::new(demo_profile(), ColorMode::Mono);
    let (buf, _) = session(app, 80, 24, vec![key(KeyCode::Char('T'))]);
    assert!(
        text(&buf).contains("press m for cpu-clock"),
        "{}",
        text(&buf)
    );
    let app = App::new(demo_as("cpu-clock"), ColorMode::Mono);
    let (buf, _) = session(app, 200, 50, vec![key(KeyCode::Char('T'))]);
    assert_snapshot!("demo_heat_map_200x50", text(&buf));
}

/// The search the README suggests: where the workers' time goes after the change.
#[test]
fn the_demo_phases_are_apart_in_time() {
    let p = demo_as("cpu-clock");
    let (parse, compress) = (
        p.tree.names().lookup("json_decode").unwrap(),
        p.tree.names().lookup("deflate_block").unwrap(),
    );
    let mut first = (u64::MAX, 0u64);
    let mut second = (u64::MAX, 0u64);
    for s in p.samples.samples() {
        // The function on the sample's stack, leaf first (below it: kernel frames of an
        // interrupt, at times).
        let mut at = Some(s.leaf);
        while let Some(id) = at {
            let name = p.tree.node(id).name;
            let span = if name == parse {
                &mut first
            } else if name == compress {
                &mut second
            } else {
                at = p.tree.parent(id);
                continue;
            };
            *span = (span.0.min(s.time), span.1.max(s.time));
            break;
        }
    }
    // Parsing ends where compressing begins (within the 100 ms a worker may finish a
    // request in), each over about half of the 3 s.
    assert!(first.1 < second.0 + 100_000_000, "{first:?} {second:?}");
    assert!(first.1 - first.0 > 1_000_000_000, "{first:?}");
    assert!(second.1 - second.0 > 1_000_000_000, "{second:?}");
}

#[test]
fn flametui_demo_opens_and_quits() {
    if !tmux_available() {
        return;
    }
    let t = Tmux::start("demo", &format!("{BIN} --demo"));
    t.wait_for("the demo's header", |s| s.contains("demo: web service"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
}
