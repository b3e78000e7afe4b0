//! Stage: sample table → the tree of a slice. A [`Slice`] is plain data — a time range
//! and a set of tasks — and [`slice_tree`] re-aggregates the samples it selects into a
//! call tree: each leaf's weight and sample count summed in an array indexed by `NodeId`,
//! summed up to the root by walking the ids from the last (a child always comes after its
//! parent), then the nodes with a sample copied with their names. Never by re-parsing.
//!
//! [`TimeRange`] is the `START,END` of the command line (`37.2,37.4`, `10%,20%`), and
//! [`select_tasks`] turns `--comms/--pids/--tids` lists into a task set.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use super::samples::{Sample, SampleTable, TaskId};
use super::source::{Cost, Line, Of};
use super::tree::{CallTree, Counters, NodeId};

/// Which samples to look at: a time range and a task set, each `None` for all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slice {
    /// `[start, end)` in nanoseconds relative to the first sample.
    pub range: Option<(u64, u64)>,
    /// The tasks whose samples are kept.
    pub tasks: Option<BTreeSet<TaskId>>,
}

impl Slice {
    /// True when the slice keeps every sample.
    pub fn is_everything(&self) -> bool {
        self.range.is_none() && self.tasks.is_none()
    }

    /// The samples of `table` in this slice, in time order. The range is looked for by
    /// binary search; a table without a timeline (see [`SampleTable::has_timeline`])
    /// has all its times at 0, so callers refuse a range on it first.
    pub fn samples<'a>(&self, table: &'a SampleTable) -> impl Iterator<Item = &'a Sample> + 'a {
        self.indexed(table).map(|(_, s)| s)
    }

    /// As [`Slice::samples`], each with its index in the table (for the columns beside
    /// the samples).
    pub fn indexed<'a>(
        &self,
        table: &'a SampleTable,
    ) -> impl Iterator<Item = (usize, &'a Sample)> + 'a {
        let within = match self.range {
            Some((start, end)) => table.range(start, end),
            None => 0..table.len(),
        };
        let mask = self.tasks.as_ref().map(|set| {
            let mut m = vec![false; table.tasks().len()];
            for t in set {
                if let Some(slot) = m.get_mut(t.0 as usize) {
                    *slot = true;
                }
            }
            m
        });
        let first = within.start;
        table.samples()[within]
            .iter()
            .enumerate()
            .map(move |(i, s)| (first + i, s))
            .filter(move |(_, s)| mask.as_ref().is_none_or(|m| m[s.task.0 as usize]))
    }

    /// The source lines of `of` in this slice's samples and the weight of those with it
    /// on their stack ([`crate::profile::source::SourceLines::of_samples`]; `tree`: the
    /// tree `table`'s leaves are nodes of); `None` when the table keeps no sample's lines.
    pub fn source_lines(
        &self,
        tree: &CallTree,
        table: &SampleTable,
        of: Of,
    ) -> Option<(Vec<(Line, Cost)>, u64)> {
        let stacks = table.line_stacks()?;
        let samples = self
            .indexed(table)
            .map(|(i, s)| (s.leaf, stacks[i], s.weight));
        Some(table.lines().of_samples(tree, of, samples))
    }
}

/// The call tree of the samples of `slice`: `tree` is the tree the table's leaves are
/// nodes of (the loaded tree, before any transform). Weights, sample counts and their
/// self parts are summed from the samples; nodes without a sample in the slice are left
/// out; names and the order of siblings are those of `tree`.
pub fn slice_tree(tree: &CallTree, samples: &SampleTable, slice: &Slice) -> CallTree {
    slice_tree_mapped(tree, samples, slice).0
}

/// As [`slice_tree`], with where each node of `tree` went (the root for one left out).
pub fn slice_tree_mapped(
    tree: &CallTree,
    samples: &SampleTable,
    slice: &Slice,
) -> (CallTree, Vec<NodeId>) {
    let n = tree.len();
    let mut counts = vec![Counters::default(); n];
    let mut saturated = tree.saturated();
    for s in slice.samples(samples) {
        let Some(c) = counts.get_mut(s.leaf.0 as usize) else {
            continue;
        };
        c.total = add(c.total, s.weight, &mut saturated);
        c.samples += 1;
    }
    // Children come after their parents: from the last id down, each node's sums are
    // complete when it is reached and are added to its parent.
    for i in (1..n).rev() {
        let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
        let Some(parent) = tree.parent(id) else {
            continue;
        };
        let c = counts[i];
        if c.samples == 0 {
            continue;
        }
        let p = &mut counts[parent.0 as usize];
        p.total = add(p.total, c.total, &mut saturated);
        p.samples += c.samples;
    }
    let (mut out, map) = tree.pruned_with(&counts);
    if saturated {
        out.mark_saturated();
    }
    (out, map)
}

fn add(a: u64, b: u64, saturated: &mut bool) -> u64 {
    a.checked_add(b).unwrap_or_else(|| {
        *saturated = true;
        u64::MAX
    })
}

/// One end of a [`TimeRange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBound {
    /// Nanoseconds from the first sample.
    Nanos(u64),
    /// A share of the recording, in billionths of it (`10%` is 100,000,000).
    Share(u64),
}

/// `START,END` of `--time`: seconds from the first sample (`37.2,37.4`) or shares of the
/// recording (`10%,20%`), for the samples in `[START, END)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    /// Where it starts (included).
    pub start: TimeBound,
    /// Where it ends (excluded).
    pub end: TimeBound,
}

/// Billionths in a whole (shares are kept with nine decimals of their fraction).
const BILLION: u64 = 1_000_000_000;

/// `digits ("." digits)?` as a count of billionths of a unit: `37.2` → 37,200,000,000.
/// Digits past the ninth decimal are dropped.
fn billionths(text: &str) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let whole: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut part = 0u64;
    for i in 0..9 {
        let d = frac.as_bytes().get(i).map_or(0, |b| u64::from(b - b'0'));
        part = part * 10 + d;
    }
    whole.checked_mul(BILLION)?.checked_add(part)
}

/// Seconds (`37.2`) as nanoseconds, exactly, as `--time` reads them; `None` for anything
/// but digits and one point (no sign, no exponent).
pub fn seconds_ns(text: &str) -> Option<u64> {
    billionths(text.trim())
}

impl FromStr for TimeBound {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if let Some(p) = s.strip_suffix('%') {
            let share = billionths(p.trim())
                .map(|b| b / 100)
                .ok_or_else(|| format!("`{s}`: a share is a percentage such as `12.5%`"))?;
            if share > BILLION {
                return Err(format!("`{s}`: a share is at most 100%"));
            }
            return Ok(TimeBound::Share(share));
        }
        billionths(s)
            .map(TimeBound::Nanos)
            .ok_or_else(|| format!("`{s}`: give seconds from the first sample (`37.2`) or a share of the recording (`10%`)"))
    }
}

impl FromStr for TimeRange {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (start, end) = text
            .split_once(',')
            .ok_or_else(|| format!("`{text}`: give START,END (`37.2,37.4` or `10%,20%`)"))?;
        let range = TimeRange {
            start: start.parse()?,
            end: end.parse()?,
        };
        match (range.start, range.end) {
            (TimeBound::Nanos(from), TimeBound::Nanos(to))
            | (TimeBound::Share(from), TimeBound::Share(to))
                if from >= to =>
            {
                Err(format!("`{text}`: START must come before END"))
            }
            _ => Ok(range),
        }
    }
}

impl TimeBound {
    /// Nanoseconds from the first sample, for a recording of `duration` ns; 100% is the
    /// end of time, so that the last sample is inside `[x%, 100%)`.
    fn resolve(self, duration: u64) -> u64 {
        match self {
            TimeBound::Nanos(ns) => ns,
            TimeBound::Share(BILLION) => u64::MAX,
            TimeBound::Share(b) => {
                (u128::from(duration) * u128::from(b) / u128::from(BILLION)) as u64
            }
        }
    }
}

impl TimeRange {
    /// `[start, end)` in nanoseconds from the first sample, for a recording lasting
    /// `duration` ns (first to last sample).
    ///
    /// # Errors
    /// The range is empty (START at or after END once shares are resolved).
    pub fn resolve(self, duration: u64) -> Result<(u64, u64), String> {
        let (start, end) = (self.start.resolve(duration), self.end.resolve(duration));
        if start >= end {
            return Err(format!(
                "{self} is empty in a recording of {}",
                seconds(duration)
            ));
        }
        Ok((start, end))
    }
}

impl fmt::Display for TimeBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeBound::Nanos(ns) => f.write_str(&decimal(ns, 9)),
            TimeBound::Share(b) => write!(f, "{}%", decimal(b * 100, 9)),
        }
    }
}

impl fmt::Display for TimeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.start, self.end)
    }
}

/// `value / 10^scale` without trailing zeros.
fn decimal(value: u64, scale: u32) -> String {
    super::tree::format_scaled(value, scale)
}

/// Nanoseconds as seconds with at least two decimals: `37.20 s`, `0.123456 s`.
pub fn seconds(ns: u64) -> String {
    let text = decimal(ns, 9);
    let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
    match decimals {
        0 => format!("{text}.00 s"),
        1 => format!("{text}0 s"),
        _ => format!("{text} s"),
    }
}

/// A range as a breadcrumb: `37.20–37.40 s` (an end past the recording: `37.20 s–end`).
pub fn range_label((start, end): (u64, u64)) -> String {
    let s = seconds(start);
    if end == u64::MAX {
        return format!("{s}–end");
    }
    let e = seconds(end);
    format!("{}–{e}", s.trim_end_matches(" s"))
}

/// Which tasks `--comms`, `--pids` and `--tids` ask for (each `None` when not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Command names, as perf prints them or as the graph shows them (spaces as `_`).
    pub comms: Option<Vec<String>>,
    /// Process ids.
    pub pids: Option<Vec<i64>>,
    /// Thread ids.
    pub tids: Option<Vec<i64>>,
}

impl TaskFilter {
    /// True when no list was given.
    pub fn is_empty(&self) -> bool {
        self.comms.is_none() && self.pids.is_none() && self.tids.is_none()
    }
}

/// Why a [`TaskFilter`] cannot be applied to a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskFilterError {
    /// Process ids were asked for, and the input has only thread ids.
    NoPids,
}

/// The tasks that pass every list of `filter` (a task passes a list holding its comm,
/// pid or tid), `None` when no list was given.
///
/// # Errors
/// [`TaskFilterError::NoPids`] when pids are asked for and no task has one.
pub fn select_tasks(
    table: &SampleTable,
    filter: &TaskFilter,
) -> Result<Option<BTreeSet<TaskId>>, TaskFilterError> {
    if filter.is_empty() {
        return Ok(None);
    }
    if filter.pids.is_some() && !table.has_pids() {
        return Err(TaskFilterError::NoPids);
    }
    let keep = |t: &super::samples::Task| {
        let comm_ok = filter.comms.as_ref().is_none_or(|cs| {
            cs.iter()
                .any(|c| *c == *t.comm || *c == t.comm.replace(' ', "_"))
        });
        let pid_ok = filter
            .pids
            .as_ref()
            .is_none_or(|ps| t.pid.is_some_and(|p| ps.contains(&p)));
        let tid_ok = filter
            .tids
            .as_ref()
            .is_none_or(|ts| t.tid.is_some_and(|p| ts.contains(&p)));
        comm_ok && pid_ok && tid_ok
    };
    Ok(Some(
        table
            .tasks()
            .iter()
            .enumerate()
            .filter(|(_, t)| keep(t))
            .map(|(i, _)| TaskId(u32::try_from(i).unwrap_or(u32::MAX)))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree and a table: stacks `(frames, time, task, weight)`.
    fn recording(samples: &[(&str, u64, &str, u64)]) -> (CallTree, SampleTable) {
        let mut tree = CallTree::new();
        let mut table = SampleTable::default();
        for (i, &(stack, time, comm, weight)) in samples.iter().enumerate() {
            let leaf = tree.insert(stack.split(';'), weight);
            let task = table.task(comm, Some(1), Some(i64::from(i % 2 == 1)));
            table.push(Some(time), task, leaf, weight);
        }
        tree.finish();
        table.finish();
        (tree, table)
    }

    fn stacks(t: &CallTree) -> Vec<(String, u64)> {
        t.stacks()
    }

    const REC: &[(&str, u64, &str, u64)] = &[
        ("m;a;x", 1000, "m", 3),
        ("m;a", 2000, "m", 2),
        ("m;b", 3000, "m", 5),
        ("m;a;x", 4000, "m", 7),
        ("n;c", 5000, "n", 1),
    ];

    #[test]
    fn everything_is_the_loaded_tree() {
        let (tree, table) = recording(REC);
        let all = slice_tree(&tree, &table, &Slice::default());
        assert_eq!(stacks(&all), stacks(&tree));
        assert_eq!(all.total(), tree.total());
        let m = all.child_named(NodeId::ROOT, "m").unwrap();
        assert_eq!(all.node(m).samples, 4);
        assert_eq!(all.len(), tree.len());
    }

    #[test]
    fn a_range_keeps_start_and_drops_end() {
        let (tree, table) = recording(REC);
        // Relative to the first sample (1000): [1000, 3000) is 2000..4000 absolute.
        let s = slice_tree(
            &tree,
            &table,
            &Slice {
                range: Some((1000, 3000)),
                tasks: None,
            },
        );
        assert_eq!(stacks(&s), [("m;a".into(), 2), ("m;b".into(), 5)]);
        assert_eq!((s.total(), s.node(NodeId::ROOT).samples), (7, 2));
        let m = s.child_named(NodeId::ROOT, "m").unwrap();
        let a = s.child_named(m, "a").unwrap();
        assert_eq!(
            (s.node(a).total, s.self_weight(a), s.node(a).samples),
            (2, 2, 1)
        );
        assert!(s.child_named(a, "x").is_none(), "no sample: pruned");
        assert!(s.child_named(NodeId::ROOT, "n").is_none());
        assert_eq!(s.max_depth(), 2);
    }

    #[test]
    fn tasks_filter_and_siblings_keep_their_order() {
        let (tree, table) = recording(REC);
        let n = select_tasks(
            &table,
            &TaskFilter {
                comms: Some(vec!["m".into()]),
                tids: Some(vec![0]),
                ..TaskFilter::default()
            },
        )
        .unwrap();
        let s = slice_tree(
            &tree,
            &table,
            &Slice {
                range: None,
                tasks: n,
            },
        );
        // tid 0: samples 0, 2 and 4; comm m: not 4.
        assert_eq!(stacks(&s), [("m;a;x".into(), 3), ("m;b".into(), 5)]);
        let m = s.child_named(NodeId::ROOT, "m").unwrap();
        let names: Vec<&str> = s.children(m).map(|c| s.name(c)).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn pids_need_pids() {
        let mut table = SampleTable::default();
        let t = table.task("x", None, Some(3));
        table.push(Some(1), t, NodeId(1), 1);
        let f = TaskFilter {
            pids: Some(vec![3]),
            ..TaskFilter::default()
        };
        assert_eq!(select_tasks(&table, &f), Err(TaskFilterError::NoPids));
        let spaced = TaskFilter {
            comms: Some(vec!["V8_Worker".into()]),
            ..TaskFilter::default()
        };
        let mut table = SampleTable::default();
        let v8 = table.task("V8 Worker", Some(1), Some(2));
        assert_eq!(
            select_tasks(&table, &spaced).unwrap(),
            Some(BTreeSet::from([v8]))
        );
    }

    #[test]
    fn time_ranges_parse_exactly() {
        let r: TimeRange = "37.2,37.4".parse().unwrap();
        assert_eq!(r.start, TimeBound::Nanos(37_200_000_000));
        assert_eq!(r.resolve(0), Ok((37_200_000_000, 37_400_000_000)));
        let r: TimeRange = "10%,20%".parse().unwrap();
        assert_eq!(r.resolve(1_000_000_000), Ok((100_000_000, 200_000_000)));
        let r: TimeRange = "50%,100%".parse().unwrap();
        assert_eq!(r.resolve(10), Ok((5, u64::MAX)));
        assert_eq!(r.to_string(), "50%,100%");
        let r: TimeRange = " .5 , 2 ".parse().unwrap();
        assert_eq!(r.resolve(0), Ok((500_000_000, 2_000_000_000)));
        assert!("0%,1".parse::<TimeRange>().unwrap().resolve(0).is_ok());
        for bad in [
            "1", "2,1", "1,1", "a,b", "-1,2", "1,2,3", "0%,101%", "1e3,2", ",", "1.2.3,4",
        ] {
            assert!(bad.parse::<TimeRange>().is_err(), "{bad}");
        }
        // Mixed units are judged once the duration is known.
        let r: TimeRange = "50%,1".parse().unwrap();
        assert!(r.resolve(4_000_000_000).is_err());
    }

    #[test]
    fn labels() {
        assert_eq!(
            range_label((37_200_000_000, 37_400_000_000)),
            "37.20–37.40 s"
        );
        assert_eq!(range_label((1_500, u64::MAX)), "0.0000015 s–end");
        assert_eq!(seconds(3_000_000_000), "3.00 s");
    }

    #[test]
    fn saturation_is_kept() {
        let (tree, table) = recording(&[("a", 1, "a", u64::MAX), ("a", 2, "a", 1)]);
        let s = slice_tree(&tree, &table, &Slice::default());
        assert!(s.saturated());
        assert_eq!(s.total(), u64::MAX);
    }
}
