//! Stage: a live recording → the trees of `flametui top`. The recording is cut into one
//! [`Interval`] per refresh (a finished call tree and its samples); a [`Ring`] keeps the
//! recent ones and sums them as a [`LiveMode`] asks: everything so far, the last few
//! refreshes, perf top's decay, or the last few against the few before.
//!
//! Memory is bounded whatever the length of the recording: the newest intervals are kept
//! whole (the fine ring), older ones are merged a few at a time into coarse intervals that
//! keep their tree only, and the oldest coarse ones into one interval of everything
//! before. At most `fine + coarse + 1` trees are kept ([`RingLimits`]), and one more: the
//! running total that accumulate shows.
//!
//! Every sum is a pure function of the ring: trees merged node by node (weights add
//! exactly, saturating at `u64::MAX`), then finished like any loaded tree (siblings in
//! alphabetical order), and sample tables remapped onto the merged tree and put in time
//! order.

mod decay;

use std::collections::VecDeque;

use super::samples::{DUMMY_TIME_FROM, Sample, SampleTable, Task};
use super::tree::CallTree;

pub use decay::{DECAY, DECAY_DECIMALS};

/// One refresh interval, or several merged: a finished call tree, its sample table (whose
/// leaves are nodes of `tree`; may be empty for inputs without samples), the samples lost
/// and the time span of its samples.
#[derive(Debug, Clone)]
pub struct Interval {
    /// The call tree, finished (children in alphabetical order).
    pub tree: CallTree,
    /// One record per sample, in time order; its leaves are nodes of `tree`. Empty for
    /// inputs without samples, and for merged intervals that drop them (see
    /// [`Ring::push`], [`LiveMode`]).
    pub samples: SampleTable,
    /// Samples the recording reported lost (`PERF_RECORD_LOST`) during the interval.
    pub lost: u64,
    /// Number of refresh intervals merged into this one (1 for a fresh one, 0 for an
    /// empty sum).
    pub refreshes: u32,
    /// Times of the first and the last sample, in nanoseconds of perf's clock (as in
    /// [`Sample::time`]); `None` when no sample had a real time. Kept when a merge drops
    /// the samples.
    pub span: Option<(u64, u64)>,
}

impl Interval {
    /// A fresh interval of one refresh: `tree` and `samples` are finished here (the
    /// samples' leaves must be nodes of `tree`), and the span is read from the samples.
    pub fn new(mut tree: CallTree, mut samples: SampleTable, lost: u64) -> Self {
        tree.finish();
        samples.finish();
        let span = span_of(&samples);
        Self {
            tree,
            samples,
            lost,
            refreshes: 1,
            span,
        }
    }

    /// An interval of no refresh: an empty tree and table.
    pub fn empty() -> Self {
        Self {
            tree: CallTree::new(),
            samples: SampleTable::default(),
            lost: 0,
            refreshes: 0,
            span: None,
        }
    }

    /// Approximate bytes held: the tree's nodes and names, the samples and tasks.
    pub fn heap_bytes(&self) -> usize {
        let names: usize = self
            .tree
            .names()
            .iter()
            // Each name is held twice (by id and in the lookup), with a pointer each.
            .map(|(_, n)| 2 * (n.len() + 2 * std::mem::size_of::<usize>()))
            .sum();
        let s = &self.samples;
        let tasks: usize = s
            .tasks()
            .iter()
            .map(|t| std::mem::size_of::<Task>() + t.comm.len())
            .sum();
        self.tree.heap_bytes()
            + names
            + s.len() * std::mem::size_of::<Sample>()
            + s.switches().map_or(0, <[_]>::len) * 8
            + s.line_stacks().map_or(0, <[_]>::len) * 4
            + s.switch_ins().len() * 16
            + tasks
    }

    /// Adds `other`'s tree to this one's (not finished again: [`Interval::finish`] does
    /// it once after the last), and `samples`, which must be `other`'s samples or
    /// `None` to drop them. Source lines of the samples are not kept.
    fn add(&mut self, other: &Interval, samples: Option<SampleTable>) {
        let leaves = self.tree.merge_from_mapped(&other.tree);
        if let Some(samples) = samples {
            self.samples.append_mapped(samples, &leaves, &[]);
        }
        self.lost = self.lost.saturating_add(other.lost);
        self.refreshes = self.refreshes.saturating_add(other.refreshes);
        self.span = union(self.span, other.span);
    }

    /// Finishes the tree and the samples after merges.
    fn finish(&mut self) {
        self.tree.finish();
        self.samples.finish();
    }
}

/// The first and last real times of a finished table (none when some sample has none).
fn span_of(samples: &SampleTable) -> Option<(u64, u64)> {
    if samples.untimed() > 0 {
        return None;
    }
    let timed = samples.samples().iter().map(|s| s.time);
    let mut real = timed.filter(|&t| t < DUMMY_TIME_FROM);
    let first = real.next()?;
    Some((first, real.next_back().unwrap_or(first)))
}

/// The span covering both spans.
fn union(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> Option<(u64, u64)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, b) => a.or(b),
    }
}

/// The span covering every part's.
fn span_of_union(parts: &[&Interval]) -> Option<(u64, u64)> {
    parts.iter().fold(None, |s, p| union(s, p.span))
}

/// The parts merged into one interval: the largest copied whole, the others merged into
/// it. With `samples`, the sample tables too (else the result's is empty).
fn merged(parts: &[&Interval], samples: bool) -> Interval {
    let Some(base) = (0..parts.len()).max_by_key(|&i| parts[i].tree.len()) else {
        return Interval::empty();
    };
    let mut out = Interval {
        tree: parts[base].tree.clone(),
        samples: if samples {
            parts[base].samples.clone()
        } else {
            SampleTable::default()
        },
        ..*parts[base]
    };
    for (i, p) in parts.iter().enumerate() {
        if i != base {
            out.add(p, samples.then(|| p.samples.clone()));
        }
    }
    out.finish();
    out
}

/// How many intervals a [`Ring`] keeps. At most `fine + coarse + 1` trees are kept: the
/// fine intervals, the coarse ones and one interval of everything older.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingLimits {
    /// Newest refresh intervals kept whole, with their samples: what windows, decay and
    /// diffs are computed over.
    pub fine: usize,
    /// Fine intervals merged into one coarse interval when the fine ring is full (at least
    /// 1 is merged, whatever this says).
    pub per_coarse: usize,
    /// Coarse intervals kept (trees only) before the oldest merges into the interval of
    /// everything older.
    pub coarse: usize,
}

impl Default for RingLimits {
    /// 64 fine intervals (a minute at the default 1 s refresh), 16 per coarse one, 64
    /// coarse ones (about 17 minutes more); at most 129 trees.
    fn default() -> Self {
        Self {
            fine: 64,
            per_coarse: 16,
            coarse: 64,
        }
    }
}

/// How the intervals of a [`Ring`] are summed into what is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveMode {
    /// Everything pushed so far. Its sample table holds the samples only while no coarse
    /// interval exists (coarse intervals drop theirs); after that it is empty.
    Accumulate,
    /// The last N refreshes (at most the fine ring's length), tree and samples.
    Window(u32),
    /// perf top's decay: each refresh multiplies the past by [`DECAY`] (7/8), so an
    /// interval of age `a` (0 the newest) weighs `(7/8)^a`. Computed over the fine ring
    /// only (beyond 64 refreshes a weight is below `(7/8)^64`, about 0.02%). The tree has
    /// [`DECAY_DECIMALS`] more decimals than the intervals' ([`CallTree::scale`]); its
    /// sample table is empty (a decayed sample means nothing on its own).
    Decay,
    /// The last N refreshes (after) against the N before them (before), fewer when the
    /// fine ring is shorter; either may be empty.
    Diff(u32),
}

/// What a [`LiveMode`] gives: one profile, or two to compare.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // made once per refresh, moved rarely
pub enum Combined {
    /// One interval (accumulate, window, decay).
    One(Interval),
    /// Two intervals to compare (diff).
    Two {
        /// The older refreshes.
        before: Interval,
        /// The newer refreshes.
        after: Interval,
    },
}

/// The intervals of a live recording: the newest kept whole, older ones merged into
/// coarse intervals of trees only, the oldest into one interval of everything before.
#[derive(Debug, Clone)]
pub struct Ring {
    limits: RingLimits,
    /// Newest last.
    fine: VecDeque<Interval>,
    /// Newest last; samples dropped.
    coarse: VecDeque<Interval>,
    /// Everything before the coarse intervals; samples dropped.
    older: Option<Interval>,
    /// Everything pushed, summed as it comes (accumulate's view): each push merges one
    /// refresh into it instead of every view merging every tree kept. Its samples are
    /// dropped once the first coarse interval drops theirs.
    total: Interval,
    pushed: u64,
}

impl Ring {
    /// An empty ring with these limits.
    pub fn new(limits: RingLimits) -> Self {
        Self {
            limits,
            fine: VecDeque::new(),
            coarse: VecDeque::new(),
            older: None,
            total: Interval::empty(),
            pushed: 0,
        }
    }

    /// The limits it was made with.
    pub fn limits(&self) -> RingLimits {
        self.limits
    }

    /// Adds the newest interval. When the fine ring is then over its limit, its oldest
    /// `per_coarse` intervals merge into one coarse interval (their sample tables are
    /// dropped: coarse intervals keep trees only, bounding memory); when the coarse ring
    /// is over its limit, its oldest merges into the one `older` interval holding
    /// everything before.
    pub fn push(&mut self, interval: Interval) {
        self.pushed += 1;
        let whole = self.coarse.is_empty() && self.older.is_none();
        self.total
            .add(&interval, whole.then(|| interval.samples.clone()));
        self.total.finish();
        self.fine.push_back(interval);
        if self.fine.len() > self.limits.fine {
            let n = self.limits.per_coarse.clamp(1, self.fine.len());
            let mut parts = self.fine.drain(..n);
            let Some(mut coarse) = parts.next() else {
                return;
            };
            coarse.samples = SampleTable::default();
            for p in parts {
                coarse.add(&p, None);
            }
            coarse.finish();
            self.coarse.push_back(coarse);
            self.total.samples = SampleTable::default();
        }
        if self.coarse.len() > self.limits.coarse
            && let Some(oldest) = self.coarse.pop_front()
        {
            self.older = Some(match self.older.take() {
                None => oldest,
                Some(mut older) => {
                    older.add(&oldest, None);
                    older.finish();
                    older
                }
            });
        }
    }

    /// Intervals pushed in all.
    pub fn refreshes(&self) -> u64 {
        self.pushed
    }

    /// Fine intervals kept (the most a window, the decay or a diff can cover).
    pub fn fine_len(&self) -> usize {
        self.fine.len()
    }

    /// Trees kept: fine, coarse and older; at most `fine + coarse + 1` of the limits.
    pub fn trees(&self) -> usize {
        self.fine.len() + self.coarse.len() + usize::from(self.older.is_some())
    }

    /// Approximate bytes held by every interval kept ([`Interval::heap_bytes`]).
    pub fn heap_bytes(&self) -> usize {
        let total = if self.pushed > 0 {
            self.total.heap_bytes()
        } else {
            0
        };
        self.all().map(Interval::heap_bytes).sum::<usize>() + total
    }

    /// Every interval kept, oldest first.
    fn all(&self) -> impl Iterator<Item = &Interval> {
        self.older.iter().chain(&self.coarse).chain(&self.fine)
    }

    /// The newest `n` fine intervals after skipping the `skip` newest, oldest first.
    fn newest(&self, skip: usize, n: usize) -> Vec<&Interval> {
        let end = self.fine.len().saturating_sub(skip);
        let start = end.saturating_sub(n);
        self.fine.range(start..end).collect()
    }

    /// The intervals summed as `mode` asks (a new interval: the ring is not changed).
    /// Accumulate is a copy of the running total; the others merge the fine intervals they
    /// cover afresh, one lookup per node merged in.
    pub fn view(&self, mode: LiveMode) -> Combined {
        match mode {
            LiveMode::Accumulate => Combined::One(self.total.clone()),
            LiveMode::Window(n) => Combined::One(merged(&self.newest(0, n as usize), true)),
            LiveMode::Decay => {
                let parts: Vec<&Interval> = self.fine.iter().collect();
                Combined::One(decay::decayed(&parts))
            }
            LiveMode::Diff(n) => {
                let n = n as usize;
                let after = merged(&self.newest(0, n), true);
                let before = merged(&self.newest(n, n), true);
                Combined::Two { before, after }
            }
        }
    }
}

#[cfg(test)]
mod tests;
