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
use super::live::Live;
use super::parallel::{Chunk, ChunkParser, Worker, boundary, seal};

/// Bytes the reader thread asks for at a time (a pipe hands over at most 64 KiB).
const BLOCK: usize = 256 * 1024;

/// One worker's tree so far, locked while it parses a chunk or a snapshot reads it.
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
    let parsed = AtomicU64::new(0);
    let (chunks, rx) = mpsc::sync_channel::<Chunk>(threads * 2);
    let rx = Arc::new(Mutex::new(rx));
    let (lines, read_error) = std::thread::scope(|scope| {
        let (blocks_tx, blocks) = mpsc::sync_channel::<io::Result<Vec<u8>>>(16);
        scope.spawn(move || read_blocks(reader, &blocks_tx));
        let workers: Vec<_> = parts
            .iter()
            .map(|part| {
                let (rx, parsed) = (Arc::clone(&rx), &parsed);
                scope.spawn(move || {
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
                    Ok::<(), io::Error>(())
                })
            })
            .collect();
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
                snapshot(&parts, live, cutter.line - 1);
            } else if live.due() {
                snapshot(&parts, live, cutter.line - 1);
            }
        }
        cutter.cut(true);
        let lines = cutter.line - 1;
        drop(cutter);
        for w in workers {
            w.join()
                .map_err(|_| io::Error::other("parser thread panicked"))??;
        }
        Ok::<_, io::Error>((lines, read_error))
    })?;
    let mut merged = Collector::default();
    for part in parts {
        merged.merge(part.into_inner().unwrap_or_else(PoisonError::into_inner));
    }
    seal(&mut merged, format, lines, read_error);
    Ok(merged)
}

/// The reader thread: what each read returns, as it comes.
fn read_blocks<R: Read>(mut reader: R, tx: &mpsc::SyncSender<io::Result<Vec<u8>>>) {
    let mut block = vec![0u8; BLOCK];
    loop {
        match reader.read(&mut block) {
            Ok(0) => return,
            Ok(n) => {
                if tx.send(Ok(block[..n].to_vec())).is_err() {
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
        self.chunks.send(Chunk { first_line, bytes }).is_ok()
    }
}

/// Sends a snapshot of the workers' trees (and sample tables) merged, if they hold new
/// samples. Each
/// worker's tree is locked only while it is copied or merged in, so the others go on.
fn snapshot(parts: &[Shared], live: &mut Live<'_>, lines: u64) {
    let started = Instant::now();
    let lock = |p: &Shared| p.lock().unwrap_or_else(PoisonError::into_inner).tree.len();
    let sizes: Vec<usize> = parts.iter().map(lock).collect();
    let Some(largest) = (0..parts.len()).max_by_key(|&i| sizes[i]) else {
        return;
    };
    let (mut tree, mut samples, mut stats) = {
        let c = parts[largest]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        (c.tree.clone(), c.samples.clone(), c.stats.clone())
    };
    for (i, part) in parts.iter().enumerate() {
        if i != largest {
            let c = part.lock().unwrap_or_else(PoisonError::into_inner);
            let leaves = tree.merge_from_mapped(&c.tree);
            samples.append_mapped(c.samples.clone(), &leaves);
            stats.merge(c.stats.clone());
        }
    }
    if live.has_news(stats.samples) {
        live.emit(started, (tree, samples), stats, lines);
    }
}
