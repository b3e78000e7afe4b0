//! Stage: bytes → folded text → samples, for the formats that inferno's collapsers read:
//! DTrace aggregations, macOS `sample`, VTune CSV, `xctrace export` XML, Visual Studio CSV
//! and GHC `.prof` reports.
//!
//! These are not parsed here: the input goes through the `inferno` crate's own collapser
//! ([`inferno::collapse::Collapse::collapse`]), which writes folded stacks, and flametui's
//! folded parser ([`super::folded`]) reads those, so names, weights and everything
//! downstream are exactly what `inferno-collapse-* | flametui` would give.
//!
//! * **Detection** ([`guess`]) is inferno's `collapse-guess`, asked only when flametui's own
//!   sniffer knows no format: the collapsers answer yes / no / not yet (`is_applicable`), in
//!   `collapse-guess`'s order (DTrace, sample, VTune, Visual Studio, GHC, xctrace; its
//!   perf collapser is flametui's own), over the first 10, 20, … lines. Some formats only
//!   say yes far into the input (macOS `sample` at the end of its call graph), so while
//!   one is still unsure more of the input is read, doubling, up to [`GUESS_BYTES`]; that
//!   prefix is then replayed.
//! * **Memory**: the collapser runs in its own thread and writes into a bounded pipe
//!   (a few 64 KiB chunks) that the folded parser reads, so the folded text is never held
//!   whole. inferno itself keeps every distinct stack until the input ends.
//! * **Bad input**: a collapser's error (a line it cannot read) is an error that names the
//!   file and quotes inferno's message; inferno writes nothing before the input ends, so no
//!   partial profile exists then. A read error of the input (a truncated gzip) ends it
//!   early instead: inferno's stacks of what was read load, and the error is reported as
//!   for every format. A collapser that panics on hostile input is caught and reported as
//!   an error, silently (see `quiet_panics`).
//! * inferno's `recursive` collapser is not a format but a transform of folded stacks:
//!   flametui's `--collapse-recursion` ([`crate::profile::transform::Transform`]) merges
//!   directly recursive frames the same way, for every format.

use std::cell::Cell;
use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, Once};

use inferno::collapse::Collapse;
use inferno::collapse::{dtrace, ghcprof, sample, vsprof, vtune, xctrace};

use super::common::LineReader;
use super::{Collector, ParseState, folded};
use crate::error::{Error, Result};
use crate::profile::threads::spawn_with;
use crate::profile::{Format, Unit};

/// The most bytes read to let inferno's collapsers decide (macOS `sample` says yes only
/// at the end of its call graph).
pub const GUESS_BYTES: usize = 8 << 20;

/// Lines added per round of guessing, as `collapse-guess` reads them.
const GUESS_LINES: usize = 10;

/// Bytes per chunk of folded text sent from the collapser's thread.
const CHUNK: usize = 64 << 10;

/// One of inferno's collapsers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collapser {
    /// `inferno::collapse::dtrace`.
    Dtrace,
    /// `inferno::collapse::sample`.
    Sample,
    /// `inferno::collapse::vtune`.
    Vtune,
    /// `inferno::collapse::vsprof`.
    Vsprof,
    /// `inferno::collapse::ghcprof`.
    Ghcprof,
    /// `inferno::collapse::xctrace`.
    Xctrace,
}

impl Collapser {
    /// `collapse-guess`'s order (without its perf collapser, which flametui's sniffer covers).
    pub const GUESS_ORDER: [Collapser; 6] = [
        Collapser::Dtrace,
        Collapser::Sample,
        Collapser::Vtune,
        Collapser::Vsprof,
        Collapser::Ghcprof,
        Collapser::Xctrace,
    ];

    /// The collapser that reads `format`, if inferno's.
    pub fn of(format: Format) -> Option<Collapser> {
        Collapser::GUESS_ORDER
            .into_iter()
            .find(|c| c.format() == format)
    }

    /// The format of the profile it reads.
    pub fn format(self) -> Format {
        match self {
            Collapser::Dtrace => Format::Dtrace,
            Collapser::Sample => Format::Sample,
            Collapser::Vtune => Format::Vtune,
            Collapser::Vsprof => Format::Vsprof,
            Collapser::Ghcprof => Format::Ghcprof,
            Collapser::Xctrace => Format::Xctrace,
        }
    }

    /// What one unit of the weights inferno writes means.
    pub fn unit(self) -> Unit {
        let metric = |name: &str, unit: &str| Unit::Metric {
            name: name.to_owned(),
            unit: unit.to_owned(),
        };
        match self {
            // count() per stack, samples per call-graph leaf, one per sampled backtrace.
            Collapser::Dtrace | Collapser::Sample | Collapser::Xctrace => Unit::Samples,
            // `CPU Time:Self` seconds × 1000, rounded.
            Collapser::Vtune => metric("CPU time", "milliseconds"),
            // `Number of Calls`.
            Collapser::Vsprof => metric("calls", "count"),
            // The individual `%time` column × 10.
            Collapser::Ghcprof => metric("time", "per-mille of run time"),
        }
    }

    /// inferno's verdict on the head of an input: yes, no, or not yet.
    pub fn is_applicable(self, head: &str) -> Option<bool> {
        match self {
            Collapser::Dtrace => dtrace::Folder::default().is_applicable(head),
            Collapser::Sample => sample::Folder::default().is_applicable(head),
            Collapser::Vtune => vtune::Folder::default().is_applicable(head),
            // Its check takes the first line and expects one.
            Collapser::Vsprof if head.is_empty() => None,
            Collapser::Vsprof => vsprof::Folder::default().is_applicable(head),
            Collapser::Ghcprof => ghcprof::Folder::default().is_applicable(head),
            Collapser::Xctrace => xctrace::Folder::default().is_applicable(head),
        }
    }

    /// Runs inferno's collapser with its default options (those of its command-line tool),
    /// DTrace's on one thread: its worker threads would be outside the guard that turns a
    /// collapser's panic into an error (inferno panics on some names: see [`load`]), and
    /// two were no faster on a 108 MB input.
    fn collapse<R: BufRead, W: Write>(self, reader: R, writer: W) -> io::Result<()> {
        match self {
            Collapser::Dtrace => {
                let mut opt = dtrace::Options::default();
                opt.nthreads = 1;
                dtrace::Folder::from(opt).collapse(reader, writer)
            }
            Collapser::Sample => sample::Folder::default().collapse(reader, writer),
            Collapser::Vtune => vtune::Folder::default().collapse(reader, writer),
            Collapser::Vsprof => vsprof::Folder::default().collapse(reader, writer),
            Collapser::Ghcprof => ghcprof::Folder::default().collapse(reader, writer),
            Collapser::Xctrace => xctrace::Folder::default().collapse(reader, writer),
        }
    }
}

/// Asks inferno's collapsers about the head of an input (`collapse-guess`): the first that
/// says yes. `prefix` holds what was read so far; more is read from `reader` into it while
/// one of them is still unsure, up to [`GUESS_BYTES`] (`ended` and `error` are updated as
/// [`super::detect::read_prefix`] sets them). `None`: every one said no, or stayed unsure.
pub fn guess<R: BufRead>(
    prefix: &mut Vec<u8>,
    reader: &mut R,
    ended: &mut bool,
    error: &mut Option<io::Error>,
) -> Option<Collapser> {
    let mut ruled_out = [false; Collapser::GUESS_ORDER.len()];
    let mut lines = GUESS_LINES;
    loop {
        let done = *ended || error.is_some() || prefix.len() >= GUESS_BYTES;
        let judged = &prefix[..whole_lines(prefix, lines, done)];
        let text = String::from_utf8_lossy(judged);
        for (i, c) in Collapser::GUESS_ORDER.iter().enumerate() {
            if ruled_out[i] {
                continue;
            }
            match c.is_applicable(&text) {
                Some(true) => return Some(*c),
                Some(false) => ruled_out[i] = true,
                None => {}
            }
        }
        if ruled_out.iter().all(|&r| r) {
            return None;
        }
        if judged.len() == whole_lines(prefix, usize::MAX, done) {
            if done {
                return None;
            }
            // Read on: as much again as there is (at least 64 KiB), up to the cap.
            let want = prefix.len().max(64 << 10).min(GUESS_BYTES - prefix.len());
            read_more(prefix, reader, want, ended, error);
        }
        lines = lines.saturating_mul(if lines < 64 { 1 } else { 2 }) + GUESS_LINES;
    }
}

/// The length of the first `n` whole lines of `bytes` (all of them when fewer); an
/// unterminated last line counts only when the input has ended (`done`).
fn whole_lines(bytes: &[u8], n: usize, done: bool) -> usize {
    let mut end = 0;
    for (count, at) in memchr::memchr_iter(b'\n', bytes).enumerate() {
        end = at + 1;
        if count + 1 == n {
            return end;
        }
    }
    if done { bytes.len() } else { end }
}

/// Appends about `want` more bytes (whole lines, or what a line without end allows).
fn read_more<R: BufRead>(
    prefix: &mut Vec<u8>,
    reader: &mut R,
    want: usize,
    ended: &mut bool,
    error: &mut Option<io::Error>,
) {
    let goal = prefix.len() + want;
    while prefix.len() < goal {
        let limit = (goal - prefix.len()) as u64;
        match io::Read::take(&mut *reader, limit).read_until(b'\n', prefix) {
            Ok(0) => {
                *ended = true;
                return;
            }
            Ok(_) => {}
            Err(e) => {
                *error = Some(e);
                return;
            }
        }
    }
}

thread_local! {
    /// Set in a collapser's thread: a panic there is caught and reported as an error, so
    /// the panic hook stays quiet (and the viewer's terminal is not restored under it).
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that says nothing for a panic in a collapser's thread
/// and defers to the previous hook everywhere else.
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Reads an input through `collapser` into a profile: inferno's folded output, parsed by
/// flametui's folded parser.
///
/// inferno 0.12.8 panics on some input: its fix of half-demangled Rust names (DTrace,
/// sample, xctrace) slices a frame name 17 bytes from its end without checking that this is
/// a character boundary, so a long name with a non-ASCII character there (or invalid UTF-8,
/// which it reads as U+FFFD) panics; Visual Studio's collapser asserts on a level that skips
/// one. The panic is caught here and becomes an error.
///
/// # Errors
/// The collapser's error (a line it cannot read, or a panic), naming the file.
pub fn load<R: BufRead + Send>(reader: R, name: &str, collapser: Collapser) -> Result<Collector> {
    quiet_panics();
    let read_error = Arc::new(Mutex::new(None));
    let input = EndOnError {
        inner: reader,
        error: Arc::clone(&read_error),
    };
    let (tx, rx) = sync_channel::<Vec<u8>>(4);
    let (out, result) = std::thread::scope(|scope| {
        let tx_pipe = move |input| {
            let mut pipe = PipeWriter {
                tx,
                buf: Vec::with_capacity(CHUNK),
            };
            run_quietly(collapser, input, &mut pipe)
        };
        match spawn_with(scope, input, tx_pipe) {
            Ok(worker) => {
                let out = parse_folded(PipeReader {
                    rx,
                    chunk: Vec::new(),
                    at: 0,
                });
                (out, worker.join())
            }
            // No thread could be started (a memory limit): the collapser runs on this one,
            // into memory.
            Err(input) => {
                let mut folded = Vec::new();
                let result = run_quietly(collapser, input, &mut folded);
                (parse_folded(io::Cursor::new(folded)), result)
            }
        }
    });
    let read_error = read_error.lock().ok().and_then(|mut e| e.take());
    if let Err(message) = result {
        // A collapser that fails on an input cut by a read error failed because of it.
        if let Some(e) = read_error {
            return Err(Error::Read {
                source_name: name.to_owned(),
                error: io::Error::other(e),
            });
        }
        return Err(Error::Collapse {
            source_name: name.to_owned(),
            format: collapser.format().to_string(),
            message: one_line(&message),
        });
    }
    let mut out = out;
    out.stats.read_error = read_error;
    out.stats.format = Some(collapser.format());
    out.stats.unit = collapser.unit();
    Ok(out)
}

/// Runs `collapser` on `input` into `out`, a panic of it caught and made an error.
fn run_quietly<R: BufRead, W: Write>(
    collapser: Collapser,
    input: R,
    out: &mut W,
) -> std::result::Result<(), String> {
    let was = QUIET.with(|q| q.replace(true));
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        collapser.collapse(input, &mut *out)
    }));
    QUIET.with(|q| q.set(was));
    match run {
        Ok(Ok(())) => out.flush().map_err(|e| e.to_string()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(panic) => Err(panic_text(panic.as_ref())),
    }
}

/// inferno's message on one line: its lines (it quotes the line it could not read on one
/// of its own) joined by `: `.
fn one_line(message: &str) -> String {
    let parts: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    parts.join(": ")
}

/// What a panic said.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let said = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("inferno's collapser failed on this input ({said})")
}

/// Every folded line inferno wrote, through flametui's folded parser.
fn parse_folded<R: BufRead>(reader: R) -> Collector {
    let mut out = Collector::default();
    let mut state = ParseState::default();
    let mut parser = folded::FoldedParser::with_diff(false);
    let mut lines = LineReader::new(reader);
    // The pipe's reader never fails; the writer's end is its end.
    while let Ok(Some(line)) = lines.next_line() {
        state.line_no += 1;
        parser.line(&line, &mut state, &mut out);
    }
    out.stats.lines = state.line_no;
    out
}

/// A reader whose read error ends the input (recorded in `error`), so a collapser finishes
/// with what came before it, as every parser does on a truncated gzip.
struct EndOnError<R> {
    inner: R,
    error: Arc<Mutex<Option<String>>>,
}

impl<R> EndOnError<R> {
    fn ended(&self, e: &io::Error) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert_with(|| e.to_string());
        }
    }

    fn has_ended(&self) -> bool {
        self.error.lock().map_or(true, |e| e.is_some())
    }
}

/// `Read::read` of a reader whose `BufRead` side does the work: what its buffer holds,
/// as much as fits.
fn read_buffered(r: &mut impl BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let n = {
        let avail = r.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        n
    };
    r.consume(n);
    Ok(n)
}

impl<R: BufRead> Read for EndOnError<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl<R: BufRead> BufRead for EndOnError<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.has_ended() {
            return Ok(&[]);
        }
        loop {
            match self.inner.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.ended(&e);
                    return Ok(&[]);
                }
            }
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

/// The collapser's end of the pipe: chunks of folded text.
struct PipeWriter {
    tx: SyncSender<Vec<u8>>,
    buf: Vec<u8>,
}

impl PipeWriter {
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx
            .send(chunk)
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl Write for PipeWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// The folded parser's end of the pipe; it ends when the collapser's thread drops its end.
struct PipeReader {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl BufRead for PipeReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at >= self.chunk.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.chunk[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.chunk.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_lines_counts_lines_and_keeps_a_cut_one_for_the_end() {
        assert_eq!(whole_lines(b"a\nb\nc", 2, false), 4);
        assert_eq!(whole_lines(b"a\nb\nc", 5, false), 4);
        assert_eq!(whole_lines(b"a\nb\nc", 5, true), 5);
        assert_eq!(whole_lines(b"abc", 1, false), 0);
    }

    #[test]
    fn guess_reads_on_while_a_collapser_is_unsure() {
        // macOS sample says yes only at the end of its call graph, past any first prefix.
        let mut text = String::from("Analysis of sampling x (pid 1) every 1 millisecond\n");
        text.push_str("Call graph:\n");
        for _ in 0..20_000 {
            text.push_str("    1 Thread_1\n");
        }
        text.push_str("\nTotal number in stack (recursive counted multiple, when >=5):\n");
        let bytes = text.as_bytes();
        let mut prefix = bytes[..1000].to_vec();
        let mut rest = io::Cursor::new(&bytes[1000..]);
        let (mut ended, mut error) = (false, None);
        let c = guess(&mut prefix, &mut rest, &mut ended, &mut error);
        assert_eq!(c, Some(Collapser::Sample));
        assert!(prefix.len() > 1000 && bytes.starts_with(&prefix));
        // Text of no format: read to the end (small here), then no.
        let mut prefix = b"hello\nworld\n".to_vec();
        let (mut ended, mut error) = (false, None);
        let c = guess(&mut prefix, &mut io::empty(), &mut ended, &mut error);
        assert_eq!(c, None);
        assert!(ended);
    }

    #[test]
    fn vsprof_is_not_asked_about_nothing() {
        assert_eq!(Collapser::Vsprof.is_applicable(""), None);
    }
}
