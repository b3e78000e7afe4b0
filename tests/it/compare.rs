//! Compare mode (two profiles): the numbers the screen shows for the seed-shaped stap
//! profiles, whole-frame snapshots of each view at 80×24 and 160×45, the differential
//! colours in every colour depth, the plain-text table without a terminal, and a tmux session
//! of `flametui A B`.

use std::process::Command;

use crossterm::event::{KeyCode, MouseEventKind};
use flametui::app::App;
use flametui::terminal::Input;
use flametui::view::color::ColorMode;
use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::style::Color;

use crate::e2e::{BIN, Tmux, quote, tmux_available};
use crate::support::{key, mouse, profile, session, testdata, text, typing};

const B1E1: &str = "stap-seed-b1e1.txt";
const B0E1: &str = "stap-seed-b0e1.txt";
const B0E0: &str = "stap-seed-b0e0.txt";
const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Compares two `testdata/` profiles at `w`×`h` over the inputs; returns the screen text.
fn compare(before: &str, after: &str, size: (u16, u16), inputs: Vec<Input>) -> String {
    let app = App::compare(profile(before), profile(after), ColorMode::Mono);
    text(&session(app, size.0, size.1, inputs).0)
}

fn enter() -> Input {
    key(KeyCode::Enter)
}

/// Keys, with `\r` for Enter.
fn keys(s: &str) -> Vec<Input> {
    s.chars()
        .map(|c| {
            if c == '\r' {
                enter()
            } else {
                typing(&c.to_string()).remove(0)
            }
        })
        .collect()
}

#[test]
fn redo_flush_vanishes_from_b0e1_to_b0e0() {
    // Delta table, filtered to the function: off-CPU 42.86% → 0%, -42.86 pp (and on-CPU
    // 4.10% → 0% in a row of its own).
    let screen = compare(B0E1, B0E0, (80, 24), keys("vv/log_write_flush\r"));
    assert!(screen.contains("view 3/3 delta table"), "{screen}");
    assert!(
        screen.contains(
            "   -42.86~   42.86%    0.00%  3,000      0  log_write_flush_to_disk_low() [off-…"
        ),
        "{screen}"
    );
    // One row per half: on-CPU samples and off-CPU units are never added.
    assert!(screen.contains("2 of 84 functions match"), "{screen}");
    assert!(
        screen
            .contains("BEFORE 3,000 off-CPU units (42.86%) · AFTER 0 off-CPU units: not in AFTER"),
        "{screen}"
    );
    assert!(screen.contains("relative -100.0%"), "{screen}");
    // Enter: back to the graph it came from (differential) on the function's heaviest
    // frame, in BEFORE's shape since AFTER lacks it.
    let screen = compare(B0E1, B0E0, (80, 24), keys("vv/log_write_flush\r\r"));
    assert!(screen.contains("view 2/3 differential"), "{screen}");
    assert!(screen.contains(" Δ BEFORE stap-seed-b0e1.txt"), "{screen}");
    let facts = "log_write_flush_to_disk_low()
BEFORE 3,000 off-CPU units (42.86%) · AFTER 0 off-CPU units: not in AFTER
Δ -42.86 pp ~ · relative -100.0% · samples 1/3 → 0/2: too few to tell
self 0 off-CPU units → 0 off-CPU units (0.00% → 0.00%)";
    assert!(screen.contains(facts), "{screen}");
    // Side by side, AFTER's pane says the path is not there.
    let screen = compare(B0E1, B0E0, (80, 24), keys("vv/log_write_flush\r\rvv"));
    assert!(screen.contains("view 1/3 side by side"), "{screen}");
    assert!(screen.contains("   AFTER  ✗ not in AFTER"), "{screen}");
    assert!(screen.contains(facts), "{screen}");
}

#[test]
fn sync_binlog_share_of_b1e1() {
    let screen = compare(B1E1, B0E1, (120, 24), keys("vv"));
    let rows: Vec<&str> = screen.lines().collect();
    assert!(
        rows[1].contains("Δ pp    before    after BEFORE  AFTER #before  #after  function"),
        "{screen}"
    );
    // The off-CPU half of a SystemTap profile counts its stacks as samples: 1 of 3 is
    // too few to tell a finding.
    assert_eq!(
        rows[2].trim_end(),
        "   -47.30~   47.30%    0.00%  3,500      0       1       0  \
         MYSQL_BIN_LOG::sync_binlog_file(bool) [off-cpu]"
    );
    assert!(rows[3].ends_with("  my_sync [off-cpu]"), "{screen}");
}

#[test]
fn internal_frames_show_subtree_totals_on_both_sides() {
    // The first match in pre-order is the off-CPU `ordered_commit`: 6,400 → 3,000 units.
    let screen = compare(B1E1, B0E1, (80, 24), keys("/ordered_commit\rn"));
    assert!(
        screen.contains(
            "MYSQL_BIN_LOG::ordered_commit(THD*, bool, bool)
BEFORE 6,400 off-CPU units (86.49%) · AFTER 3,000 off-CPU units (42.86%)
Δ -43.63 pp ~ · relative -50.4%"
        ),
        "{screen}"
    );
    assert!(
        screen.contains("self 0 off-CPU units → 0 off-CPU units (0.00% → 0.00%)"),
        "{screen}"
    );
}

#[test]
fn hover_tooltip_shows_both_sides() {
    let app = App::compare(profile(B0E1), profile(B0E0), ColorMode::Mono);
    let (buf, _) = session(app, 80, 24, vec![mouse(MouseEventKind::Moved, 60, 3)]);
    let screen = text(&buf);
    assert!(screen.contains("│[on-cpu]"), "{screen}");
    assert!(
        screen.contains("│BEFORE 3,000 samples (100.00%)"),
        "{screen}"
    );
    assert!(screen.contains("│Δ 0.00 pp ~ · relative +0.0%"), "{screen}");
}

fn each_size(name: &str, script: impl Fn() -> Vec<Input>) {
    for size in SIZES {
        let screen = compare(B0E1, B0E0, size, script());
        assert_snapshot!(format!("compare_{name}_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn side_by_side_view() {
    each_size("side_by_side", || keys("jjjj"));
}

#[test]
fn differential_view() {
    each_size("differential", || keys("jjjjv"));
}

#[test]
fn differential_view_of_befores_shape() {
    each_size("differential_before", || keys("/log_write_flush\rnv"));
}

#[test]
fn delta_table_view() {
    each_size("delta_table", || keys("vvjj"));
}

#[test]
fn exclude_a_typed_regex_from_both_sides() {
    // `X fsync` Enter: the stacks through any fsync frame leave both panes, and the
    // breadcrumb says so.
    let screen = compare(B0E1, B0E0, (80, 24), keys("Xfsync\r"));
    assert!(screen.contains(" · exclude /fsync/ "), "{screen}");
    assert_snapshot!("compare_exclude_regex_80x24", screen);
}

#[test]
fn finder_over_both_profiles() {
    each_size("finder", || keys("plogwfl"));
}

#[test]
fn finder_finds_a_function_only_before_and_shows_it_there() {
    // The seed study's question in four keys: where did the redo-log flush go?
    let screen = compare(B0E1, B0E0, (80, 24), keys("plogwfl"));
    assert!(
        screen.contains(" 42.86% →   0.00%  log_write_flush_to_disk_low() [off-cpu]"),
        "{screen}"
    );
    assert!(
        screen.contains("Find a function in either profile: 2 of 84"),
        "{screen}"
    );
    let screen = compare(B0E1, B0E0, (80, 24), keys("plogwfl\r"));
    assert!(screen.contains("   AFTER  ✗ not in AFTER"), "{screen}");
    assert!(
        screen
            .contains("BEFORE 3,000 off-CPU units (42.86%) · AFTER 0 off-CPU units: not in AFTER"),
        "{screen}"
    );
    assert!(screen.contains("Matched: on-CPU 4.10%"), "{screen}");
}

#[test]
fn narrow_delta_table_keeps_the_names() {
    let screen = compare(B0E1, B0E0, (40, 12), keys("vv"));
    assert!(
        screen.contains("     Δ pp    before    after  function"),
        "{screen}"
    );
    assert!(
        screen.contains("   -42.86~   42.86%    0.00%  SyS_fsync"),
        "{screen}"
    );
}

#[test]
fn help_lists_the_compare_keys() {
    let screen = compare(B0E1, B0E0, (160, 45), keys("?"));
    assert!(screen.contains("Delta table"), "{screen}");
    assert!(
        screen.contains("show the function in the graph"),
        "{screen}"
    );
}

/// Background colour of the first cell of the frame named `name` (on screen row `y`).
fn frame_bg(buf: &Buffer, name: &str) -> Color {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let row: String = (area.left()..area.right())
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        if let Some(i) = row.find(name) {
            let x = u16::try_from(row[..i].chars().count()).unwrap();
            return buf[(x, y)].bg;
        }
    }
    panic!("{name} not on screen");
}

#[test]
fn differential_colours_in_every_depth() {
    for mode in [ColorMode::TrueColor, ColorMode::Ansi256, ColorMode::Ansi16] {
        let app = App::compare(profile(B0E1), profile(B0E0), mode);
        let (buf, _) = session(app, 80, 24, keys("v"));
        // b0e1 → b0e0, within the off-CPU half (each half is 100% of itself on both
        // sides, so the halves are unchanged): the commit path went, the insert grew.
        // (The insert's name comes first on screen, in the off-CPU half.)
        let (grew, shrank, same) = (
            frame_bg(&buf, "Sql_cmd_insert::"),
            frame_bg(&buf, "mysql_execute_command("),
            frame_bg(&buf, "[off-cpu]"),
        );
        assert!(grew != shrank && grew != same && shrank != same, "{mode:?}");
        match (mode, grew, shrank) {
            (ColorMode::TrueColor, Color::Rgb(r, g, _), Color::Rgb(r2, _, b2)) => {
                assert!(r > g && b2 > r2, "{grew:?} {shrank:?}");
            }
            (ColorMode::Ansi16, Color::LightRed | Color::Red, Color::LightBlue | Color::Blue)
            | (ColorMode::Ansi256, Color::Indexed(_), Color::Indexed(_)) => {}
            _ => panic!("{mode:?}: {grew:?} {shrank:?}"),
        }
    }
    // Without colour, a marker tells growth from shrinkage.
    let screen = compare(B0E1, B0E0, (80, 24), keys("v"));
    assert!(
        screen.contains("-mysql_execute_command(") && screen.contains("+Sql_cmd_insert::"),
        "{screen}"
    );
}

#[test]
fn two_profiles_without_a_terminal_print_the_delta_table() {
    let (a, b) = (testdata(B0E1), testdata(B0E0));
    let out = Command::new(BIN)
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run flametui");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Top 20 functions by change of total share"),
        "{text}"
    );
    assert!(
        text.contains(
            "  -42.86~   42.86%    0.00%  3,000     0       1      0  \
             _ZL27log_write_flush_to_disk_lowv [off-cpu]"
        ),
        "{text}"
    );
    assert!(
        text.contains("Samples: BEFORE 3,003, AFTER 4,602\n"),
        "{text}"
    );
    assert!(
        text.contains("\n* p < 0.01 (two-proportion z-test"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 6 + 20 + 2, "{text}");
}

#[test]
fn tmux_compare_two_profiles() {
    if !tmux_available() {
        return;
    }
    let (a, b) = (testdata(B0E1), testdata(B0E0));
    let t = Tmux::start("compare", &format!("{BIN} {} {}", quote(&a), quote(&b)));
    t.wait_for("side by side", |s| {
        // At 80 columns the header keeps both sides' sample counts; the pane labels
        // name the files.
        s.contains(" 3,003 → 4,602 samples ")
            && s.contains("BEFORE stap-seed-b0e1.txt")
            && s.contains("AFTER  stap-seed-b0e0.txt")
            && s.contains("view 1/3 side by side")
            && s.contains(" BEFORE ")
            && s.contains(" AFTER ")
    });
    t.send(&["j"]);
    t.wait_for("both sides in the status", |s| {
        s.contains("[off-cpu]") && s.contains("BEFORE 7,000 off-CPU units (100.00%)")
    });
    t.send(&["v"]);
    t.wait_for("the differential view", |s| {
        s.contains("view 2/3 differential")
    });
    t.send(&["v"]);
    t.wait_for("the delta table", |s| {
        s.contains("view 3/3 delta table") && s.contains("   -42.86~   42.86%    0.00%")
    });
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:0"));
    assert!(
        !screen.contains("delta table"),
        "alternate screen left:\n{screen}"
    );
}

#[test]
fn tmux_differential_file_alone_compares() {
    if !tmux_available() {
        return;
    }
    let diff = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-diff-{}.folded", std::process::id()));
    let out = Command::new(BIN)
        .args(["--export", "folded"])
        .arg(testdata(B0E1))
        .arg(testdata(B0E0))
        .arg("-o")
        .arg(&diff)
        .output()
        .expect("run flametui");
    assert!(out.status.success());
    let t = Tmux::start("difffile", &format!("{BIN} {}", quote(&diff)));
    t.wait_for("compare mode", |s| s.contains("view 1/3 side by side"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
    let _ = std::fs::remove_file(&diff);
}

/// The seed's question from perf recordings: off-CPU time of `dd` with and without
/// `oflag=dsync` (`perf record -e sched:sched_switch -g -a`), side by side, both opening
/// on the off-CPU metric; the search gives the share of the waiting that went to
/// `ext4_sync_file` on each side (none without sync, 5.22% with it).
#[test]
fn off_cpu_time_without_and_with_sync_160x30() {
    let mut inputs = typing("/ext4_sync_file");
    inputs.push(crate::support::key(KeyCode::Enter));
    let screen = compare(
        "perf-dd-nosync-sched.txt.gz",
        "perf-dd-sync-sched.txt.gz",
        (160, 30),
        inputs,
    );
    assert_snapshot!("compare_off_cpu_sync_160x30", screen);
    assert!(screen.contains("5.22%"), "{screen}");
    // BEFORE's off-CPU time rests on 10 blocks: the header says so, ahead of the files.
    let top = screen.lines().next().unwrap_or_default();
    assert!(top.starts_with(" ⚠ BEFORE has only 10 samples · "), "{top}");
    assert!(top.contains(" · 10 → 1,908 samples"), "{top}");
}

#[test]
fn real_before_after_pair_marks_findings_and_noise() {
    // dd with fsync after each block (2,523 samples) against dd without (88).
    let text = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().expect("run flametui");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (b, a) = (
        testdata("perf-dd-fsync.txt.gz"),
        testdata("perf-dd-nosync.txt.gz"),
    );
    let out = text(&[b.to_str().unwrap(), a.to_str().unwrap()]);
    assert!(out.contains("Samples: BEFORE 2,523, AFTER 88\n"), "{out}");
    assert!(
        out.contains("Warning: AFTER has only 88 samples (under 100): its shares are noise"),
        "{out}"
    );
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("#before"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 20, "{out}");
    // Even so, the fsync path's 2,275 of 2,523 samples against none of 88 is a finding.
    assert!(
        rows[0].starts_with(
            "  -90.17*   90.17%    0.00%  1.14 s    0 ns   2,275      0  ext4_sync_file"
        ),
        "{out}"
    );
    assert!(out.contains("\n* p < 0.01 (two-proportion z-test"), "{out}");
}
