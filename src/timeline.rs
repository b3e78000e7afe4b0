//! Stage: command line → slices of a recording. `--time`, `--compare-time`, `--comms`,
//! `--pids`, `--tids` and `--heatmap` become [`Slice`] values for one loaded recording,
//! then the profile of each slice (re-aggregated from the sample table) or the heat map.
//! Inputs that cannot answer a flag — no timestamps, no tasks, no process ids — are
//! refused with an error naming the file and saying what is missing.

use crate::error::{Error, Result, quoted};
use crate::input::Loaded;
use crate::profile::heatmap::{self, HeatMap};
use crate::profile::slice::{
    TaskFilter, TaskFilterError, TimeBound, TimeRange, range_label, seconds, select_tasks,
};
use crate::profile::{Format, Profile, SampleTable, Slice, slice_tree_mapped};

/// The slicing flags of the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceArgs {
    /// `--time START,END`.
    pub time: Option<TimeRange>,
    /// `--compare-time START,END`: the BEFORE range of a comparison with `--time`.
    pub compare_time: Option<TimeRange>,
    /// `--comms`, `--pids`, `--tids`.
    pub tasks: TaskFilter,
    /// `--heatmap` was asked for.
    pub heatmap: bool,
}

impl SliceArgs {
    /// True when no slicing flag was given: the input is used whole.
    pub fn is_empty(&self) -> bool {
        self.time.is_none() && self.compare_time.is_none() && self.tasks.is_empty() && !self.heatmap
    }

    /// The first flag given that needs a timeline, if any.
    fn timed_flag(&self) -> Option<&'static str> {
        if self.time.is_some() {
            Some("--time")
        } else if self.compare_time.is_some() {
            Some("--compare-time")
        } else if self.heatmap {
            Some("--heatmap")
        } else {
            None
        }
    }

    /// The first task flag given, if any.
    fn task_flag(&self) -> Option<&'static str> {
        let t = &self.tasks;
        [
            (t.comms.is_some(), "--comms"),
            (t.pids.is_some(), "--pids"),
            (t.tids.is_some(), "--tids"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The task flags given, each with its list: `("comms", "a,b")`.
    fn task_lists(&self) -> Vec<(&'static str, String)> {
        let t = &self.tasks;
        let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        [
            t.comms.as_ref().map(|c| ("comms", c.join(","))),
            t.pids.as_ref().map(|p| ("pids", join(p))),
            t.tids.as_ref().map(|p| ("tids", join(p))),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The task flags as a label: `comms a,b · tids 7`.
    fn tasks_label(&self) -> Option<String> {
        let parts: Vec<String> = self
            .task_lists()
            .into_iter()
            .map(|(name, list)| format!("{name} {list}"))
            .collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    }
}

/// What a recording has no timeline or tasks for, in words.
fn missing(format: Option<Format>, samples: &SampleTable, what: &str) -> String {
    match format {
        Some(Format::Perf) if what == "time" => format!(
            "this perf script was printed without timestamps ({} of {} samples have none): no timeline is available; perf script prints them by default, `perf script -F +time` adds them back",
            samples.untimed(),
            samples.len()
        ),
        Some(Format::Pprof) if what == "task" => "this pprof profile's samples carry no labels, so no task: its tasks are the labels of its samples (`pprof.Do(ctx, pprof.Labels(\"worker\", \"3\"), …)` in Go)".to_owned(),
        Some(f) => format!(
            "{f} input has no {what} per sample{}: only perf script input has one",
            if what == "time" {
                ", so no timeline is available"
            } else {
                ""
            }
        ),
        None => format!("this input has no {what} per sample"),
    }
}

/// The slice of `rec` that `args` select for the `--time` range (or the whole time), with
/// the task set.
///
/// # Errors
/// The input has no timeline (a time flag) or no tasks (a task flag), pids are asked for
/// and perf printed only tids, or a range is empty.
fn slice_for(
    rec: &Loaded,
    args: &SliceArgs,
    range: Option<TimeRange>,
    flag: &str,
) -> Result<Slice> {
    let profile = rec.main();
    let source_name = profile.source.clone();
    let format = profile.stats.format;
    let no = |flag: &str, why: String| Error::NoTimeline {
        source_name: source_name.clone(),
        flag: flag.to_owned(),
        why,
    };
    if matches!(rec, Loaded::Diff { .. }) {
        let flag = args.timed_flag().or(args.task_flag()).unwrap_or(flag);
        return Err(no(flag, missing(format, rec.samples(), "time")));
    }
    if let Some(f) = args.timed_flag().filter(|_| !rec.samples().has_timeline()) {
        return Err(no(f, missing(format, rec.samples(), "time")));
    }
    if let Some(f) = args.task_flag().filter(|_| rec.samples().is_empty()) {
        return Err(no(f, missing(format, rec.samples(), "task")));
    }
    let tasks = select_tasks(rec.samples(), &args.tasks).map_err(|e| match e {
        TaskFilterError::NoPids => no(
            "--pids",
            "perf script printed only thread ids here (`comm TID`, not `comm PID/TID`): print the process ids with `perf script -F +pid`, or select threads with --tids".to_owned(),
        ),
    })?;
    let range = match range {
        Some(r) => Some(r.resolve(rec.samples().duration()).map_err(|why| {
            Error::SliceUsage(format!(
                "{}: {flag} {why}",
                crate::text::sanitize(&source_name)
            ))
        })?),
        None => None,
    };
    Ok(Slice { range, tasks })
}

/// What the viewer starts on for these flags: the recording whole with the slice its view
/// starts with (`--time`, task lists: a breadcrumb that `u` undoes, the heat map still
/// there), or for `--compare-time` the two ranges as a comparison. `None` when no flag
/// slices.
///
/// # Errors
/// As [`apply`].
pub fn for_viewer(rec: Loaded, args: &SliceArgs) -> Result<(Loaded, Option<Slice>)> {
    if args.compare_time.is_some() {
        return Ok((apply(rec, args)?, None));
    }
    if args.time.is_none() && args.tasks.is_empty() {
        return Ok((rec, None));
    }
    let slice = slice_for(&rec, args, args.time, "--time")?;
    // An empty slice is refused as the text outputs refuse it.
    slice_profile(&rec, args, &slice, "--time", args.time)?;
    Ok((rec, Some(slice)))
}

/// The profile of one slice: its tree re-aggregated from the samples, the stats' sample
/// count that of the slice, the source named with the slice (`prof.txt [1.50–1.70 s]`).
/// `flag` and `range` are the time flag of this side and its range as given.
///
/// # Errors
/// [`Error::EmptySlice`] when no sample is in it.
fn slice_profile(
    rec: &Loaded,
    args: &SliceArgs,
    slice: &Slice,
    flag: &str,
    range: Option<TimeRange>,
) -> Result<Profile> {
    let p = rec.main();
    let (tree, leaves) = slice_tree_mapped(&p.tree, rec.samples(), slice);
    let samples = tree.node(crate::profile::NodeId::ROOT).samples;
    if samples == 0 {
        return Err(empty_slice(rec, args, slice, flag, range));
    }
    let label: Vec<String> = slice
        .range
        .map(range_label)
        .into_iter()
        .chain(args.tasks_label())
        .collect();
    let mut stats = p.stats.clone();
    stats.samples = samples;
    // The slice's source lines, summed again from its samples' stacks of lines; no
    // sample records (the slice is made).
    let mut table = crate::profile::SampleTable::default();
    if let Some(stacks) = rec.samples().line_stacks() {
        let picked = slice
            .indexed(rec.samples())
            .map(|(i, s)| (s.leaf, stacks[i], s.weight));
        *table.lines_mut() = rec.samples().lines().replayed(&tree, &leaves, picked);
    }
    Ok(Profile {
        metrics: crate::profile::metrics::Metrics::default(),
        samples: std::sync::Arc::new(table),
        source: format!("{} [{}]", p.source, label.join(" · ")),
        tree,
        stats,
    })
}

/// The error of a slice that selects no sample, saying what the recording has instead.
/// A range that starts past the last sample gets the recording's length and the time of
/// its first sample in perf's clock, and when it looks like perf's absolute times (as
/// `perf script` prints them and its `--time` takes them), the relative range to use;
/// `--comms` that name no task get the comms there are (see [`unknown_comms`]).
fn empty_slice(
    rec: &Loaded,
    args: &SliceArgs,
    slice: &Slice,
    flag: &str,
    range: Option<TimeRange>,
) -> Error {
    let table = rec.samples();
    let (duration, first) = (table.duration(), table.first_time());
    let past_the_end = match (range, slice.range) {
        (Some(asked), Some((start, _))) if start > duration => {
            let origin = format!(
                "the recording lasts {}; {flag} counts from its first sample, at {} in perf's clock",
                seconds(duration),
                seconds(first)
            );
            Some(
                match relative(asked, first)
                    .filter(|r| r.resolve(duration).is_ok_and(|(s, _)| s <= duration))
                {
                    Some(r) => format!("{origin}: subtract that, {flag} {r}"),
                    None => origin,
                },
            )
        }
        _ => None,
    };
    let hints: Vec<String> = past_the_end
        .into_iter()
        .chain(unknown_comms(table, args))
        .collect();
    let detail = if hints.is_empty() {
        format!(
            "the recording lasts {} from its first sample, with {} tasks",
            seconds(duration),
            table.tasks().len()
        )
    } else {
        hints.join("; ")
    };
    Error::EmptySlice {
        source_name: rec.main().source.clone(),
        what: given(args, flag, range),
        detail,
    }
}

/// The bytes of a comm that perf records (the kernel's `TASK_COMM_LEN`, 16 with the NUL).
const COMM_BYTES: usize = 15;

/// How many comms an error lists.
const COMMS_LISTED: usize = 10;

/// What the recording has instead of the `--comms` that name no task in it, if any: a
/// comm longer than perf keeps is told so (with the list that would name tasks, when
/// cutting each one does), else the comms there are, most samples first.
fn unknown_comms(table: &SampleTable, args: &SliceArgs) -> Option<String> {
    let asked = args.tasks.comms.as_ref()?;
    // A comm names a task as `--comms` matches them (as printed, or spaces as `_`).
    let names_a_task = |comm: &str| {
        let filter = TaskFilter {
            comms: Some(vec![comm.to_owned()]),
            ..TaskFilter::default()
        };
        select_tasks(table, &filter).is_ok_and(|set| set.is_some_and(|set| !set.is_empty()))
    };
    let unknown: Vec<&str> = asked
        .iter()
        .map(String::as_str)
        .filter(|c| !names_a_task(c))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    let named: Vec<String> = unknown.iter().map(|c| quoted(c)).collect();
    let mut parts = vec![format!("no task is named {}", named.join(", "))];
    if unknown.iter().any(|c| c.len() > COMM_BYTES) {
        let cut = format!("perf keeps a comm's first {COMM_BYTES} bytes");
        let fixed: Vec<&str> = asked
            .iter()
            .map(|c| if names_a_task(c) { c } else { perf_comm(c) })
            .collect();
        if fixed.iter().all(|c| names_a_task(c)) {
            parts.push(format!("{cut}: --comms {}", quoted(&fixed.join(","))));
            return Some(parts.join("; "));
        }
        parts.push(cut);
    }
    let comms = comms_by_samples(table);
    let listed: Vec<String> = comms
        .iter()
        .take(COMMS_LISTED)
        .map(|(c, _)| quoted(c))
        .collect();
    let more = match comms.len().saturating_sub(COMMS_LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    parts.push(format!(
        "comms here, most samples first: {}{more}",
        listed.join(", ")
    ));
    Some(parts.join("; "))
}

/// `comm` as perf records it: its first [`COMM_BYTES`] bytes (on a character boundary).
fn perf_comm(comm: &str) -> &str {
    let end = (0..=COMM_BYTES.min(comm.len()))
        .rev()
        .find(|&i| comm.is_char_boundary(i))
        .unwrap_or(0);
    &comm[..end]
}

/// The comms of the recording with their samples, most first (ties by name).
fn comms_by_samples(table: &SampleTable) -> Vec<(&str, u64)> {
    let mut per_task = vec![0u64; table.tasks().len()];
    for s in table.samples() {
        if let Some(n) = per_task.get_mut(s.task.0 as usize) {
            *n += 1;
        }
    }
    let mut per_comm: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for (task, n) in table.tasks().iter().zip(per_task) {
        *per_comm.entry(&task.comm).or_default() += n;
    }
    let mut comms: Vec<(&str, u64)> = per_comm.into_iter().collect();
    comms.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    comms
}

/// `range` with `first` (a time in perf's clock) subtracted from its times, when both are
/// at or after it; shares stay.
fn relative(range: TimeRange, first: u64) -> Option<TimeRange> {
    let shift = |b: TimeBound| match b {
        TimeBound::Nanos(ns) => ns.checked_sub(first).map(TimeBound::Nanos),
        share @ TimeBound::Share(_) => Some(share),
    };
    Some(TimeRange {
        start: shift(range.start)?,
        end: shift(range.end)?,
    })
}

/// The flags of one side as the user gave them, for messages: `--time 1,2 --comms 'a b'`
/// (comms quoted, so that spaces show).
fn given(args: &SliceArgs, flag: &str, range: Option<TimeRange>) -> String {
    let mut parts: Vec<String> = range.map(|r| format!("{flag} {r}")).into_iter().collect();
    parts.extend(args.task_lists().into_iter().map(|(name, list)| {
        let (list, more) = abbreviated(&list);
        let list = if name == "comms" { quoted(&list) } else { list };
        format!("--{name} {list}{more}")
    }));
    parts.join(" ")
}

/// How many entries of a list an error repeats.
const LISTED: usize = 10;

/// The first [`LISTED`] entries of a comma-separated list, and ` (and N more)` when it
/// has more: an error does not repeat a list of 20,000 ids on one line.
fn abbreviated(list: &str) -> (String, String) {
    let count = list.split(',').count();
    if count <= LISTED {
        return (list.to_owned(), String::new());
    }
    let first: Vec<&str> = list.split(',').take(LISTED).collect();
    (first.join(","), format!(" (and {} more)", count - LISTED))
}

/// The input as the slicing flags select it: unchanged without them; one profile for
/// `--time` and the task flags; BEFORE (`--compare-time`) and AFTER (`--time`) as a
/// [`Loaded::Diff`] pair for a comparison of two ranges.
///
/// # Errors
/// As the flags cannot be answered (see the module doc), or a slice has no sample.
pub fn apply(rec: Loaded, args: &SliceArgs) -> Result<Loaded> {
    let sliced = args.time.is_some() || args.compare_time.is_some() || !args.tasks.is_empty();
    if !sliced {
        if args.heatmap {
            slice_for(&rec, args, None, "--heatmap")?;
        }
        return Ok(rec);
    }
    let after_slice = slice_for(&rec, args, args.time, "--time")?;
    let after = slice_profile(&rec, args, &after_slice, "--time", args.time)?;
    let Some(before_range) = args.compare_time else {
        return Ok(Loaded::Single(after));
    };
    let before_slice = slice_for(&rec, args, Some(before_range), "--compare-time")?;
    let before = slice_profile(
        &rec,
        args,
        &before_slice,
        "--compare-time",
        Some(before_range),
    )?;
    Ok(Loaded::Diff { before, after })
}

/// The heat map of the samples `args` select (20 ms rows).
///
/// # Errors
/// As [`apply`]: a selection with no sample is refused as for the other outputs, rather
/// than printed as an empty map.
pub fn heat_map(rec: &Loaded, args: &SliceArgs) -> Result<HeatMap> {
    let slice = slice_for(rec, args, args.time, "--time")?;
    if slice.samples(rec.samples()).next().is_none() {
        return Err(empty_slice(rec, args, &slice, "--time", args.time));
    }
    Ok(heatmap::heat_map(
        rec.samples(),
        &slice,
        heatmap::DEFAULT_ROW_NS,
    ))
}
