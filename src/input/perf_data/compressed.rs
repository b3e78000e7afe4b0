//! Stage: a perf.data record stream holding compressed records (`perf record -z`) → the
//! same stream with each compressed record replaced by the records it holds, for
//! `linux-perf-data` (built without its C zstd) to read as if they had been written plain.
//!
//! perf's format: the body of a `PERF_RECORD_COMPRESSED` (81) is a piece of one zstd
//! stream that runs through the whole recording (one decompression context: a zstd block,
//! and a record it holds, may straddle two compressed records); `PERF_RECORD_COMPRESSED2`
//! (83, perf 6.x) puts the piece's length (u64) before it and pads the record to 8 bytes.
//! The `HEADER_COMPRESSED` feature names the method (zstd = 1). The pieces are decoded
//! here with `ruzstd`, one zstd block at a time ([`super::zstd`]).
//!
//! Order: ruzstd gives out decoded bytes only once they leave the zstd window (it keeps
//! the last window back while a frame is open, and perf never closes its frame). The plain
//! records between compressed ones (`FINISHED_ROUND` above all, which bounds the sorting of
//! records by time) are held back until the records decoded before them are out; while
//! that point is not known yet (less than one window decoded), `FINISHED_ROUND` marks are
//! dropped, which merges rounds (always safe for the sort). At the end of the stream the
//! open frame is closed with an empty last block, which gives out the rest.
//!
//! Bounded: at most [`RATIO`] times the compressed bytes (and 1 MiB) and [`HARD_CAP`] in
//! all are decompressed, one block (at most 128 KiB) at a time; a zstd window over 128 MiB
//! is refused. Corrupt or cut zstd data ends the stream: the records before it load, and
//! the reason is kept in the shared [`Report`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::rc::Rc;

use super::zstd::Inflater;
pub use super::zstd::{MAX_BLOCK, MAX_WINDOW};

/// `PERF_RECORD_COMPRESSED`.
pub const RECORD_COMPRESSED: u32 = 81;
/// `PERF_RECORD_COMPRESSED2` (see the module doc).
pub const RECORD_COMPRESSED2: u32 = 83;
/// `PERF_RECORD_FINISHED_ROUND`.
const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_AUXTRACE`.
const AUXTRACE: u32 = 71;
/// `PERF_RECORD_HEADER_FEATURE`.
const HEADER_FEATURE: u32 = 80;
/// `PERF_RECORD_HEADER_TRACING_DATA` (pipe mode): the tracepoints' formats follow it,
/// `size` bytes (its u32) not counted in the record.
const TRACING_DATA: u32 = 66;
/// The most tracing data kept (perf writes the formats of the recorded events only, some
/// KiB each); past it the rest is passed over.
const MAX_TRACING: u64 = 16 << 20;
/// `HEADER_COMPRESSED`'s feature number, and zstd's method number in it.
pub const FEATURE_COMPRESSED: u32 = 27;
/// zstd's method number in `HEADER_COMPRESSED`.
pub const METHOD_ZSTD: u32 = 1;
/// The most decompressed bytes per compressed byte, over the whole stream. Loose on
/// purpose: the mostly-zero stack copies of `--call-graph dwarf` compress well, 180 times
/// with perf's default 8 KiB copies and 750 times with 64 KiB ones (perf 6.1, level 1);
/// zstd's own bound is 32,768 (one byte for a 128 KiB block).
pub const RATIO: u64 = 4096;
/// Decompressed bytes allowed beyond the ratio (a first window).
pub const SLACK: u64 = 1 << 20;
/// The most decompressed bytes read from one recording.
pub const HARD_CAP: u64 = 16 << 30;

/// What the decompression found, shared between the stream and the record loop.
#[derive(Debug, Default)]
struct ReportState {
    error: Option<String>,
    ended: bool,
    compressed: u64,
    decompressed: u64,
    /// A pipe's tracing data (the tracepoints' formats), once read.
    tracing: Option<Vec<u8>>,
}

/// A handle on what the decompression of a stream found (cloned into the stream).
#[derive(Debug, Clone, Default)]
pub struct Report(Rc<RefCell<ReportState>>);

impl Report {
    /// Whether the stream was ended by the expansion (its end, or an error).
    pub fn ended(&self) -> bool {
        self.0.borrow().ended
    }

    /// Why the stream ended early, if it did.
    pub fn error(&self) -> Option<String> {
        self.0.borrow().error.clone()
    }

    /// Forgets what was found (the stream starts again).
    pub fn reset(&self) {
        *self.0.borrow_mut() = ReportState::default();
    }

    /// The tracing data a pipe-mode recording carried, once (taken).
    pub fn take_tracing(&self) -> Option<Vec<u8>> {
        self.0.borrow_mut().tracing.take()
    }
}

/// The decompressed-size limit for `compressed` bytes of input.
pub fn limit(compressed: u64) -> u64 {
    compressed
        .saturating_mul(RATIO)
        .saturating_add(SLACK)
        .min(HARD_CAP)
}

/// Reads a record's u32 type and u16 size from its 8-byte header.
fn record_header(h: &[u8], le: bool) -> (u32, u16) {
    let kind = [h[0], h[1], h[2], h[3]];
    let size = [h[6], h[7]];
    if le {
        (u32::from_le_bytes(kind), u16::from_le_bytes(size))
    } else {
        (u32::from_be_bytes(kind), u16::from_be_bytes(size))
    }
}

fn u64_of(b: &[u8], le: bool) -> Option<u64> {
    let b: [u8; 8] = b.get(..8)?.try_into().ok()?;
    Some(if le {
        u64::from_le_bytes(b)
    } else {
        u64::from_be_bytes(b)
    })
}

/// A check of a plain record that may refuse the stream (an I/O error for the parser).
pub type Check = fn(kind: u32, record: &[u8], le: bool) -> Result<(), String>;

/// The record stream with compressed records expanded; it reads records from the reader
/// each call is given (the owner keeps it, to read other parts of a file too).
pub struct Expander {
    le: bool,
    /// Outer bytes left to read (file mode), or none (a pipe: to the end).
    left: Option<u64>,
    /// The outer offset of the next byte read, for messages.
    offset: u64,
    inflater: Inflater,
    inflating: bool,
    /// Decoded bytes not yet whole records, and the offset of their compressed record.
    pending: Vec<u8>,
    from: u64,
    out: Vec<u8>,
    pos: usize,
    /// Plain records waiting for the decoded bytes before them (the count given out).
    held: VecDeque<(u64, Vec<u8>)>,
    /// Decoded bytes given out as whole records.
    records_out: u64,
    compressed: u64,
    /// Bytes given to the reader.
    given: u64,
    /// Ends with two `FINISHED_ROUND` marks (file mode: the parser sorts the last round
    /// only when it sees them, as the stream's end is an error for it).
    close_rounds: bool,
    check: Option<Check>,
    /// A compressed record ends the stream with an error (a recording without the
    /// `HEADER_COMPRESSED` feature, which names the method).
    refuse_compressed: bool,
    report: Report,
    done: bool,
    /// Bytes of AUXTRACE or tracing data still to pass over.
    aux_left: u64,
    /// The tracing data being read (kept up to [`MAX_TRACING`]).
    tracing: Option<Vec<u8>>,
}

impl Expander {
    /// Expands the records from outer offset `offset` on, `left` bytes of them (none: to
    /// the end of the reader).
    pub fn new(le: bool, offset: u64, left: Option<u64>, report: Report) -> Self {
        Self {
            le,
            left,
            offset,
            inflater: Inflater::default(),
            inflating: false,
            pending: Vec::new(),
            from: 0,
            out: Vec::new(),
            pos: 0,
            held: VecDeque::new(),
            records_out: 0,
            compressed: 0,
            given: 0,
            close_rounds: left.is_some(),
            check: None,
            refuse_compressed: false,
            report,
            done: false,
            aux_left: 0,
            tracing: None,
        }
    }

    /// Checks every plain record with `check` first.
    #[must_use]
    pub fn with_check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    /// The stream of a recording without the `HEADER_COMPRESSED` feature: a compressed
    /// record in it is not read.
    #[must_use]
    pub fn refusing_compressed(mut self, refuse: bool) -> Self {
        self.refuse_compressed = refuse;
        self
    }

    /// Bytes given out so far.
    pub fn given(&self) -> u64 {
        self.given
    }

    /// The outer offset of the next byte this expander reads.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the expanded stream from `inner`, positioned at [`Expander::offset`].
    ///
    /// # Errors
    /// Those of `inner`, and a record the check refuses.
    pub fn read<R: Read + ?Sized>(&mut self, inner: &mut R, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.out.len() {
            self.out.clear();
            self.pos = 0;
            if self.done {
                return Ok(0);
            }
            self.advance(inner)?;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        self.given += n as u64;
        Ok(n)
    }

    fn advance<R: Read + ?Sized>(&mut self, inner: &mut R) -> io::Result<()> {
        if self.inflating {
            let stepped = self.inflater.step(&mut self.pending).and_then(|more| {
                self.split()?;
                let cap = limit(self.compressed);
                if self.inflater.given() > cap {
                    return Err(format!(
                        "decompresses to over {cap} bytes ({RATIO} times its compressed bytes at most)"
                    ));
                }
                Ok(more)
            });
            match stepped {
                Ok(more) => self.inflating = more,
                Err(e) => {
                    let at = self.from;
                    self.end(Some(format!("the compressed record at offset {at}: {e}")));
                }
            }
            return Ok(());
        }
        match self.next_record(inner)? {
            Ok(Some(record)) => self.take(record),
            Ok(None) => {
                self.end(None);
                Ok(())
            }
            Err(e) => {
                self.end(Some(e));
                Ok(())
            }
        }
    }

    /// The next outer record whole (header included); `Ok(Ok(None))` at the end.
    fn next_record<R: Read + ?Sized>(
        &mut self,
        inner: &mut R,
    ) -> io::Result<Result<Option<Vec<u8>>, String>> {
        let mut scrap = [0u8; 8192];
        while self.aux_left > 0 {
            let n = self.aux_left.min(scrap.len() as u64) as usize;
            let got = read_up_to(inner, &mut scrap[..n])?;
            if let Some(t) = self.tracing.as_mut()
                && (t.len() as u64) < MAX_TRACING
            {
                t.extend_from_slice(&scrap[..got]);
            }
            self.offset += got as u64;
            self.aux_left -= got as u64;
            if let Some(left) = self.left.as_mut() {
                *left -= got as u64;
            }
            if got < n {
                let record = if self.tracing.is_some() {
                    "HEADER_TRACING_DATA"
                } else {
                    "AUXTRACE"
                };
                return Ok(Err(format!("cut short in the data of an {record} record")));
            }
        }
        if let Some(t) = self.tracing.take() {
            self.report.0.borrow_mut().tracing = Some(t);
        }
        if self.left == Some(0) {
            return Ok(Ok(None));
        }
        let at = self.offset;
        let mut header = [0u8; 8];
        let got = read_up_to(inner, &mut header)?;
        self.offset += got as u64;
        if got == 0 && self.left.is_none() {
            return Ok(Ok(None));
        }
        if got < 8 {
            return Ok(Err(format!("cut short in the record at offset {at}")));
        }
        let (_, size) = record_header(&header, self.le);
        let size = u64::from(size);
        if size < 8 {
            return Ok(Err(format!(
                "the record at offset {at} has a size of {size} bytes"
            )));
        }
        if self.left.is_some_and(|left| size > left) {
            return Ok(Err(format!(
                "the record at offset {at} runs past the end of the records"
            )));
        }
        let mut record = vec![0u8; size as usize];
        record[..8].copy_from_slice(&header);
        let got = read_up_to(inner, &mut record[8..])?;
        self.offset += got as u64;
        if got < record.len() - 8 {
            return Ok(Err(format!("cut short in the record at offset {at}")));
        }
        if let Some(left) = self.left.as_mut() {
            *left -= size;
        }
        Ok(Ok(Some(record)))
    }

    /// Takes one outer record: a compressed one is fed to the decoder, a plain one goes
    /// out after the decoded records before it.
    fn take(&mut self, record: Vec<u8>) -> io::Result<()> {
        let (kind, _) = record_header(&record, self.le);
        let at = self.offset - record.len() as u64;
        if kind == AUXTRACE {
            // Its trace data follows it, `size` bytes not counted in the record: passed
            // over, as nothing here reads it (and the parser would allocate it whole).
            let size = u64_of(record.get(8..).unwrap_or_default(), self.le).unwrap_or(0);
            self.aux_left = self.left.map_or(size, |left| size.min(left));
            return Ok(());
        }
        if kind == TRACING_DATA {
            // Read here, as the parser does not know its data follows it; kept for the
            // reader of `sched_switch`'s fields.
            let size = record
                .get(8..12)
                .and_then(|b| b.try_into().ok())
                .map_or(0, |b| {
                    if self.le {
                        u32::from_le_bytes(b)
                    } else {
                        u32::from_be_bytes(b)
                    }
                });
            let size = u64::from(size);
            self.aux_left = self.left.map_or(size, |left| size.min(left));
            self.tracing = Some(Vec::new());
            return Ok(());
        }
        if (kind == RECORD_COMPRESSED || kind == RECORD_COMPRESSED2) && self.refuse_compressed {
            self.end(Some(
                "a compressed record (perf record -z) in a recording without the \
                 HEADER_COMPRESSED feature that names the method: not read"
                    .to_owned(),
            ));
            return Ok(());
        }
        if kind == RECORD_COMPRESSED || kind == RECORD_COMPRESSED2 {
            let piece = if kind == RECORD_COMPRESSED {
                Some(&record[8..])
            } else {
                u64_of(&record[8..], self.le)
                    .and_then(|n| usize::try_from(n).ok())
                    .and_then(|n| record.get(16..16usize.checked_add(n)?))
            };
            let Some(piece) = piece else {
                self.end(Some(format!(
                    "the compressed record at offset {at} gives a size larger than itself"
                )));
                return Ok(());
            };
            self.compressed += piece.len() as u64;
            self.inflater.push(piece);
            self.from = at;
            self.inflating = true;
            return Ok(());
        }
        if let Some(check) = self.check {
            check(kind, &record, self.le).map_err(io::Error::other)?;
        }
        let decoded = self.inflater.decoded();
        if self.held.is_empty() && decoded == Some(self.records_out) {
            self.out.extend_from_slice(&record);
            return Ok(());
        }
        match decoded {
            Some(due) => {
                let same_round = kind == FINISHED_ROUND
                    && self.held.back().is_some_and(|(d, r)| {
                        *d == due && record_header(r, self.le).0 == FINISHED_ROUND
                    });
                if !same_round {
                    self.held.push_back((due, record));
                }
            }
            // Not known where the decoded records stand: rounds are merged.
            None if kind == FINISHED_ROUND => {}
            None => self.held.push_back((0, record)),
        }
        Ok(())
    }

    /// Moves the whole records of the decoded bytes out, then the plain records whose
    /// turn has come.
    fn split(&mut self) -> Result<(), String> {
        let mut at = 0;
        let mut bad = None;
        while let Some(h) = self.pending.get(at..at + 8) {
            let (_, size) = record_header(h, self.le);
            let size = usize::from(size);
            if size < 8 {
                bad = Some(format!("holds a record of {size} bytes"));
                break;
            }
            let Some(record) = self.pending.get(at..at + size) else {
                break;
            };
            let kind = record_header(record, self.le).0;
            if kind == AUXTRACE {
                // Its data would follow it uncounted: not read (nor expected) here.
                bad = Some("holds an AUXTRACE record".to_owned());
                break;
            }
            if let Some(check) = self.check
                && let Err(e) = check(kind, record, self.le)
            {
                bad = Some(format!("holds a record that is refused: {e}"));
                break;
            }
            self.out.extend_from_slice(record);
            self.records_out += size as u64;
            at += size;
            self.release_due();
        }
        self.pending.drain(..at);
        self.release_due();
        bad.map_or(Ok(()), Err)
    }

    /// Moves the held records whose records before them are out to the output.
    fn release_due(&mut self) {
        while self
            .held
            .front()
            .is_some_and(|(due, _)| *due <= self.records_out)
        {
            if let Some((_, r)) = self.held.pop_front() {
                self.out.extend_from_slice(&r);
            }
        }
    }

    /// Ends the stream: the rest of the decoded records, the held ones, the closing
    /// marks; `error` (or one found here) is kept in the report.
    fn end(&mut self, mut error: Option<String>) {
        // The frame is closed after an error too: the blocks decoded before it come out.
        let at = self.from;
        let finished = self.inflater.finish(&mut self.pending);
        let split = self.split();
        if error.is_none() {
            error = finished
                .and(split)
                .err()
                .map(|e| format!("the compressed record at offset {at}: {e}"));
        }
        if error.is_none() && !self.pending.is_empty() {
            error = Some(format!(
                "the compressed data ends inside a record ({} bytes of it)",
                self.pending.len()
            ));
        }
        for (_, r) in self.held.drain(..) {
            self.out.extend_from_slice(&r);
        }
        if self.close_rounds {
            let mut mark = [0u8; 8];
            let kind = if self.le {
                FINISHED_ROUND.to_le_bytes()
            } else {
                FINISHED_ROUND.to_be_bytes()
            };
            mark[..4].copy_from_slice(&kind);
            mark[if self.le { 6 } else { 7 }] = 8;
            self.out.extend_from_slice(&mark);
            self.out.extend_from_slice(&mark);
        }
        let mut r = self.report.0.borrow_mut();
        r.ended = true;
        r.compressed = self.compressed;
        r.decompressed = self.inflater.given();
        if r.error.is_none() {
            r.error = error;
        }
        self.done = true;
    }
}

/// The method named by a `HEADER_COMPRESSED` section (version, type, level, ratio,
/// mmap size: u32 each); `Err` for one not read here.
///
/// # Errors
/// A method other than zstd, in words.
pub fn check_method(section: &[u8], le: bool) -> Result<(), String> {
    let Some(b) = section.get(4..8) else {
        return Ok(());
    };
    let b = [b[0], b[1], b[2], b[3]];
    let method = if le {
        u32::from_le_bytes(b)
    } else {
        u32::from_be_bytes(b)
    };
    if method == METHOD_ZSTD {
        Ok(())
    } else {
        Err(format!(
            "its records are compressed with method {method}, not zstd (1), the one read here"
        ))
    }
}

/// [`Check`] for a pipe's `HEADER_FEATURE` of `HEADER_COMPRESSED`.
///
/// # Errors
/// As [`check_method`].
pub fn check_feature(kind: u32, record: &[u8], le: bool) -> Result<(), String> {
    let feature = u64_of(record.get(8..).unwrap_or_default(), le).map(|f| f as u32);
    if kind == HEADER_FEATURE && feature == Some(FEATURE_COMPRESSED) {
        check_method(record.get(16..).unwrap_or_default(), le)?;
    }
    Ok(())
}

/// Reads into `buf` until it is full or the reader ends; how many bytes were read.
///
/// # Errors
/// Those of the reader.
pub fn read_up_to<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
