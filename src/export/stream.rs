//! Stage: call tree → text, streamed. The folded exports format their lines into a
//! [`Sink`], which hands them to the writer in chunks of about [`CHUNK`] bytes: on one
//! thread ([`write_serial`]) or on several ([`write_runs`]), where each formatter thread
//! may have at most [`QUEUED`] bytes waiting for the writer. Memory is then bounded by
//! the longest line plus a constant per thread, whatever the tree's shape or the size
//! of the output (a quadratic evented export of 900 MB is written, never held).
//!
//! Several trees' stacks (the parser threads' trees of one input, or the two sides of a
//! differential export) are merged line by line ([`Merge`]): one line per tree is held,
//! never one run of lines.

use std::collections::VecDeque;
use std::io::{self, Write};

use crate::profile::threads::spawn_workers;
use crate::profile::{NameId, Rank, SortedWalk, path_order};

/// Formatted bytes are handed on in chunks of about this many bytes.
pub const CHUNK: usize = 256 << 10;

/// The sorted walk is cut into runs of about 1/(this × threads) of the samples: enough
/// batches for the formatter threads to share the work evenly, and few, since cutting is
/// done on one thread before any formatting, and each family cut into is listed whole
/// (a system-wide recording cut to 1/64 per thread gave 270,000 runs, 170 ms and 19 MB
/// on 2 threads; to 1/8, 47 runs in under a millisecond).
const RUNS_PER_THREAD: u64 = 8;

/// The samples a run of a sorted walk of `samples` samples holds at most, where the tree
/// allows it, when it is cut for `threads` formatter threads ([`write_runs`]).
pub fn samples_per_run(samples: u64, threads: usize) -> u64 {
    (samples / (threads as u64 * RUNS_PER_THREAD)).max(1)
}

/// Bytes one formatter thread may have waiting for the writer before it waits itself.
pub const QUEUED: usize = 1 << 20;

/// Lines being formatted: [`Sink::line_done`] hands them on once about [`CHUNK`] bytes
/// are there. Once the receiver said stop (the writer failed), the formatting can stop
/// too ([`Sink::stopped`]).
pub struct Sink<'a> {
    buf: Vec<u8>,
    hand: &'a mut dyn FnMut(&mut Vec<u8>) -> bool,
    stopped: bool,
}

impl<'a> Sink<'a> {
    /// A sink whose chunks go to `hand`, which takes or clears the buffer and says
    /// whether to go on.
    pub fn new(hand: &'a mut dyn FnMut(&mut Vec<u8>) -> bool) -> Self {
        Self {
            buf: Vec::new(),
            hand,
            stopped: false,
        }
    }

    /// The bytes of the lines not yet handed on; a line is appended here, then
    /// [`Sink::line_done`] is called.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Whether the receiver wants no more.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// A whole line was appended: hands the lines on when a chunk is full.
    pub fn line_done(&mut self) {
        if self.buf.len() >= CHUNK {
            self.hand_on();
        }
    }

    fn hand_on(&mut self) {
        if !self.stopped && !self.buf.is_empty() {
            self.stopped = !(self.hand)(&mut self.buf);
        }
        self.buf.clear();
    }

    /// Hands on what is left.
    pub fn finish(mut self) {
        self.hand_on();
    }
}

/// Runs `format` on this thread, writing its lines to `out` chunk by chunk.
///
/// # Errors
/// The first error of the writer (formatting stops there).
pub fn write_serial<W: Write>(out: &mut W, format: impl FnOnce(&mut Sink)) -> io::Result<()> {
    let mut error = None;
    let mut hand = |buf: &mut Vec<u8>| match out.write_all(buf) {
        Ok(()) => true,
        Err(e) => {
            error = Some(e);
            false
        }
    };
    let mut sink = Sink::new(&mut hand);
    format(&mut sink);
    sink.finish();
    error.map_or(Ok(()), Err)
}

/// The chunks of one batch on their way to the writer.
#[derive(Default)]
struct Batch {
    chunks: VecDeque<Vec<u8>>,
    queued: usize,
    done: bool,
}

#[derive(Default)]
struct Shared {
    batches: Vec<Batch>,
    /// The batch the writer is at.
    writing: usize,
    /// Written chunks, for the formatters to reuse.
    spare: Vec<Vec<u8>>,
    stop: bool,
}

/// Formats `runs` (consecutive pieces of a sorted output) on `threads` threads, in
/// batches of about `per_run` samples taken in order (`format` is given one batch at a
/// time, and stops when the sink did), and writes them in order on this thread. A formatter hands its batch on chunk by chunk and waits while [`QUEUED`] bytes
/// of it wait for the writer; no formatter runs more than `2 × threads` batches ahead of
/// the writer.
///
/// # Errors
/// The first error of the writer (the formatters stop).
pub fn write_runs<W: Write, R: Sync>(
    out: &mut W,
    runs: &[R],
    samples: impl Fn(&R) -> u64,
    per_run: u64,
    threads: usize,
    format: impl Fn(&[R], &mut Sink) + Sync,
) -> io::Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex, PoisonError};

    let batches = batches(runs, samples, per_run);
    let window = threads * 2;
    let next = AtomicUsize::new(0);
    let shared = Mutex::new(Shared {
        batches: batches.iter().map(|_| Batch::default()).collect(),
        ..Shared::default()
    });
    let changed = Condvar::new();
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let wait = |g| changed.wait(g).unwrap_or_else(PoisonError::into_inner);
    std::thread::scope(|scope| {
        let formatters = spawn_workers(scope, 0..threads, |_| {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(batch) = batches.get(i) else { break };
                let mut g = lock();
                while i >= g.writing + window && !g.stop {
                    g = wait(g);
                }
                if g.stop {
                    break;
                }
                drop(g);
                let mut hand = |buf: &mut Vec<u8>| {
                    let mut g = lock();
                    let chunk = std::mem::replace(buf, g.spare.pop().unwrap_or_default());
                    let b = &mut g.batches[i];
                    b.queued += chunk.len();
                    b.chunks.push_back(chunk);
                    changed.notify_all();
                    while g.batches[i].queued >= QUEUED && !g.stop {
                        g = wait(g);
                    }
                    !g.stop
                };
                let mut sink = Sink::new(&mut hand);
                format(&runs[batch.clone()], &mut sink);
                sink.finish();
                lock().batches[i].done = true;
                changed.notify_all();
            }
        });
        if formatters.is_empty() {
            // No thread could be started (a memory limit): this one formats it all.
            return write_serial(out, |sink| {
                for batch in &batches {
                    if sink.stopped() {
                        break;
                    }
                    format(&runs[batch.clone()], sink);
                }
            });
        }
        let result = write_batches(out, batches.len(), &shared, &changed);
        lock().stop = true;
        changed.notify_all();
        result
    })
}

/// Consecutive runs grouped into batches of about `per_run` samples.
fn batches<R>(
    runs: &[R],
    samples: impl Fn(&R) -> u64,
    per_run: u64,
) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut acc) = (0, 0u64);
    for (i, run) in runs.iter().enumerate() {
        acc = acc.saturating_add(samples(run));
        if acc >= per_run || i + 1 == runs.len() {
            batches.push(start..i + 1);
            (start, acc) = (i + 1, 0);
        }
    }
    batches
}

/// The writer's side of [`write_runs`]: each batch's chunks in order, as they come.
fn write_batches<W: Write>(
    out: &mut W,
    count: usize,
    shared: &std::sync::Mutex<Shared>,
    changed: &std::sync::Condvar,
) -> io::Result<()> {
    use std::sync::PoisonError;
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let mut g = lock();
    while g.writing < count {
        let w = g.writing;
        if let Some(mut chunk) = g.batches[w].chunks.pop_front() {
            drop(g);
            let written = out.write_all(&chunk);
            g = lock();
            g.batches[w].queued -= chunk.len();
            chunk.clear();
            if g.spare.len() < 16 {
                g.spare.push(chunk);
            }
            written?;
        } else if g.batches[w].done {
            g.writing += 1;
        } else {
            g = changed.wait(g).unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        // Tells the waiting formatters (a drained queue, a window moved on).
        changed.notify_all();
    }
    Ok(())
}

/// One tree's next stack in a [`Merge`].
struct Head<'t> {
    walk: SortedWalk<'t>,
    /// The walk's tree's name ranks.
    ranks: &'t [Rank],
    weight: u64,
    /// Its weights are multiplied by this (to a common number of decimals).
    factor: u64,
    live: bool,
}

impl Head<'_> {
    fn load(&mut self) {
        self.live = false;
        if let Some(w) = self.walk.advance() {
            self.weight = w.saturating_mul(self.factor);
            self.live = true;
        }
    }
}

/// The union of several sorted walks, by the text of their stacks: each distinct stack
/// once, with each walk's weight of it. The walks must give their stacks in bytewise
/// order of the text, each text once (see [`crate::profile::union_sorted_runs`]); each
/// comes with its tree's ranks in one [`crate::profile::TextRanks`] of all the trees, and
/// stacks are compared by their frames' ranks: no text is built or compared.
pub struct Merge<'t> {
    heads: Vec<Head<'t>>,
    /// The heads given by the last [`Merge::next`], to advance at the next.
    least: Vec<usize>,
}

impl<'t> Merge<'t> {
    /// Merges `walks`, each with its tree's ranks and the factor its weights are
    /// multiplied by.
    pub fn new(walks: impl IntoIterator<Item = (SortedWalk<'t>, &'t [Rank], u64)>) -> Self {
        let heads: Vec<Head<'t>> = walks
            .into_iter()
            .map(|(walk, ranks, factor)| Head {
                walk,
                ranks,
                weight: 0,
                factor,
                live: false,
            })
            .collect();
        let least = (0..heads.len()).collect();
        Self { heads, least }
    }

    /// Starts over: `walk(i, w)` points the walk of head `i` at its next stacks (or
    /// stops it) and says whether it has some.
    pub fn restart(&mut self, mut walk: impl FnMut(usize, &mut SortedWalk<'t>) -> bool) {
        self.least.clear();
        for (h, head) in self.heads.iter_mut().enumerate() {
            head.live = false;
            if walk(h, &mut head.walk) {
                self.least.push(h);
            }
        }
    }

    /// The next stack (the number of a walk that has it, in the order given, and its
    /// frames, root first) and, in `weights` (one per walk), each walk's weight of it (0
    /// where a walk lacks it); `None` at the end.
    pub fn next(&mut self, weights: &mut [u64]) -> Option<(usize, &[NameId])> {
        for &h in &self.least {
            self.heads[h].load();
        }
        self.least.clear();
        for (h, head) in self.heads.iter().enumerate() {
            if !head.live {
                continue;
            }
            match self.least.first().map(|&q| {
                let least = &self.heads[q];
                path_order(head.walk.path(), head.ranks, least.walk.path(), least.ranks)
            }) {
                None | Some(std::cmp::Ordering::Equal) => self.least.push(h),
                Some(std::cmp::Ordering::Less) => {
                    self.least.clear();
                    self.least.push(h);
                }
                Some(std::cmp::Ordering::Greater) => {}
            }
        }
        weights.fill(0);
        for &h in &self.least {
            weights[h] = self.heads[h].weight;
        }
        let &first = self.least.first()?;
        Some((first, self.heads[first].walk.path()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::CallTree;

    #[test]
    fn a_merge_gives_each_stack_once_with_each_trees_weight() {
        let a = CallTree::from_stacks(&[("m;x", 2), ("m", 1), ("m;y;z", 4)]);
        let b = CallTree::from_stacks(&[("m;x", 3), ("m;w", 5), ("n", 1)]);
        let ranks = crate::profile::TextRanks::new(&[&a, &b]);
        let mut merge = Merge::new([
            (a.sorted_walk(), ranks.of(0), 1),
            (b.sorted_walk_ranked(ranks.of(1)), ranks.of(1), 10),
        ]);
        let mut w = [0u64; 2];
        let mut got = Vec::new();
        while let Some((t, path)) = merge.next(&mut w) {
            let tree = [&a, &b][t];
            let names: Vec<&str> = path.iter().map(|&n| tree.names().resolve(n)).collect();
            got.push((names.join(";"), w));
        }
        let want = [
            ("m", [1, 0]),
            ("m;w", [0, 50]),
            ("m;x", [2, 30]),
            ("m;y;z", [4, 0]),
            ("n", [0, 10]),
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((t, w), (wt, ww)) in got.iter().zip(want) {
            assert_eq!((t.as_str(), *w), (wt, ww));
        }
        let mut walk = a.sorted_walk();
        let mut texts = Vec::new();
        while walk.advance().is_some() {
            let names: Vec<&str> = walk.path().iter().map(|&n| a.names().resolve(n)).collect();
            texts.push(names.join(";"));
        }
        assert_eq!(texts, ["m", "m;x", "m;y;z"]);
    }

    #[test]
    fn a_failed_writer_stops_the_formatting() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut lines = 0usize;
        let e = write_serial(&mut Full, |sink| {
            for _ in 0..100_000 {
                if sink.stopped() {
                    break;
                }
                sink.buf().extend_from_slice(&[b'x'; 99]);
                sink.buf().push(b'\n');
                sink.line_done();
                lines += 1;
            }
        });
        assert!(e.is_err());
        assert!(
            lines < 3 * CHUNK / 100,
            "{lines} lines formatted after the error"
        );
    }
}
