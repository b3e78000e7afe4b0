//! `flametui top`: `perf record` of the whole system (or of some processes) streamed into
//! the viewer, cut into one profile per refresh, summed by the ring as the mode says.

use std::sync::Arc;
use std::time::Duration;

use super::args::{ModeArg, TopArgs};
use super::plan::{Plan, Target, Wake};
use super::{ERROR, Failure, Outcome, PATIENCE, USAGE, choose_graph, diagnose, is_root};
use crate::app::top::TopState;
use crate::profile::ring::LiveMode;
use crate::profile::slice::{Slice, TaskFilter, select_tasks};
use crate::profile::{NodeId, Profile, SampleTable, slice_tree_mapped};
use crate::view::color::ColorMode;

/// The mode `top` starts in.
pub fn live_mode(a: &TopArgs) -> LiveMode {
    match a.mode {
        ModeArg::Accumulate => LiveMode::Accumulate,
        ModeArg::Window => LiveMode::Window(a.window),
        ModeArg::Decay => LiveMode::Decay,
        ModeArg::Diff => LiveMode::Diff(a.window),
    }
}

/// The samples of the tasks named `comms` (as `--comms` of the viewer matches them: the
/// comm as perf prints it, or with spaces as `_`), the tree summed from them alone.
pub fn keep_comms(p: Profile, comms: &[String]) -> Profile {
    let filter = TaskFilter {
        comms: Some(comms.to_vec()),
        ..TaskFilter::default()
    };
    let tasks = select_tasks(&p.samples, &filter)
        .ok()
        .flatten()
        .unwrap_or_default();
    let slice = Slice {
        range: None,
        tasks: Some(tasks),
    };
    let (tree, map) = slice_tree_mapped(&p.tree, &p.samples, &slice);
    let mut samples = SampleTable::default();
    for s in slice.samples(&p.samples) {
        let Some(task) = p.samples.task_of(s.task) else {
            continue;
        };
        let id = samples.task(&task.comm, task.pid, task.tid);
        let leaf = map.get(s.leaf.0 as usize).copied().unwrap_or(NodeId::ROOT);
        samples.push(Some(s.time), id, leaf, s.weight);
    }
    let mut stats = p.stats;
    stats.samples = tree.node(crate::profile::NodeId::ROOT).samples;
    Profile {
        metrics: crate::profile::metrics::Metrics::default(),
        samples: Arc::new(samples),
        source: p.source,
        tree,
        stats,
    }
}

/// Runs `flametui top` until the user quits.
///
/// # Errors
/// No terminal to show it on, or perf is missing or refused (the message says what to do).
pub fn top(a: &TopArgs, viewer: bool, colors: ColorMode) -> Result<Outcome, Failure> {
    if !viewer {
        return Err(Failure::new(
            "flametui top is a live view and needs a terminal; for a text summary of the \
             whole system, run `flametui record -a -- sleep 10 | cat`",
            USAGE,
        ));
    }
    let control = super::perf_version()?;
    let target = if a.pids.is_empty() {
        Target::System
    } else {
        Target::Pids(&a.pids)
    };
    let binary = super::plan::main_binary(target);
    let choice = choose_graph(a.call_graph, target, binary.as_deref());
    let (dir, fifo) = super::wake_dir("top", control)?;
    let wake = fifo.as_deref().map_or(Wake::NoBuffering, Wake::Control);
    let log_path = dir.path().join("perf.log");
    let log = std::fs::File::create(&log_path).map_err(|e| Failure::io("perf's log", &e))?;
    let plan = Plan::top(a, choice.graph, wake);
    let (mut perf, stdout) = super::spawn_live(&plan.perf_args(false), log, fifo.as_deref())?;
    let comms = a.comms.clone();
    let prepare: crate::terminal::Prepare = if comms.is_empty() {
        Box::new(|p| p)
    } else {
        Box::new(move |p| keep_comms(p, &comms))
    };
    let note = format!(
        "call graph: {} ({}) · refresh every {} s · 1–4 modes, < > window, z freezes",
        choice.graph.perf_name(),
        choice.why,
        a.delay
    );
    let source = crate::terminal::TopSource {
        reader: Box::new(stdout),
        every: Duration::from_secs_f64(a.delay),
        state: TopState::new(live_mode(a), a.window, note),
        prepare,
    };
    let look = (colors, crate::view::names::NameStyle::default());
    let app = crate::terminal::explore_top(source, look);
    perf.interrupt();
    let status = perf
        .wait(Some(PATIENCE))
        .map_err(|e| Failure::io("waiting for perf", &e))?;
    let app = app.map_err(|e| Failure::io("terminal", &e))?;
    if let Some(failure) = app.failure {
        let said = std::fs::read_to_string(&log_path).unwrap_or_default();
        let message = if status.success() && !said.contains("Error") {
            failure
        } else {
            diagnose::message(&said, status.code(), is_root(), a.pids.is_empty())
        };
        return Err(Failure::new(message, ERROR));
    }
    Ok(Outcome {
        status: 0,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comms_keep_their_samples_only() {
        let mut tree = crate::profile::CallTree::new();
        let mut samples = SampleTable::default();
        let a = samples.task("busy", Some(1), Some(1));
        let b = samples.task("other one", Some(2), Some(2));
        let la = tree.insert(["busy", "main", "spin"], 3);
        samples.push(Some(10), a, la, 3);
        let lb = tree.insert(["other one", "main", "wait"], 5);
        samples.push(Some(20), b, lb, 5);
        let lb2 = tree.insert(["other one", "main", "spin"], 7);
        samples.push(Some(30), b, lb2, 7);
        tree.finish();
        samples.finish();
        let p = Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: Arc::new(samples),
            source: "t".into(),
            tree,
            stats: crate::profile::Stats::default(),
        };
        let kept = keep_comms(p.clone(), &["other_one".to_owned()]);
        assert_eq!(kept.tree.total(), 12);
        assert_eq!(kept.stats.samples, 2);
        let stacks = kept.tree.stacks();
        assert_eq!(
            stacks,
            [
                ("other one;main;spin".to_owned(), 7),
                ("other one;main;wait".to_owned(), 5)
            ]
        );
        assert_eq!(kept.samples.len(), 2);
        let none = keep_comms(p, &["nobody".to_owned()]);
        assert_eq!(none.tree.total(), 0);
    }
}
