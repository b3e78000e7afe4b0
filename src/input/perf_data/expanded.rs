//! Stage: a file-mode recording with compressed records (`perf record -z`) → the same
//! file as the parser is shown it, its data section expanded ([`super::compressed`]), so
//! that `linux-perf-data` reads the records the compressed ones hold.
//!
//! The view, by offset: the bytes before the data section as they are, but for the data
//! size in the header, set to an upper bound of the expanded size (the decompression
//! limit); then the expanded records, read once from the start of the section in order;
//! then the feature table and sections, moved by the difference, with the table's
//! offsets moved alike. The parser reads the header and the feature sections first and
//! the records last, from the section's start on, which is all this view serves (a seek
//! back into the records starts them again). As the records end before the bound, the
//! expander closes with two `FINISHED_ROUND` marks (so the parser sorts out every record)
//! and the report says the stream ended there (the parser's "end of file" is not an
//! error then).

use std::io::{self, Read, Seek, SeekFrom};

use super::check::Layout;
use super::compressed::{Expander, MAX_BLOCK, MAX_WINDOW, Report, limit};

/// The view of a file-mode recording with its records expanded.
pub struct Expanded<R> {
    inner: R,
    pos: u64,
    data_off: u64,
    data_size: u64,
    /// The virtual data size less the real one.
    grow: u64,
    /// The header's data size field as shown (the file's byte order).
    size_field: [u8; 8],
    /// The feature table as shown, and its real offset.
    table: Vec<u8>,
    table_off: u64,
    /// The real length of the file.
    len: u64,
    le: bool,
    expander: Option<Expander>,
    /// `inner` was moved away from where the expander reads.
    moved: bool,
    report: Report,
    /// The recording has no `HEADER_COMPRESSED` feature: compressed records are refused.
    plain: bool,
}

/// The header's data size field offset.
const DATA_SIZE_AT: u64 = 48;

impl<R: Read + Seek> Expanded<R> {
    /// The view of a recording without the `HEADER_COMPRESSED` feature: a compressed
    /// record in it is not read.
    #[must_use]
    pub fn refusing_compressed(mut self, refuse: bool) -> Self {
        self.plain = refuse;
        self
    }

    /// The records of the file `inner` (of `len` bytes, laid out as `layout` says), their
    /// compressed ones expanded; errors and notes go to `report`.
    pub fn new(inner: R, layout: &Layout, len: u64, report: Report) -> Self {
        let (data_off, data_size) = layout.data;
        let le = layout.little_endian;
        // The records that stay plain, the marks added, the decompressed bytes and the
        // most that one step past the limit gives out.
        let shown = data_size
            .saturating_add(16)
            .saturating_add(limit(data_size))
            .saturating_add(MAX_WINDOW + 2 * MAX_BLOCK);
        let grow = shown - data_size;
        let bytes = |v: u64| if le { v.to_le_bytes() } else { v.to_be_bytes() };
        let table_off = layout.table();
        let mut table = Vec::with_capacity(layout.features.len() * 16);
        for &(_, off, size) in &layout.features {
            let off = if off >= table_off { off + grow } else { off };
            table.extend_from_slice(&bytes(off));
            table.extend_from_slice(&bytes(size));
        }
        Self {
            inner,
            pos: 0,
            data_off,
            data_size,
            grow,
            size_field: bytes(shown),
            table,
            table_off,
            len,
            le,
            expander: None,
            moved: true,
            report,
            plain: false,
        }
    }

    /// Reads real bytes at `at` into `buf`.
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.seek(SeekFrom::Start(at))?;
        self.moved = true;
        self.inner.read(buf)
    }

    /// Reads the expanded records, from where the last read of them ended.
    fn read_records(&mut self, at: u64, buf: &mut [u8]) -> io::Result<usize> {
        let wanted = at - self.data_off;
        let fresh = match &self.expander {
            Some(e) if e.given() == wanted => false,
            _ if wanted == 0 => true,
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "the expanded records are read in order only",
                ));
            }
        };
        if fresh {
            self.report.reset();
            self.expander = Some(
                Expander::new(
                    self.le,
                    self.data_off,
                    Some(self.data_size),
                    self.report.clone(),
                )
                .refusing_compressed(self.plain),
            );
            self.moved = true;
        }
        let Some(expander) = self.expander.as_mut() else {
            return Ok(0);
        };
        if self.moved {
            self.inner.seek(SeekFrom::Start(expander.offset()))?;
            self.moved = false;
        }
        expander.read(&mut self.inner, buf)
    }
}

impl<R: Read + Seek> Read for Expanded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let at = self.pos;
        let shown_end = self.data_off + self.data_size + self.grow;
        let n = if at < self.data_off {
            let n = buf.len().min((self.data_off - at) as usize);
            let got = self.read_at(at, &mut buf[..n])?;
            // The data size field, as shown.
            for (i, b) in buf[..got].iter_mut().enumerate() {
                let off = at + i as u64;
                if (DATA_SIZE_AT..DATA_SIZE_AT + 8).contains(&off) {
                    *b = self.size_field[(off - DATA_SIZE_AT) as usize];
                }
            }
            got
        } else if at < shown_end {
            let n = buf
                .len()
                .min((shown_end - at).min(usize::MAX as u64) as usize);
            self.read_records(at, &mut buf[..n])?
        } else {
            let real = at - self.grow;
            let in_table = real.checked_sub(self.table_off).map(|i| i as usize);
            match in_table {
                Some(i) if i < self.table.len() => {
                    let n = buf.len().min(self.table.len() - i);
                    buf[..n].copy_from_slice(&self.table[i..i + n]);
                    n
                }
                _ => self.read_at(real, buf)?,
            }
        };
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for Expanded<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let end = self.len.saturating_add(self.grow);
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => end.checked_add_signed(d),
        };
        let pos = pos.ok_or_else(|| io::Error::other("a seek before the start"))?;
        self.pos = pos;
        Ok(pos)
    }
}
