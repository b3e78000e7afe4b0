//! The off-CPU metric's threads by off-CPU time, for the text report.

use std::fmt::Write as _;

use crate::profile::Profile;
use crate::text::sanitize;

/// A row of [`thread_table`]: name, pid, tid, its blocks and its on-CPU time.
type ThreadRow = (
    String,
    Option<i64>,
    Option<i64>,
    crate::profile::blocks::ThreadBlocks,
    u64,
);

/// The off-CPU metric's `n` threads with the most off-CPU time: their time by state,
/// incomplete, longest block, blocks, and on-CPU time when a clock event's samples are
/// there; `None` for another metric.
pub fn thread_table(profile: &Profile, n: usize) -> Option<String> {
    use crate::profile::blocks;
    use crate::profile::{Slice, TaskState};
    use crate::view::tooltip::time_text;
    let per_task = blocks::thread_blocks(profile, &Slice::default())?;
    let table = &profile.samples;
    let on = blocks::clock_metric(profile)
        .filter(|c| !c.samples.is_empty())
        .map(|c| blocks::on_cpu_time(table, c, None));
    // One row per thread: a thread renamed by exec is one, with its names in order.
    let totals = crate::profile::group::task_totals(table, &Slice::default());
    let mut rows: Vec<ThreadRow> = crate::profile::group::threads(table, &totals)
        .iter()
        .map(|th| {
            let sum = blocks::blocks_of(&per_task, &th.tasks);
            let on_cpu = on
                .as_deref()
                .map_or(0, |on| blocks::on_cpu_of(on, &th.tasks));
            let pid = th
                .tasks
                .first()
                .and_then(|&id| table.task_of(id))
                .and_then(|t| t.pid);
            (th.name.to_string(), pid, th.tid, sum, on_cpu)
        })
        .collect();
    rows.sort_by(|a, b| {
        b.3.total()
            .cmp(&a.3.total())
            .then(a.2.cmp(&b.2))
            .then(a.0.cmp(&b.0))
    });
    rows.truncate(n);
    let t = |ns: u64| {
        if ns == 0 {
            "-".to_owned()
        } else {
            time_text(ns, 0)
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Top {} by off-CPU time (R preempted, S sleeping, D uninterruptible)",
        if rows.len() == 1 {
            "1 thread".to_owned()
        } else {
            format!("{} threads", rows.len())
        }
    );
    let mut head = String::new();
    if on.is_some() {
        let _ = write!(head, "{:>9} ", "on-CPU");
    }
    let _ = write!(
        head,
        "{:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>7}  thread",
        "off-CPU", "R", "S", "D", "other", "incomplete", "longest", "blocks"
    );
    let _ = writeln!(out, "{}", head.trim_end());
    for (name, pid, tid, b, on_cpu) in rows {
        if on.is_some() {
            let _ = write!(out, "{:>9} ", t(on_cpu));
        }
        let id = match (pid, tid) {
            (Some(p), Some(t)) => format!("{p}/{t}"),
            (None, Some(t)) => t.to_string(),
            _ => "?".to_owned(),
        };
        let _ = writeln!(
            out,
            "{:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>7}  {} {id}",
            t(b.total()),
            t(b.in_state(TaskState::Runnable)),
            t(b.in_state(TaskState::Sleeping)),
            t(b.in_state(TaskState::Uninterruptible)),
            t(b.others()),
            t(b.incomplete),
            t(b.longest),
            b.blocks,
            sanitize(&name),
        );
    }
    Some(out)
}
