//! Stage: bytes → samples while the input is still arriving (`perf script | flametui -`).
//! A reader thread hands lines over in batches, so the parser is never stuck in a read:
//! when no line comes for a while it sends a snapshot of the profile so far, and while
//! lines flow it sends one at most every `every`.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufReader, Read};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError};
use std::time::{Duration, Instant};

use super::common::LineReader;
use super::{Collector, ParseState};
use crate::profile::samples::SampleTable;
use crate::profile::{CallTree, Format, Profile, Stats};

/// Where snapshots of a partly read input go, and how often.
#[derive(Clone)]
pub struct Snapshots {
    /// At most one snapshot per this much time while lines flow; also how long a pause
    /// in the input must last before the profile so far is shown.
    pub every: Duration,
    /// Receives each snapshot (a finished copy of the tree so far).
    pub sink: Arc<dyn Fn(Profile) + Send + Sync>,
    /// Each snapshot holds only what was read since the one before, and one is sent every
    /// `every` even when nothing came: the intervals of `flametui top`'s ring. Only the
    /// perf.data pipe reader (what `top` reads) cuts intervals; the text readers send
    /// whole snapshots.
    pub intervals: bool,
}

impl fmt::Debug for Snapshots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshots")
            .field("every", &self.every)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Snapshots {
    fn eq(&self, other: &Self) -> bool {
        self.every == other.every
            && self.intervals == other.intervals
            && Arc::ptr_eq(&self.sink, &other.sink)
    }
}

impl Eq for Snapshots {}

/// What a line source has next.
pub enum Next<'a> {
    /// A line, without its end.
    Line(Cow<'a, str>),
    /// No line for a while (streaming input only).
    Idle,
    /// Every line read so far was handed out and the producer has sent nothing more yet:
    /// the parser has caught up with a streaming input (more may come at once).
    CaughtUp,
    /// The end of the input.
    End,
    /// The input broke off.
    Failed(io::Error),
}

/// Lines from the input, directly or through the reader thread.
pub trait LineSource {
    /// The next line, or why there is none.
    fn next(&mut self) -> Next<'_>;
}

impl<R: Read> LineSource for LineReader<BufReader<R>> {
    fn next(&mut self) -> Next<'_> {
        match self.next_line() {
            Ok(Some(line)) => Next::Line(line),
            Ok(None) => Next::End,
            Err(e) => Next::Failed(e),
        }
    }
}

/// Batches of lines sent by the reader thread.
type Batch = io::Result<Vec<String>>;

/// The parser's side of the reader thread.
pub struct ChannelLines {
    rx: Receiver<Batch>,
    batch: std::vec::IntoIter<String>,
    wait: Duration,
    /// The last line handed out (kept so `Next::Line` can borrow it).
    current: String,
    /// `Next::CaughtUp` was said for the current wait.
    caught_up: bool,
}

impl ChannelLines {
    /// Receives from `rx`, reporting `Idle` after `wait` without a batch.
    pub fn new(rx: Receiver<Batch>, wait: Duration) -> Self {
        Self {
            rx,
            batch: Vec::new().into_iter(),
            wait,
            current: String::new(),
            caught_up: false,
        }
    }
}

impl LineSource for ChannelLines {
    fn next(&mut self) -> Next<'_> {
        loop {
            if let Some(line) = self.batch.next() {
                self.current = line;
                return Next::Line(Cow::Borrowed(&self.current));
            }
            if !self.caught_up {
                match self.rx.try_recv() {
                    Ok(Ok(batch)) => {
                        self.batch = batch.into_iter();
                        continue;
                    }
                    Ok(Err(e)) => return Next::Failed(e),
                    Err(TryRecvError::Disconnected) => return Next::End,
                    Err(TryRecvError::Empty) => {
                        self.caught_up = true;
                        return Next::CaughtUp;
                    }
                }
            }
            self.caught_up = false;
            match self.rx.recv_timeout(self.wait) {
                Ok(Ok(batch)) => self.batch = batch.into_iter(),
                Ok(Err(e)) => return Next::Failed(e),
                Err(RecvTimeoutError::Timeout) => return Next::Idle,
                Err(RecvTimeoutError::Disconnected) => return Next::End,
            }
        }
    }
}

/// The reader thread's loop: lines in batches (a batch is sent as soon as the input has
/// nothing more buffered, so a slow producer's lines are not held back).
pub fn read_batches<R: Read>(input: R, tx: &SyncSender<Batch>) {
    let mut lines = LineReader::new(BufReader::new(input));
    let mut batch = Vec::with_capacity(256);
    loop {
        match lines.next_line() {
            Ok(Some(line)) => {
                batch.push(line.into_owned());
                if (batch.len() >= 1024 || lines.drained())
                    && tx.send(Ok(std::mem::take(&mut batch))).is_err()
                {
                    return;
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(Ok(std::mem::take(&mut batch)));
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
    let _ = tx.send(Ok(batch));
}

/// Byte batches sent by the reader thread of a binary stream (perf.data in pipe mode).
pub type Bytes = io::Result<Vec<u8>>;

/// The reader thread's loop for a binary stream: whatever the input has buffered is sent
/// at once, so a slow producer's bytes are not held back. The channel's bound (and the
/// input's buffer) bound the bytes in flight.
pub fn read_chunks<R: io::BufRead>(mut input: R, tx: &SyncSender<Bytes>) {
    loop {
        match input.fill_buf() {
            Ok([]) => return,
            Ok(buf) => {
                let chunk = buf.to_vec();
                input.consume(chunk.len());
                if tx.send(Ok(chunk)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

/// The parser's side of [`read_chunks`]: a reader that, while it waits for bytes, calls
/// `wait` with [`Tick::CaughtUp`] when it has caught up with the producer and with
/// [`Tick::Idle`] after every `every` without a byte, so a parser stuck in a read of a
/// paused stream can still show what it has.
pub struct ChannelBytes<F> {
    rx: Receiver<Bytes>,
    chunk: Vec<u8>,
    pos: usize,
    every: Duration,
    wait: F,
    ended: bool,
}

impl<F: FnMut(Tick)> ChannelBytes<F> {
    /// Receives from `rx`, calling `wait` while it waits.
    pub fn new(rx: Receiver<Bytes>, every: Duration, wait: F) -> Self {
        Self {
            rx,
            chunk: Vec::new(),
            pos: 0,
            every,
            wait,
            ended: false,
        }
    }

    /// The next chunk (`false`: the end of the input).
    fn next_chunk(&mut self) -> io::Result<bool> {
        let got = match self.rx.try_recv() {
            Ok(got) => got,
            Err(TryRecvError::Disconnected) => return Ok(false),
            Err(TryRecvError::Empty) => {
                (self.wait)(Tick::CaughtUp);
                loop {
                    match self.rx.recv_timeout(self.every) {
                        Ok(got) => break got,
                        Err(RecvTimeoutError::Timeout) => (self.wait)(Tick::Idle),
                        Err(RecvTimeoutError::Disconnected) => return Ok(false),
                    }
                }
            }
        };
        self.chunk = got?;
        self.pos = 0;
        Ok(true)
    }
}

impl<F: FnMut(Tick)> Read for ChannelBytes<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.chunk.len() {
            if self.ended || !self.next_chunk()? {
                self.ended = true;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Streaming state of one sequential parse.
pub struct Live<'a> {
    /// Where snapshots go.
    pub snapshots: &'a Snapshots,
    /// Display name of the input.
    pub name: &'a str,
    /// Its format.
    pub format: Format,
    /// When the last snapshot was sent.
    pub last: Instant,
    /// Samples in the last snapshot sent.
    pub sent: u64,
    /// The least time between two snapshots while lines flow: `every`, or more when a
    /// snapshot is dear (see `SNAPSHOT_SHARE`).
    pub gap: std::time::Duration,
}

/// A snapshot copies and sorts the whole tree so far, and the viewer then re-indexes it:
/// with many distinct stacks that grows with the input. While lines flow, snapshots are
/// spaced so that making them takes at most this share of the time (1/20).
const SNAPSHOT_SHARE: u32 = 20;

/// When a snapshot is a preview of the heaviest frames only.
#[derive(Debug, Clone, Copy)]
pub struct Preview {
    /// From this many nodes: copying every node of a big tree for each snapshot, and
    /// indexing it in the viewer, was most of what a pipe cost over a file (and the last
    /// snapshot lives on while the whole profile is built).
    pub from: usize,
    /// The most frames a preview keeps (the lighter ones come with the whole profile).
    pub keep: usize,
}

/// When the viewer's snapshots of a stream are previews: from 400,000 nodes.
pub const PREVIEW: Preview = Preview {
    from: 400_000,
    keep: 100_000,
};

impl Preview {
    /// What a snapshot of `out` sends: its tree and sample table, whole while the tree is
    /// small, else of the heaviest frames only ([`CallTree::pruned`], the samples of the
    /// frames left out moved to their kept caller), and its stats (saying which).
    pub fn copy(self, out: &Collector) -> ((CallTree, SampleTable), Stats) {
        let mut stats = out.stats.clone();
        let tree = &out.tree;
        if tree.len() < self.from {
            return ((tree.clone(), out.samples.clone()), stats);
        }
        let min = tree.lightest_of_heaviest(self.keep);
        let (preview, map) = tree.pruned(min);
        let mut samples = SampleTable::default();
        samples.append_mapped(out.samples.clone(), &map, &[]);
        stats.preview_min = Some(min);
        ((preview, samples), stats)
    }
}

/// What just happened, for [`Live::tick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// A line was parsed.
    Line,
    /// The parser caught up with the producer.
    CaughtUp,
    /// The input paused.
    Idle,
}

impl<'a> Live<'a> {
    /// The streaming state of input `name` in `format`, nothing sent yet.
    pub fn new(snapshots: &'a Snapshots, name: &'a str, format: Format) -> Self {
        Self {
            snapshots,
            name,
            format,
            last: Instant::now(),
            sent: 0,
            gap: snapshots.every,
        }
    }

    /// Sends a snapshot when one is due: when the input pauses (`Idle`), or every `every`
    /// while lines flow — checked when the parser catches up with a slow producer, and
    /// every few thousand lines of a fast one; never twice for the same samples.
    pub fn tick(&mut self, parse: &ParseState, out: &Collector, why: Tick) {
        let due = match why {
            Tick::Idle => true,
            Tick::CaughtUp => self.last.elapsed() >= self.gap,
            Tick::Line => parse.line_no.is_multiple_of(2048) && self.last.elapsed() >= self.gap,
        };
        if !due || !self.has_news(out.stats.samples) || out.after.is_some() {
            return;
        }
        let started = Instant::now();
        let (part, stats) = PREVIEW.copy(out);
        self.emit(started, part, stats, parse.line_no);
    }

    /// True when a snapshot would show samples the last one did not.
    pub fn has_news(&self, samples: u64) -> bool {
        samples != self.sent
    }

    /// True when lines flow and the last snapshot is old enough for the next.
    pub fn due(&self) -> bool {
        self.last.elapsed() >= self.gap
    }

    /// Sends a snapshot of `tree` (not yet finished) and its sample table with `stats`
    /// after `lines` lines; making it began at `started` (its cost spaces out the next
    /// ones). The heat map grows with the snapshots.
    pub fn emit(
        &mut self,
        started: Instant,
        (mut tree, mut samples): (CallTree, SampleTable),
        mut stats: Stats,
        lines: u64,
    ) {
        self.sent = stats.samples;
        tree.finish();
        samples.finish();
        stats.format = Some(self.format);
        stats.lines = lines;
        (self.snapshots.sink)(Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: Arc::new(samples),
            source: self.name.to_owned(),
            tree,
            stats,
        });
        self.last = Instant::now();
        self.gap = self
            .snapshots
            .every
            .max(self.last.duration_since(started) * SNAPSHOT_SHARE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dear snapshot spaces the next ones out: 20 × what it cost, never less than
    /// `every`; a pause still shows the profile at once.
    #[test]
    fn dear_snapshots_are_spaced_out() {
        let snapshots = Snapshots {
            every: Duration::from_millis(1),
            intervals: false,
            sink: Arc::new(|_| std::thread::sleep(Duration::from_millis(20))),
        };
        let mut live = Live {
            snapshots: &snapshots,
            name: "t",
            format: Format::Folded,
            last: Instant::now().checked_sub(Duration::from_secs(1)).unwrap(),
            sent: 0,
            gap: snapshots.every,
        };
        let mut out = Collector::default();
        out.tree.insert(["a"], 1);
        out.stats.samples = 1;
        live.tick(&ParseState { line_no: 2048 }, &out, Tick::Line);
        assert_eq!(live.sent, 1);
        assert!(live.gap >= Duration::from_millis(400), "{:?}", live.gap);
        out.stats.samples = 2;
        live.tick(&ParseState { line_no: 4096 }, &out, Tick::Line);
        assert_eq!(live.sent, 1, "due only after the gap");
        live.tick(&ParseState { line_no: 4097 }, &out, Tick::Idle);
        assert_eq!(live.sent, 2, "a pause shows the profile at once");
    }
}
