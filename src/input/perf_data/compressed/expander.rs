//! The record stream with each compressed record replaced by the records it holds, read
//! one zstd block at a time, plain records held back until the records before them are out.

use std::collections::VecDeque;
use std::io::{self, Read};

use super::{
    AUXTRACE, Check, FINISHED_ROUND, MAX_TRACING, RATIO, RECORD_COMPRESSED, RECORD_COMPRESSED2,
    Report, TRACING_DATA, limit, read_up_to, record_header, u64_of,
};
use crate::input::perf_data::zstd::Inflater;

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
