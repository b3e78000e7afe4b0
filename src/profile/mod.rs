//! Stage: samples → call tree. A [`Profile`] is a finished [`CallTree`] plus the
//! [`Stats`] of how it was read (format, events, unit, skipped lines). Inputs with one
//! record per sample (perf script) also give a [`SampleTable`] whose leaves are nodes of
//! that tree; [`slice_tree`] makes the tree of a [`Slice`] of it (a time range, a task
//! set), [`heatmap`] its heat map and [`group::regroup`] its towers per process or thread.

pub mod blocks;
pub mod cpus;
pub mod diff;
pub mod finder;
pub mod format;
pub mod functions;
pub mod group;
pub mod heatmap;
pub mod intern;
pub mod libraries;
pub mod metrics;
pub mod offcpu;
pub mod order;
pub mod ring;
pub mod samples;
pub mod sandwich;
pub mod scope;
pub mod significance;
pub mod skim;
pub mod slice;
pub mod source;
pub mod threads;
pub mod transform;
pub mod tree;

use std::collections::BTreeMap;
use std::fmt;

pub use format::{FORMATS, Format, FormatInfo};
pub use intern::{Interner, LibId, NameId, NameSource};
pub use samples::{Sample, SampleTable, Switch, Task, TaskId, TaskState};
pub use slice::{Slice, slice_tree, slice_tree_mapped};
pub use tree::{
    CallTree, Counters, ForestEntry, Node, NodeId, Rank, SortedWalk, StackRun, TextRanks, UnionRun,
    path_order, union_sorted_runs,
};

/// Threads for work split over the cores (parsing, sorting, formatting, scoring): one
/// per core, at most 8 (beyond that the memory per thread buys nothing here), unless
/// [`set_worker_threads`] said otherwise.
pub fn worker_threads() -> usize {
    match THREADS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(8),
        n => n,
    }
}

/// Threads the user chose (`--threads`), 0 for the default.
static THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Makes every part that splits work over threads (sorting, exports, scoring) use `n`
/// threads (`--threads N` governs them all, not only the parser); `None` restores the
/// default. The program sets it once, from its arguments.
pub fn set_worker_threads(n: Option<usize>) {
    THREADS.store(n.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
}

/// What one unit of weight means.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Unit {
    /// Each sample counts one (or the counts of a folded file).
    #[default]
    Samples,
    /// The period of a clock event (`cpu-clock`, `task-clock`): nanoseconds.
    Nanoseconds,
    /// The period of another perf event, e.g. `cycles`.
    Events(String),
    /// `SystemTap` with the off-CPU marker: on-CPU stacks count samples, off-CPU stacks
    /// whatever the script summed (usually microseconds).
    OnOffCpu,
    /// One metric (sample type) of a pprof profile: its name and unit, `cpu` in
    /// `nanoseconds`, `alloc_space` in `bytes`.
    Metric {
        /// The name `go tool pprof` gives it (`-sample_index`).
        name: String,
        /// Its unit.
        unit: String,
    },
}

impl Unit {
    /// Whether a weight is a time in nanoseconds (a clock event, a pprof `cpu` metric), to
    /// be shown as `1.23 s`.
    pub fn is_time(&self) -> bool {
        match self {
            Unit::Nanoseconds => true,
            Unit::Metric { unit, .. } => unit == "nanoseconds",
            _ => false,
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Samples => f.write_str("samples"),
            Unit::Nanoseconds => f.write_str("ns"),
            Unit::Events(e) => write!(f, "{e} (event period)"),
            Unit::OnOffCpu => f.write_str("samples on-CPU / script units off-CPU"),
            // A count's name is its unit (`bytes` from --countname).
            Unit::Metric { name, unit } if unit == "count" => f.write_str(name),
            Unit::Metric { name, unit } => write!(f, "{name} ({unit})"),
        }
    }
}

/// A line that could not be used, kept for the first few of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number in the input.
    pub line: u64,
    /// Why it was skipped.
    pub reason: &'static str,
    /// The line itself (lossily decoded, cut to a reasonable length).
    pub text: String,
}

/// How many skipped lines are kept verbatim for reports.
pub const MAX_BAD_LINES_KEPT: usize = 5;

/// What every input line became (with [`Stats::skipped`], accounts for all of them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Lines of samples that went into the tree.
    pub in_samples: u64,
    /// Lines of samples left out on purpose: other events, or no usable frame.
    pub dropped: u64,
    /// Comment lines (`#`).
    pub comments: u64,
    /// Empty or white-space lines.
    pub blank: u64,
}

/// How the input was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// What the lines became.
    pub line_counts: LineCounts,
    /// Detected or forced format.
    pub format: Option<Format>,
    /// Lines read from the input.
    pub lines: u64,
    /// Samples that went into the tree.
    pub samples: u64,
    /// Meaning of the weights.
    pub unit: Unit,
    /// perf events seen, with their sample counts.
    pub events: BTreeMap<String, u64>,
    /// The perf event kept in the tree.
    pub event: Option<String>,
    /// perf.data read without an event asked for: its events in the header's order. The
    /// first of them with samples is shown, as `perf report` lists it first (text has
    /// no header: there, the first event seen).
    pub event_order: Vec<String>,
    /// Samples dropped because of their event, pid or tid.
    pub filtered_samples: u64,
    /// Skipped lines by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// The first few skipped lines.
    pub bad_lines: Vec<BadLine>,
    /// `SystemTap`: blocks marked off-CPU.
    pub offcpu_samples: u64,
    /// `PERF_RECORD_LOST` records in the input (`perf script --show-lost-events`): events
    /// were lost, so durations computed from them are unreliable.
    pub lost_records: u64,
    /// Samples those records say were lost (perf.data's `PERF_RECORD_LOST` counts).
    pub lost_samples: u64,
    /// Samples stamped with perf's dummy time (`perf record --off-cpu`: the blocks it
    /// gathered, written when the recording ended): in the tree, out of the timeline.
    pub dummy_timed: u64,
    /// `sched:sched_switch` samples without a time or without `prev_state` and
    /// `next_pid`: left out of the off-CPU time.
    pub unread_switches: u64,
    /// What the off-CPU metric's conversion of scheduler switches met, when the input
    /// had switches ([`offcpu`]).
    pub off_cpu: Option<offcpu::OffCpuNotes>,
    /// Folded: fractional counts were seen.
    pub fractional: bool,
    /// The input ended with a read error (truncated gzip, I/O error); what was read
    /// before it is kept.
    pub read_error: Option<String>,
    /// pprof: the profile's metrics, period and duration.
    pub pprof: Option<PprofInfo>,
    /// When the input has several metrics ([`metrics`]): which one this profile is.
    pub metric: Option<MetricPlace>,
    /// A snapshot of a streamed input shown as a preview: frames lighter than this (in
    /// the tree's units) are left out until the input ends, their weight in their
    /// caller's own.
    pub preview_min: Option<u64>,
    /// The CPUs the machine had, as the recording's header says (perf.data's
    /// `nr_cpus`, online): `None` when the input does not say.
    pub nr_cpus: Option<u32>,
    /// The CPUs the samples were taken on (perf script's `[001]`, a perf.data sample's
    /// CPU): empty when the input does not say.
    pub cpus_seen: cpus::CpuSet,
    /// The times of the first and last samples of any event, in nanoseconds (perf's
    /// dummy times left out): the recording's length, timeline or not.
    pub sample_times: Option<(u64, u64)>,
}

/// Which of several metrics of its input a profile is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricPlace {
    /// Its name (perf event, pprof sample type, `on-cpu`).
    pub name: String,
    /// Its place among them, from 0.
    pub index: usize,
    /// How many there are.
    pub count: usize,
}

/// What a pprof profile says about itself, for the header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PprofInfo {
    /// The names of every metric (sample type), in the profile's order.
    pub metrics: Vec<String>,
    /// The sampling period, in `period_type` units (0: not given).
    pub period: i64,
    /// What the period counts and its unit (`cpu`, `nanoseconds`).
    pub period_type: Option<(String, String)>,
    /// How long the profile covers (0: not given).
    pub duration_nanos: i64,
}

impl Stats {
    /// Keeps a warning about `line` for the report without counting a skipped line.
    pub fn note(&mut self, line: u64, reason: &'static str, text: &str) {
        if self.bad_lines.len() < MAX_BAD_LINES_KEPT {
            self.bad_lines.push(BadLine {
                line,
                reason,
                text: text.chars().take(200).collect(),
            });
        }
    }

    /// Records a skipped line.
    pub fn skip(&mut self, line: u64, reason: &'static str, text: &str) {
        *self.skipped.entry(reason).or_insert(0) += 1;
        if self.bad_lines.len() < MAX_BAD_LINES_KEPT {
            let mut kept: String = text.chars().take(200).collect();
            if kept.len() < text.len() {
                kept.push('…');
            }
            self.bad_lines.push(BadLine {
                line,
                reason,
                text: kept,
            });
        }
    }

    /// Lines accounted for: in samples, dropped, comments, blank and skipped. Equal to
    /// [`Stats::lines`] when nothing was lost.
    pub fn accounted_lines(&self) -> u64 {
        let c = &self.line_counts;
        c.in_samples + c.dropped + c.comments + c.blank + self.skipped_lines()
    }

    /// Adds the counts of `other` (stats of another piece of the same input).
    pub fn merge(&mut self, other: Stats) {
        self.line_counts.in_samples += other.line_counts.in_samples;
        self.line_counts.dropped += other.line_counts.dropped;
        self.line_counts.comments += other.line_counts.comments;
        self.line_counts.blank += other.line_counts.blank;
        self.samples += other.samples;
        self.filtered_samples += other.filtered_samples;
        self.lost_records += other.lost_records;
        self.lost_samples += other.lost_samples;
        self.dummy_timed += other.dummy_timed;
        self.unread_switches += other.unread_switches;
        self.offcpu_samples += other.offcpu_samples;
        self.fractional |= other.fractional;
        self.nr_cpus = self.nr_cpus.or(other.nr_cpus);
        self.cpus_seen.union(&other.cpus_seen);
        if let Some((first, last)) = other.sample_times {
            self.saw_time(first);
            self.saw_time(last);
        }
        if self.read_error.is_none() {
            self.read_error = other.read_error;
        }
        if self.pprof.is_none() {
            self.pprof = other.pprof;
        }
        for (e, n) in other.events {
            *self.events.entry(e).or_insert(0) += n;
        }
        for (r, n) in other.skipped {
            *self.skipped.entry(r).or_insert(0) += n;
        }
        self.bad_lines.extend(other.bad_lines);
        self.bad_lines.sort_by_key(|b| b.line);
        self.bad_lines.truncate(MAX_BAD_LINES_KEPT);
        // A unit learnt from samples wins over the default.
        if self.unit == Unit::Samples {
            self.unit = other.unit;
        }
    }

    /// Number of skipped lines.
    pub fn skipped_lines(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// Counts a sample of `event` (any event, kept or not), taken on `cpu` at `time`
    /// when the input says.
    pub fn saw_event(&mut self, event: &str, cpu: Option<u32>, time: Option<u64>) {
        match self.events.get_mut(event) {
            Some(n) => *n += 1,
            None => {
                self.events.insert(event.to_owned(), 1);
            }
        }
        if let Some(cpu) = cpu {
            self.cpus_seen.insert(cpu);
        }
        if let Some(t) = time {
            self.saw_time(t);
        }
    }

    /// Widens [`Stats::sample_times`] to a sample taken at `time` (ns); perf's dummy
    /// times are not times.
    pub fn saw_time(&mut self, time: u64) {
        if time >= samples::DUMMY_TIME_FROM {
            return;
        }
        self.sample_times = Some(match self.sample_times {
            Some((first, last)) => (first.min(time), last.max(time)),
            None => (time, time),
        });
    }

    /// How many CPUs the recording ran on: its header's count, else the distinct CPUs
    /// its samples were taken on; `None` when neither is known.
    pub fn cpu_count(&self) -> Option<u32> {
        self.nr_cpus
            .filter(|&n| n > 0)
            .or_else(|| Some(self.cpus_seen.len()).filter(|&n| n > 0))
    }
}

/// A finished call tree and how it was read.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Where the input came from (a path, or `<stdin>`).
    pub source: String,
    /// The tree.
    pub tree: CallTree,
    /// How it was read.
    pub stats: Stats,
    /// One record per sample (time, task, leaf node of `tree`, weight), shared by the
    /// views of the profile; empty for inputs without sample records (folded stacks,
    /// SystemTap) and for trees derived from this one (their nodes are others).
    pub samples: std::sync::Arc<samples::SampleTable>,
    /// The other metrics of the input, when it has several ([`metrics`]).
    pub metrics: metrics::Metrics,
}

impl Profile {
    /// Formats a weight of this profile with its unit's precision.
    pub fn format_weight(&self, weight: u64) -> String {
        self.tree.format_weight(weight)
    }
}
