//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use crate::app::mode::Dir;
use crate::profile::Profile;
use crate::view::heatmap::{Grid, TimeScale};

/// The heat map screen.
#[derive(Debug, Clone, Default)]
pub struct HeatState {
    /// Seconds per column and the first second shown (`None` until placed: fit to the
    /// screen then).
    pub scale: Option<TimeScale>,
    /// The cursor: column and row.
    pub cursor: (u16, u32),
    /// Where a range being marked starts (ns from the first sample).
    pub mark: Option<u64>,
    /// The range marked: `[start, end)` ns from the first sample.
    pub range: Option<(u64, u64)>,
    /// The range kept as the baseline of a comparison (`b`).
    pub baseline: Option<(u64, u64)>,
    /// The cells on screen.
    pub grid: Option<Grid>,
    /// Matching samples per cell while a search is on.
    pub matches: Option<Vec<u64>>,
    /// The line under the map.
    pub info: String,
    /// The recording's length, ns from the first sample to the last (set when placed).
    pub span: u64,
}

/// A key of the heat map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatKey {
    /// Move the cursor by a cell.
    Move(Dir),
    /// Finer (`true`) or coarser time scale.
    Zoom(bool),
    /// Start a range at the cursor, or end it there.
    Mark,
    /// Keep the range marked as the baseline.
    Baseline,
    /// Compare the baseline with the range marked.
    Compare,
    /// Show the range marked (or the whole recording) as a flame graph.
    Show,
    /// Show the whole recording (the time range dropped, undoable).
    Whole,
    /// Move the cursor's time by a span, forwards (`true`) or back.
    Jump(Span, bool),
    /// Type the range in seconds (`:`): the app opens the prompt.
    Type,
}

/// How far a big step of the heat map's cursor goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// A tenth of a second.
    Tenth,
    /// A second.
    Second,
    /// A tenth of the recording.
    Recording,
}

impl HeatState {
    /// The time range the cursor and the pending mark span, or the range marked.
    pub fn shown_range(&self) -> Option<(u64, u64)> {
        match (self.mark, &self.grid) {
            (Some(m), Some(g)) => {
                let (c, r) = self.cursor;
                let here = g.start(c, r);
                Some((m.min(here), m.max(here) + g.row_ns))
            }
            _ => self.range,
        }
    }
}

/// The recording's length in whole seconds, one more (what the heat map's time scale
/// can zoom out to: `key`'s `seconds_total`).
pub fn seconds_total(original: &Profile) -> u64 {
    original.samples.duration() / crate::view::heatmap::SECOND + 1
}

/// Why a profile has no heat map, if it has none.
pub fn unavailable(original: &Profile) -> Option<&'static str> {
    let both_halves = original.stats.event.as_deref() == Some(crate::profile::metrics::BOTH_HALVES);
    if original.samples.is_empty() && both_halves {
        // Made of two events: neither's sample table is its.
        Some(
            "No timeline for on+off-CPU time: press m for cpu-clock or off-cpu, whose samples have times",
        )
    } else if original.samples.is_empty() {
        Some("No timeline: this input has no timestamps (perf script input has them)")
    } else if original.stats.format == Some(crate::profile::Format::Pprof) {
        Some("No timeline: pprof samples carry no times (a profile sums them over its duration)")
    } else if !original.samples.has_timeline() {
        Some("No timeline: perf script printed no time field (perf script -F +time)")
    } else {
        None
    }
}

/// The timeline strip of the graph view: samples per column over the whole recording
/// (of the view's tasks), and the range shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Strip {
    /// Terminal columns it was made for.
    pub width: u16,
    /// The task set it counts.
    pub tasks: Option<std::collections::BTreeSet<crate::profile::samples::TaskId>>,
    /// The samples it counts (a streamed input grows).
    pub samples: usize,
    /// Nanoseconds of recording the strip spans (its duration plus one).
    pub span: u64,
    /// Samples per column.
    pub counts: Vec<u64>,
}

/// Width of the strip's label (` time `).
pub const STRIP_LABEL: u16 = 6;
