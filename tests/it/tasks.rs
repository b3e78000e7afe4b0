//! The task list (`w`) and the grouping of the towers (`W`) on real recordings: frames at
//! two sizes, one task picked becomes the view's task set (header and totals follow it),
//! the list follows the time range shown, input without pids says how to get them, and
//! input without tasks says there are none.

use crossterm::event::KeyCode;
use insta::assert_snapshot;

use crate::support::{explore, key, profile, session, text, typing};
use flametui::app::App;
use flametui::profile::group::{Group, regroup};
use flametui::profile::slice::{Slice, slice_tree};
use flametui::profile::{NodeId, TaskId};
use flametui::view::color::ColorMode;

/// A system-wide recording (`perf record -a -g`, `perf script -F +pid`): 80 threads (two renamed by exec: 82 comm and tid pairs) of
/// 69 processes; see testdata/README.md.
const SYSTEM_WIDE: &str = "perf-system-wide.txt.gz";
/// 5 s, server, worker and a cron spike in [1.5, 1.7).
const TIMELINE: &str = "perf-timeline.txt.gz";

#[test]
fn task_list_80x24() {
    assert_snapshot!(
        "tasks_system_wide_80x24",
        text(&explore(SYSTEM_WIDE, 80, 24, typing("w")))
    );
    assert_snapshot!(
        "tasks_timeline_80x24",
        text(&explore(TIMELINE, 80, 24, typing("w")))
    );
}

#[test]
fn task_list_200x50() {
    assert_snapshot!(
        "tasks_system_wide_200x50",
        text(&explore(SYSTEM_WIDE, 200, 50, typing("w")))
    );
    assert_snapshot!(
        "tasks_timeline_200x50",
        text(&explore(TIMELINE, 200, 50, typing("w")))
    );
}

#[test]
fn a_filtered_list_and_the_graph_of_a_process_by_thread_80x24() {
    let mut inputs = typing("w/sort");
    inputs.push(key(KeyCode::Enter));
    assert_snapshot!(
        "tasks_filtered_80x24",
        text(&explore(SYSTEM_WIDE, 80, 24, inputs))
    );
    // The sysw process (first row), its towers by thread.
    let mut inputs = typing("w ");
    inputs.push(key(KeyCode::Enter));
    inputs.extend(typing("WW"));
    assert_snapshot!(
        "tasks_sysw_by_thread_80x24",
        text(&explore(SYSTEM_WIDE, 80, 24, inputs))
    );
}

#[test]
fn one_task_picked_is_the_graph_and_its_total() {
    // Row 2 is sysw-sort, the heaviest thread of the heaviest process.
    let mut inputs = typing("wj");
    inputs.push(key(KeyCode::Enter));
    let (buf, app) = session(
        App::new(profile(SYSTEM_WIDE), ColorMode::Mono),
        200,
        50,
        inputs,
    );
    let head = text(&buf).lines().next().unwrap_or_default().to_owned();
    assert!(head.contains("sysw-sort 17349"), "{head}");
    let p = profile(SYSTEM_WIDE);
    let sort = p
        .samples
        .tasks()
        .iter()
        .position(|t| t.tid == Some(17349))
        .unwrap();
    let want = slice_tree(
        &p.tree,
        &p.samples,
        &Slice {
            range: None,
            tasks: Some([TaskId(sort as u32)].into()),
        },
    );
    let ex = app.explorer().unwrap();
    assert_eq!(ex.profile.tree.total(), want.total());
    assert_eq!(ex.profile.tree.node(NodeId::ROOT).samples, 449);
    assert!(text(&buf).contains("in 449 samples"), "{}", text(&buf));
}

#[test]
fn regrouping_the_real_recording_keeps_every_sample() {
    let p = profile(SYSTEM_WIDE);
    let all = Slice::default();
    let towers = |g: Group| {
        let t = regroup(&p.tree, &p.samples, &all, g);
        assert_eq!(t.total(), p.tree.total(), "{g:?}");
        assert_eq!(t.node(NodeId::ROOT).samples, 3001, "{g:?}");
        t.children(NodeId::ROOT)
            .map(|c| t.name(c).to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(towers(Group::ThreadName), towers(Group::ThreadName));
    let procs = towers(Group::Process);
    assert_eq!(procs.len(), 69);
    assert!(procs.contains(&"sysw-17346".to_owned()), "{procs:?}");
    // Exec changed a comm: the process is named by its main thread's heaviest name.
    assert!(procs.contains(&"sha256sum-17428".to_owned()), "{procs:?}");
    let threads = towers(Group::Thread);
    assert_eq!(threads.len(), 82);
    assert!(
        threads.contains(&"sysw_hash-17348".to_owned()),
        "{threads:?}"
    );
    let folded = towers(Group::FoldedName);
    assert!(folded.contains(&"kworker/u#:#-ev".to_owned()), "{folded:?}");
    assert!(folded.contains(&"sha#sum".to_owned()), "{folded:?}");
}

#[test]
fn the_list_follows_the_range_shown() {
    // 200×50: 20 ms rows; second 1, rows 25..=34: [1.5, 1.7), the cron spike.
    let mut inputs = typing("Tl");
    inputs.extend(typing(&"j".repeat(25)));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.extend(typing(&"j".repeat(9)));
    inputs.push(key(KeyCode::Char(' ')));
    inputs.push(key(KeyCode::Enter));
    inputs.extend(typing("wG"));
    inputs.push(key(KeyCode::Enter));
    let (buf, app) = session(
        App::new(profile(TIMELINE), ColorMode::Mono),
        200,
        50,
        inputs,
    );
    // cron, the last row (the server's 4 ms samples weigh more); Enter showed it, the
    // range kept.
    let head = text(&buf).lines().next().unwrap_or_default().to_owned();
    assert!(head.contains("1.50–1.70 s › cron 2000"), "{head}");
    let ex = app.explorer().unwrap();
    assert_eq!(ex.profile.tree.node(NodeId::ROOT).samples, 200);
    let rows: Vec<(String, u64)> = ex
        .tools
        .tasks
        .rows
        .iter()
        .map(|r| (r.name.to_string(), r.totals.samples))
        .collect();
    assert!(rows.contains(&("cron".to_owned(), 200)), "{rows:?}");
    assert_eq!(ex.tools.tasks.total.samples, 270);
}

#[test]
fn without_pids_the_screen_says_how_to_get_them() {
    let screen = text(&explore(
        "perf-system-wide-default.txt.gz",
        80,
        24,
        typing("w"),
    ));
    assert!(screen.contains("perf script -F +pid"), "{screen}");
    assert!(screen.contains("Name / thread"), "{screen}");
}

#[test]
fn input_without_tasks_has_no_task_list() {
    let screen = text(&explore("folded-small.txt", 80, 24, typing("w")));
    assert!(screen.contains("No task information"), "{screen}");
    let screen = text(&explore("stap-seed-b0e1.txt", 80, 24, typing("W")));
    assert!(screen.contains("No task information"), "{screen}");
}

#[test]
fn pprof_labels_are_the_task_list_and_it_has_no_heat_map() {
    // A Go CPU profile whose samples carry pprof.Do labels (testdata/README.md).
    let screen = text(&explore("pprof-labels.pb.gz", 100, 24, typing("w")));
    for task in ["worker=1", "worker=2", "phase=sort worker=2", "(no labels)"] {
        assert!(screen.contains(task), "{task}: {screen}");
    }
    assert!(
        screen.contains("a task is a set of sample labels"),
        "{screen}"
    );
    assert!(!screen.contains("perf script -F +pid"), "{screen}");
    let screen = text(&explore("pprof-labels.pb.gz", 100, 24, typing("T")));
    assert!(
        screen.contains("No timeline: pprof samples carry no times"),
        "{screen}"
    );
}

#[test]
fn json_task_lists_say_what_a_task_is_not_how_to_print_pids() {
    // py-spy writes one speedscope profile per thread (testdata/README.md).
    let screen = text(&explore("pyspy-speedscope.json", 100, 24, typing("w")));
    assert!(screen.contains("compressor"), "{screen}");
    assert!(
        screen.contains("a task is one of the file's profiles"),
        "{screen}"
    );
    assert!(!screen.contains("perf script -F +pid"), "{screen}");
    let screen = text(&explore("node-work.cpuprofile", 100, 24, typing("w")));
    assert!(screen.contains("one task, the profiled thread"), "{screen}");
    assert!(!screen.contains("perf script -F +pid"), "{screen}");
}

/// The off-CPU metric's task list (`m` to it, then `w`): blocks instead of samples, each
/// thread's on-CPU time from cpu-clock, its off-CPU time by state, the incomplete time
/// and its longest block, as the width allows (the longest block only at 80 columns).
#[test]
fn the_off_cpu_task_list_splits_each_thread_s_time() {
    const WAITER: &str = "perf-waiter-switch.txt.gz";
    let wide = text(&explore(WAITER, 200, 24, typing("mw")));
    assert_snapshot!("tasks_off_cpu_200x24", wide);
    assert_snapshot!(
        "tasks_off_cpu_80x24",
        text(&explore(WAITER, 80, 24, typing("mw")))
    );
    // The numbers are those of the library (tests/core/offcpu.rs checks them against
    // perf's own reading): the mutex waiter's row.
    let row = wide
        .lines()
        .find(|l| l.contains("mutex-waiter"))
        .unwrap()
        .to_owned();
    for cell in ["39", "1.01 s", "41.8 ms", "13.4 ms", "993 ms", "50.9 ms"] {
        assert!(row.contains(cell), "{cell} not in {row}");
    }
    // The graph's status counts blocks too.
    let graph = text(&explore(WAITER, 80, 24, typing("m")));
    assert!(graph.contains("6.01 s in 210 blocks"), "{graph}");
}

/// A thread renamed by exec (`sh` → a pyenv shim → `python3`, one tid): one row with its
/// names in order, and Enter shows all its samples. `perf report --sort comm,pid` splits
/// it by comm (53.09% `sh`, 17.26% `python3`, 3.58% `bash`, 0.65% `pyenv-exec`, 0.33%
/// `pyenv`: 230 of 307 samples), all under `551:python3`.
#[test]
fn a_thread_renamed_by_exec_is_one_row_80x24() {
    const EXEC: &str = "perf-exec-chain.txt.gz";
    let screen = text(&explore(EXEC, 80, 24, typing("w")));
    assert!(
        screen.contains("35 threads in 35 processes"),
        "one thread per tid:\n{screen}"
    );
    assert!(
        screen.contains("230  74.92%") && screen.contains("sh → python3 → bash → pyenv → p"),
        "{screen}"
    );
    assert_snapshot!("tasks_exec_chain_80x24", screen);
    let mut inputs = typing("w");
    inputs.push(key(KeyCode::Enter));
    let graph = text(&explore(EXEC, 80, 24, inputs));
    assert!(graph.contains("230 samples"), "{graph}");
}
