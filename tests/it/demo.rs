//! `flametui --demo`: the compiled-in recording opens as the README's first command says,
//! at 80×24 and 200×50, on its named threads on and off the CPU.

use flametui::app::App;
use flametui::input::{LoadOptions, demo, load_path};
use flametui::profile::Profile;
use flametui::profile::metrics::BOTH_HALVES;
use flametui::view::color::ColorMode;
use insta::assert_snapshot;

use crate::e2e::{BIN, Tmux, tmux_available};
use crate::support::{key, session, text};
use crossterm::event::KeyCode;

/// The demo as `--demo` loads it: on+off-CPU time.
fn demo_profile() -> Profile {
    let opts = LoadOptions {
        metric: Some(BOTH_HALVES.to_owned()),
        ..LoadOptions::default()
    };
    load_path(demo::PATH, &opts).unwrap().main().clone()
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

#[test]
fn the_demo_heat_map_shows_the_phase_change() {
    let app = App::new(demo_profile(), ColorMode::Mono);
    let (buf, _) = session(app, 200, 50, vec![key(KeyCode::Char('T'))]);
    assert_snapshot!("demo_heat_map_200x50", text(&buf));
}

#[test]
fn flametui_demo_opens_and_quits() {
    if !tmux_available() {
        return;
    }
    let t = Tmux::start("demo", &format!("{BIN} --demo"));
    t.wait_for("the demo's header", |s| s.contains("demo: a web service"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
}
