//! Stage: bytes → samples on all cores while the input is still arriving
//! (`perf script | flametui -` in the viewer). A reader thread passes on whatever the
//! pipe holds; this thread cuts it into chunks at record boundaries — when a chunk is
//! full, or at once when the input pauses — and worker threads parse chunks into trees
//! of their own, as [`super::parallel`] does for a file. Snapshots for the viewer merge
//! the workers' trees so far: when the input pauses (once the chunks sent are parsed),
//! and while it flows no more often than [`Live`] allows, so they cost a bounded share
//! of the time. The result is the one [`super::parallel::parse`] gives.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::Collector;
use super::live::{self, Live, PREVIEW, Preview};
use super::parallel::{Chunk, ChunkParser, Worker, boundary, parse_serial, seal};
use crate::profile::threads::{spawn_with, spawn_workers};

/// Bytes the reader thread asks for at a time (a pipe hands over at most 64 KiB).
const BLOCK: usize = 256 * 1024;

/// One worker's tree since the last snapshot took it, locked while the worker parses a
/// chunk into it or a snapshot takes it.
type Shared = Mutex<Collector>;

/// Parses `reader` on `threads` workers, sending snapshots through `live`.
///
/// # Errors
/// A worker thread failed.
pub fn parse<R: Read + Send>(
    reader: R,
    format: &ChunkParser,
    threads: usize,
    chunk_size: usize,
    live: &mut Live<'_>,
) -> io::Result<Collector> {
    let threads = threads.max(1);
    let parts: Vec<Shared> = (0..threads).map(|_| Mutex::default()).collect();
    // Every sample the snapshots took from the workers so far.
    let mut gathered = Collector::default();
    let parsed = AtomicU64::new(0);
    let (chunks, rx) = mpsc::sync_channel::<Chunk>(threads * 2);
    let rx = Arc::new(Mutex::new(rx));
    let (lines, read_error) = match std::thread::scope(|scope| {
        let workers = start_workers(scope, &parts, &rx, &parsed, format);
        // The reader thread passes on what each read returns, as it comes.
        let (blocks_tx, blocks) = mpsc::sync_channel::<live::Bytes>(16);
        let read = move |r| live::read_chunks(io::BufReader::with_capacity(BLOCK, r), &blocks_tx);
        let reader = if workers.is_empty() {
            Err(reader)
        } else {
            spawn_with(scope, reader, read).map(drop)
        };
        if let Err(reader) = reader {
            // Not all threads could be started (a memory limit): this one parses it all,
            // shown once whole.
            drop(chunks);
            for w in workers {
                w.join()
                    .map_err(|_| io::Error::other("parser thread panicked"))??;
            }
            let serial = parse_serial(io::BufReader::new(reader), format, chunk_size);
            return Ok(Err(serial));
        }
        let mut cutter = Cutter {
            format,
            buf: Vec::new(),
            scanned: 0,
            line: 1,
            sent: 0,
            chunks,
        };
        let wait = live.snapshots.every;
        let mut read_error = None;
        let mut last_cut = Instant::now();
        loop {
            let idle = match blocks.recv_timeout(wait) {
                Ok(Ok(block)) => {
                    cutter.buf.extend_from_slice(&block);
                    // A full chunk goes at once; a slow producer's bytes wait at most
                    // `every`, so that the next snapshot shows them.
                    if cutter.buf.len() >= chunk_size || last_cut.elapsed() >= wait {
                        if !cutter.cut(false) {
                            break;
                        }
                        last_cut = Instant::now();
                    }
                    false
                }
                Ok(Err(e)) => {
                    read_error = Some(e.to_string());
                    // Not a line the error cut in two (`b 2` may have been `b 25`).
                    let whole = memchr::memrchr(b'\n', &cutter.buf).map_or(0, |i| i + 1);
                    cutter.buf.truncate(whole);
                    break;
                }
                Err(RecvTimeoutError::Timeout) => true,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if idle {
                if !cutter.cut(false) {
                    break;
                }
                // Show what came before the pause: wait for the chunks sent to be parsed.
                while parsed.load(Ordering::Acquire) < cutter.sent
                    && !workers
                        .iter()
                        .all(std::thread::ScopedJoinHandle::is_finished)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                snapshot(&parts, &mut gathered, live, cutter.line - 1, PREVIEW);
            } else if live.due() {
                snapshot(&parts, &mut gathered, live, cutter.line - 1, PREVIEW);
            }
        }
        cutter.cut(true);
        let lines = cutter.line - 1;
        drop(cutter);
        for w in workers {
            w.join()
                .map_err(|_| io::Error::other("parser thread panicked"))??;
        }
        Ok::<_, io::Error>(Ok((lines, read_error)))
    })? {
        Ok(read) => read,
        Err(serial) => return Ok(serial),
    };
    let mut merged = gathered;
    for part in parts {
        merged.merge(part.into_inner().unwrap_or_else(PoisonError::into_inner));
    }
    seal(&mut merged, format, lines, read_error);
    Ok(merged)
}

/// Starts a worker per part, as many as the system gives (none under a tight memory
/// limit): each parses the chunks it takes from `rx` into its part.
fn start_workers<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    parts: &'scope [Shared],
    rx: &Arc<Mutex<mpsc::Receiver<Chunk>>>,
    parsed: &'scope AtomicU64,
    format: &'scope ChunkParser,
) -> Vec<std::thread::ScopedJoinHandle<'scope, io::Result<()>>> {
    let rx = Arc::clone(rx);
    spawn_workers(scope, parts, move |part: &Shared| {
        let mut worker = Worker::new(format);
        loop {
            let next = rx.lock().map_err(|_| io::Error::other("worker lock"))?;
            let Ok(chunk) = next.recv() else { break };
            drop(next);
            let mut out = part.lock().unwrap_or_else(PoisonError::into_inner);
            worker.chunk(&chunk, &mut out);
            drop(out);
            parsed.fetch_add(1, Ordering::Release);
        }
        let mut out = part.lock().unwrap_or_else(PoisonError::into_inner);
        worker.finish(&mut out);
        Ok(())
    })
}

/// Cuts the bytes received so far into chunks at record boundaries.
struct Cutter<'a> {
    format: &'a ChunkParser,
    buf: Vec<u8>,
    /// Bytes of `buf` already known to hold no record boundary (one record longer than
    /// a chunk is searched once, not once per block).
    scanned: usize,
    /// Number of the first line of `buf`.
    line: u64,
    /// Chunks sent.
    sent: u64,
    chunks: mpsc::SyncSender<Chunk>,
}

impl Cutter<'_> {
    /// Sends everything up to the last record boundary (everything at the end of the
    /// input); false when the workers are gone.
    fn cut(&mut self, end: bool) -> bool {
        let from = self.scanned.saturating_sub(2);
        let at = if end {
            Some(self.buf.len())
        } else {
            boundary(&self.buf[from..], self.format).map(|i| i + from)
        };
        let Some(at) = at.filter(|&at| at > 0) else {
            self.scanned = self.buf.len();
            return true;
        };
        self.scanned = 0;
        let rest = self.buf.split_off(at);
        let bytes = std::mem::replace(&mut self.buf, rest);
        let unterminated = end && !bytes.ends_with(b"\n");
        let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64 + u64::from(unterminated);
        let first_line = self.line;
        self.line += lines;
        self.sent += 1;
        let len = bytes.len();
        self.chunks
            .send(Chunk {
                first_line,
                bytes,
                len,
            })
            .is_ok()
    }
}

/// Sends a snapshot of everything parsed so far, if it holds new samples: the workers'
/// pieces since the last snapshot are merged into `gathered` (each worker's lock is held
/// only for its piece, and its parser goes on with the same names), which is
/// copied whole while it is small and as a preview ([`Preview`]) when big.
fn snapshot(
    parts: &[Shared],
    gathered: &mut Collector,
    live: &mut Live<'_>,
    lines: u64,
    preview: Preview,
) {
    let started = Instant::now();
    for part in parts {
        part.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain_into(gathered);
    }
    if !live.has_news(gathered.stats.samples) {
        return;
    }
    let (part, stats) = preview.copy(gathered);
    live.emit(started, part, stats, lines);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ParseState;
    use crate::input::Snapshots;
    use crate::input::perf::{PerfOptions, PerfParser};
    use crate::profile::{Format, Profile};

    /// A worker's collector after parsing `samples` perf script samples numbered from
    /// `first`, each with a stack of its own under one of a few callers.
    fn parsed(parser: &mut PerfParser, out: &mut Collector, first: u64, samples: u64) {
        let mut state = ParseState::default();
        for i in first..first + samples {
            let text = format!(
                "p 1 [000] {i}.0: 1 cpu-clock:\n\t1 leaf{i} (x)\n\t2 mid{} (x)\n\t3 top (x)\n\n",
                i % 4
            );
            for line in text.lines() {
                state.line_no += 1;
                parser.line(line, &mut state, out);
            }
        }
        parser.end_chunk(out);
    }

    #[test]
    fn a_big_snapshot_is_a_preview_and_the_pieces_it_took_still_make_the_whole() {
        let sent: Arc<Mutex<Vec<Profile>>> = Arc::default();
        let sink = Arc::clone(&sent);
        let snapshots = Snapshots {
            every: Duration::from_millis(1),
            intervals: false,
            sink: Arc::new(move |p| sink.lock().unwrap().push(p)),
        };
        let mut live = Live::new(&snapshots, "t", Format::Perf);
        let opts = PerfOptions::default();
        let mut parsers = [PerfParser::new(opts.clone()), PerfParser::new(opts)];
        let parts: Vec<Shared> = (0..2).map(|_| Mutex::default()).collect();
        let mut gathered = Collector::default();
        let small = Preview { from: 50, keep: 3 };
        // The whole input parsed by one worker without snapshots, for the final check.
        let mut whole = Collector::default();
        let mut alone = PerfParser::new(PerfOptions::default());
        for (round, first) in [(0, 0), (1, 100)] {
            for (w, parser) in parsers.iter_mut().enumerate() {
                let at = first + 50 * w as u64;
                parsed(parser, &mut parts[w].lock().unwrap(), at, 50);
                parsed(&mut alone, &mut whole, at, 50);
            }
            snapshot(&parts, &mut gathered, &mut live, 0, small);
            let got = sent.lock().unwrap();
            let p = got.last().unwrap();
            // top, mid0..mid3 weigh 25+ samples each; the leaves, one each, are left out.
            assert!(
                p.tree.len() <= 1 + small.keep,
                "round {round}: {} nodes",
                p.tree.len()
            );
            assert_eq!(p.tree.total(), 100 * (round + 1));
            assert_eq!(p.samples.samples().len() as u64, 100 * (round + 1));
            assert!(p.stats.preview_min.is_some());
            // The workers' pieces were taken; their names stay for their parsers.
            for part in &parts {
                let part = part.lock().unwrap();
                assert_eq!((part.tree.len(), part.stats.samples), (1, 0));
                assert!(part.tree.names().lookup("top").is_some());
            }
        }
        for part in parts {
            gathered.merge(part.into_inner().unwrap());
        }
        gathered.tree.finish();
        whole.tree.finish();
        assert_eq!(gathered.tree.stacks(), whole.tree.stacks());
        assert_eq!(gathered.stats.samples, 200);
        assert_eq!(gathered.samples.samples().len(), 200);
        // A small tree is sent whole.
        let mut one = PerfParser::new(PerfOptions::default());
        let parts: Vec<Shared> = vec![Mutex::default()];
        parsed(&mut one, &mut parts[0].lock().unwrap(), 500, 3);
        let mut gathered = Collector::default();
        snapshot(&parts, &mut gathered, &mut live, 0, PREVIEW);
        let got = sent.lock().unwrap();
        let p = got.last().unwrap();
        assert_eq!(p.tree.len(), 1 + 1 + 1 + 3 + 3);
        assert_eq!(p.stats.preview_min, None);
    }
}
