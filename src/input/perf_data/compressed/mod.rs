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
//!
//! This file holds the record constants, the shared report and the checks; the stream
//! itself is [`Expander`] (in `expander`).

mod expander;

use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;

pub use super::zstd::{MAX_BLOCK, MAX_WINDOW};
pub use expander::Expander;

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
