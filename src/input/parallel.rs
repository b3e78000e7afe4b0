//! Stage: bytes → samples on all cores. The input is cut into chunks at record
//! boundaries (after a blank line for perf script, after a newline for folded stacks),
//! worker threads parse chunks into trees of their own, and the trees are merged (or left
//! apart for the folded export, which writes their union: [`parse_parts`]). The
//! result does not depend on the number of threads or the chunk size: the kept perf event
//! and the folded file's kind are decided from the first lines before the split, trees
//! are keyed by path and children sorted at the end. Memory is bounded by the channel.

use std::io::{self, BufRead};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::capped::skip_long;
use super::common::for_each_line;
use super::{Collector, ParseState, folded, perf};
use crate::profile::threads::spawn_workers;
use crate::profile::{CallTree, Format};

/// What the workers need to parse any chunk alone.
#[derive(Debug, Clone)]
pub enum ChunkParser {
    /// perf script with the event to keep already chosen.
    Perf(perf::PerfOptions),
    /// Folded stacks; `true` for a differential file.
    Folded(bool),
}

/// One piece of the input and the number of its first line.
pub(super) struct Chunk {
    pub(super) first_line: u64,
    /// The buffer, its bytes past `len` read before (kept initialised, so that a
    /// recycled buffer is read into without being zeroed again).
    pub(super) bytes: Vec<u8>,
    pub(super) len: usize,
}

impl Chunk {
    fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Where a chunk may end: the index just after the last record boundary.
pub(super) fn boundary(buf: &[u8], format: &ChunkParser) -> Option<usize> {
    match format {
        // A blank line ends a sample, with or without a CR (CRLF files).
        // The CRLF search only looks past the last LF boundary: in an LF file it would
        // otherwise scan the whole chunk for nothing.
        ChunkParser::Perf(_) => {
            let lf = memchr::memmem::rfind(buf, b"\n\n").map(|i| i + 2);
            let after = lf.map_or(0, |i| i - 1);
            let crlf = memchr::memmem::rfind(&buf[after..], b"\n\r\n").map(|i| after + i + 3);
            lf.max(crlf)
        }
        ChunkParser::Folded(_) => memchr::memrchr(b'\n', buf).map(|i| i + 1),
    }
}

/// Reads chunks of about `size` bytes ending at record boundaries and passes them to
/// `send` (which says `false` to stop), into the buffers parsed chunks left when `spare`
/// gives some: their pages are mapped already (fresh ones cost a page fault each, and
/// freed ones went back to the system and came again).
fn split<R: BufRead>(
    mut reader: R,
    format: &ChunkParser,
    size: usize,
    mut send: impl FnMut(Chunk) -> bool,
    mut spare: impl FnMut() -> Option<Vec<u8>>,
    error: &mut Option<String>,
) -> u64 {
    let mut carry: Vec<u8> = Vec::new();
    let mut line = 1u64;
    loop {
        let start = carry.len();
        let mut buf = match spare() {
            // A record longer than a chunk goes on growing in its own buffer.
            Some(mut b) if start < size => {
                if b.len() < start {
                    b.resize(start, 0);
                }
                b[..start].copy_from_slice(&carry);
                carry.clear();
                b
            }
            _ => std::mem::take(&mut carry),
        };
        let want = start + size;
        // Zeroed once, when a buffer grows: a recycled one is read into as it is (the
        // readers here have no way to fill memory that was never initialised).
        if buf.len() < want {
            buf.resize(want, 0);
        }
        // Up to the limit or the end of the input, which is read once (reading again
        // after the end would make a terminal need a second Ctrl-D).
        let mut filled = start;
        let mut eof = false;
        while filled < want {
            match reader.read(&mut buf[filled..want]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // The input ends here; what came before still loads, but not a line
                    // the error cut in two (`b 2` may have been `b 25`).
                    *error = Some(e.to_string());
                    filled = memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |i| i + 1);
                    eof = true;
                    break;
                }
            }
        }
        // The carried part holds no boundary: search only from the junction on, so a
        // record far longer than a chunk does not make the search quadratic.
        let from = start.saturating_sub(2);
        let cut = if eof {
            Some(filled)
        } else {
            boundary(&buf[from..filled], format).map(|i| i + from)
        };
        let Some(cut) = cut else {
            // One record longer than a chunk: keep reading.
            buf.truncate(filled);
            carry = buf;
            continue;
        };
        carry.clear();
        carry.extend_from_slice(&buf[cut..filled]);
        let text = &buf[..cut];
        let unterminated = eof && !text.is_empty() && !text.ends_with(b"\n");
        let lines = memchr::memchr_iter(b'\n', text).count() as u64 + u64::from(unterminated);
        if cut > 0
            && !send(Chunk {
                first_line: line,
                bytes: buf,
                len: cut,
            })
        {
            break;
        }
        line += lines;
        if eof {
            break;
        }
    }
    line - 1
}

/// A worker's parser, kept across its chunks (the perf parser's name cache stays warm).
pub(super) enum Worker {
    Perf(Box<perf::PerfParser>),
    Folded(folded::FoldedParser),
}

impl Worker {
    pub(super) fn new(format: &ChunkParser) -> Self {
        match format {
            ChunkParser::Perf(opts) => Worker::Perf(Box::new(perf::PerfParser::new(opts.clone()))),
            ChunkParser::Folded(diff) => Worker::Folded(folded::FoldedParser::with_diff(*diff)),
        }
    }

    /// Parses one chunk into `out`; chunks end at record boundaries, so no sample spans two.
    pub(super) fn chunk(&mut self, chunk: &Chunk, out: &mut Collector) {
        let mut state = ParseState {
            line_no: chunk.first_line - 1,
        };
        out.begin_piece(chunk.first_line);
        match self {
            Worker::Perf(p) => {
                for_each_line(chunk.text(), |line| {
                    state.line_no += 1;
                    if !skip_long(line, &state, out) {
                        p.line(line, &mut state, out);
                    }
                });
                p.end_chunk(out);
            }
            Worker::Folded(p) => for_each_line(chunk.text(), |line| {
                state.line_no += 1;
                if !skip_long(line, &state, out) {
                    p.line(line, &mut state, out);
                }
            }),
        }
    }

    pub(super) fn finish(&mut self, out: &mut Collector) {
        if let Worker::Perf(p) = self {
            p.finish(out);
        }
    }
}

/// Parses the whole input on `threads` workers in chunks of about `chunk_size` bytes.
///
/// # Errors
/// I/O errors of the reader.
pub fn parse<R: BufRead>(
    reader: R,
    format: &ChunkParser,
    threads: usize,
    chunk_size: usize,
) -> io::Result<Collector> {
    parse_into(reader, format, threads, chunk_size, None)
}

/// As [`parse`], leaving the workers' trees unmerged when that is safe: the collector's
/// tree is the largest worker's, and the others' trees are pushed onto `parts` (their
/// union is the whole input's tree). They are merged as [`parse`] does when any worker
/// kept sample records (whose leaves are nodes of its tree), other events or an AFTER
/// tree. The folded export takes the union itself: the merge was a tenth of its time,
/// on one core.
///
/// # Errors
/// I/O errors of the reader.
pub fn parse_parts<R: BufRead>(
    reader: R,
    format: &ChunkParser,
    threads: usize,
    chunk_size: usize,
    parts: &mut Vec<CallTree>,
) -> io::Result<Collector> {
    parse_into(reader, format, threads, chunk_size, Some(parts))
}

/// As [`parse`] on the calling thread alone: the same chunks parsed one after the other
/// into one buffer, read again for the next (no copy of each line, as reading line by
/// line makes, and the bytes checked as UTF-8 a chunk at a time). A read error ends the
/// input there and is kept in the stats, as [`parse`] keeps it.
pub fn parse_serial<R: BufRead>(reader: R, format: &ChunkParser, chunk_size: usize) -> Collector {
    let mut out = Collector::default();
    let mut worker = Worker::new(format);
    let spare = std::cell::Cell::new(None);
    let mut read_error = None;
    let lines = split(
        reader,
        format,
        chunk_size,
        |chunk| {
            worker.chunk(&chunk, &mut out);
            spare.set(Some(chunk.bytes));
            true
        },
        || spare.take(),
        &mut read_error,
    );
    worker.finish(&mut out);
    seal(&mut out, format, lines, read_error);
    out
}

fn parse_into<R: BufRead>(
    reader: R,
    format: &ChunkParser,
    threads: usize,
    chunk_size: usize,
    parts: Option<&mut Vec<CallTree>>,
) -> io::Result<Collector> {
    // One chunk waiting per worker is enough to keep them busy (the reader fills a chunk
    // far faster than one is parsed); each more is a chunk's memory for nothing.
    let (tx, rx) = mpsc::sync_channel::<Chunk>(threads);
    let rx = Arc::new(Mutex::new(rx));
    // Parsed chunks' buffers, back to the reader (as many as are in flight at most).
    let (spare_tx, spare) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let worker_rx = Arc::clone(&rx);
        let worker_spare = spare_tx.clone();
        let workers = spawn_workers(
            scope,
            0..threads.max(1),
            move |_| -> io::Result<Collector> {
                let mut out = Collector::default();
                let mut worker = Worker::new(format);
                loop {
                    let next = worker_rx
                        .lock()
                        .map_err(|_| io::Error::other("worker lock"))?
                        .recv();
                    let Ok(chunk) = next else { break };
                    worker.chunk(&chunk, &mut out);
                    // The reader may have ended: the buffer is then freed here.
                    let _ = worker_spare.send(chunk.bytes);
                }
                worker.finish(&mut out);
                Ok(out)
            },
        );
        if workers.is_empty() {
            // No thread could be started (a memory limit): this one parses it all.
            return Ok(parse_serial(reader, format, chunk_size));
        }
        let mut read_error = None;
        let lines = split(
            reader,
            format,
            chunk_size,
            |chunk| tx.send(chunk).is_ok(),
            || spare.try_recv().ok(),
            &mut read_error,
        );
        drop(spare);
        drop(tx);
        let mut done = Vec::with_capacity(workers.len());
        for w in workers {
            done.push(
                w.join()
                    .map_err(|_| io::Error::other("parser thread panicked"))??,
            );
        }
        let apart = |c: &Collector| {
            c.samples.is_empty()
                && c.samples.lines().is_empty()
                && c.others.is_empty()
                && c.after.is_none()
        };
        let mut merged = Collector::default();
        match parts {
            Some(parts) if done.iter().all(apart) => {
                done.sort_by_key(|c| std::cmp::Reverse(c.tree.len()));
                for (i, mut part) in done.into_iter().enumerate() {
                    if i > 0 && !part.tree.is_empty() {
                        parts.push(std::mem::take(&mut part.tree));
                    }
                    merged.merge(part);
                }
            }
            _ => {
                for part in done {
                    merged.merge(part);
                }
            }
        }
        seal(&mut merged, format, lines, read_error);
        Ok(merged)
    })
}

/// Sets what only the whole input knows: its line count, how reading ended, its format
/// and the perf event kept.
pub(super) fn seal(
    merged: &mut Collector,
    format: &ChunkParser,
    lines: u64,
    read_error: Option<String>,
) {
    merged.stats.lines = lines;
    merged.stats.read_error = read_error;
    merged.stats.format = Some(format.format());
    if let ChunkParser::Perf(o) = format {
        merged.stats.event.clone_from(&o.event);
    }
}

impl ChunkParser {
    /// The format this parser reads.
    pub fn format(&self) -> Format {
        match self {
            ChunkParser::Perf(_) => Format::Perf,
            ChunkParser::Folded(true) => Format::DiffFolded,
            ChunkParser::Folded(false) => Format::Folded,
        }
    }
}
