//! Stage: perf.data bytes → a header known to be sane, before the parser allocates
//! anything from it: every section inside the file, sizes no larger than the file, event
//! descriptions whose counts fit their bytes. A pipe-mode stream is checked record by
//! record as it passes ([`PipeGuard`]).

use std::io::{self, BufRead, Read, Seek, SeekFrom};

/// The file header: magic, size, attr size, three sections, 256 feature bits.
const FILE_HEADER: u64 = 104;
/// A pipe header: magic and size.
const PIPE_HEADER: u64 = 16;
/// `HEADER_EVENT_DESC`'s feature number.
const EVENT_DESC: u32 = 12;
/// `PERF_RECORD_HEADER_FEATURE`.
const RECORD_HEADER_FEATURE: u32 = 80;
/// `PERF_RECORD_COMPRESSED`, `PERF_RECORD_COMPRESSED2`.
const RECORD_COMPRESSED: [u32; 2] = [81, 83];

fn u64_at(b: &[u8], at: usize, little: bool) -> Option<u64> {
    let bytes: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
    Some(if little {
        u64::from_le_bytes(bytes)
    } else {
        u64::from_be_bytes(bytes)
    })
}

fn u32_at(b: &[u8], at: usize, little: bool) -> Option<u32> {
    let bytes: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(if little {
        u32::from_le_bytes(bytes)
    } else {
        u32::from_be_bytes(bytes)
    })
}

/// The byte order of a perf.data magic, `None` for no perf.data.
fn little_endian(head: &[u8]) -> Option<bool> {
    match head.get(..8)? {
        b"PERFILE2" => Some(true),
        b"2ELIFREP" => Some(false),
        _ => None,
    }
}

/// Whether `head` opens a pipe-mode recording.
pub fn is_pipe_header(head: &[u8]) -> bool {
    little_endian(head).is_some_and(|le| u64_at(head, 8, le) == Some(PIPE_HEADER))
}

/// Checks a recording's header against its length `len`; `Ok(true)` for pipe mode.
///
/// # Errors
/// What is wrong, in words.
pub fn check_header<R: Read + Seek>(r: &mut R, len: u64) -> Result<bool, String> {
    let mut head = [0u8; FILE_HEADER as usize];
    let got = read_up_to(r, &mut head).map_err(|e| e.to_string())?;
    let head = &head[..got];
    let le = little_endian(head).ok_or("no perf.data magic (PERFILE2)")?;
    let size = u64_at(head, 8, le).ok_or("truncated in its header")?;
    if size == PIPE_HEADER {
        return Ok(true);
    }
    if got < FILE_HEADER as usize {
        return Err("truncated in its header".to_owned());
    }
    if !(FILE_HEADER..=4096).contains(&size) {
        return Err(format!(
            "header size {size} is not that of a perf.data header"
        ));
    }
    let attr_size = u64_at(head, 16, le).unwrap_or(0);
    if !(64..=4096).contains(&attr_size) {
        return Err(format!("attribute size {attr_size} is out of range"));
    }
    let section = |at: usize| -> Result<(u64, u64), String> {
        let off = u64_at(head, at, le).unwrap_or(u64::MAX);
        let sz = u64_at(head, at + 8, le).unwrap_or(u64::MAX);
        match off.checked_add(sz) {
            Some(end) if end <= len => Ok((off, sz)),
            _ => Err(format!(
                "a section at offset {off} of {sz} bytes lies outside the file ({len} bytes: truncated?)"
            )),
        }
    };
    let (_attrs_off, _attrs_size) = section(24)?;
    let (data_off, data_size) = section(40)?;
    section(56)?;
    let features: u32 = (0..4)
        .map(|i| u64_at(head, 72 + i * 8, le).unwrap_or(0).count_ones())
        .sum();
    // The feature sections' table follows the data.
    let table = data_off + data_size;
    let table_len = u64::from(features) * 16;
    if table.checked_add(table_len).is_none_or(|end| end > len) {
        return Err(format!(
            "its feature table at offset {table} lies outside the file ({len} bytes: truncated?)"
        ));
    }
    r.seek(SeekFrom::Start(table)).map_err(|e| e.to_string())?;
    let mut entries = vec![0u8; table_len as usize];
    r.read_exact(&mut entries).map_err(|e| e.to_string())?;
    let bits: Vec<u32> = (0..256u32)
        .filter(|&b| {
            let word = u64_at(head, 72 + (b / 64) as usize * 8, le).unwrap_or(0);
            word & (1 << (b % 64)) != 0
        })
        .collect();
    for (i, feature) in bits.iter().enumerate() {
        let off = u64_at(&entries, i * 16, le).unwrap_or(u64::MAX);
        let sz = u64_at(&entries, i * 16 + 8, le).unwrap_or(u64::MAX);
        if off.checked_add(sz).is_none_or(|end| end > len) {
            return Err(format!(
                "feature section {feature} at offset {off} of {sz} bytes lies outside the file"
            ));
        }
        if *feature == EVENT_DESC {
            r.seek(SeekFrom::Start(off)).map_err(|e| e.to_string())?;
            let mut data = vec![0u8; sz as usize];
            r.read_exact(&mut data).map_err(|e| e.to_string())?;
            if !event_desc_ok(&data, le) {
                return Err("its event descriptions do not fit their section".to_owned());
            }
        }
    }
    Ok(false)
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
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

/// Whether an `EVENT_DESC` section's counts fit its bytes: `nr`, `attr_size`, then per
/// event the attr, `nr_ids`, a string (`len` + bytes) and `nr_ids` ids.
pub fn event_desc_ok(data: &[u8], le: bool) -> bool {
    let (Some(nr), Some(attr_size)) = (u32_at(data, 0, le), u32_at(data, 4, le)) else {
        return false;
    };
    let mut at = 8usize;
    for _ in 0..nr {
        let Some(ids_at) = at.checked_add(attr_size as usize) else {
            return false;
        };
        let Some(nr_ids) = u32_at(data, ids_at, le) else {
            return false;
        };
        let Some(str_len) = u32_at(data, ids_at + 4, le) else {
            return false;
        };
        let end = (ids_at as u64 + 8)
            .saturating_add(u64::from(str_len))
            .saturating_add(u64::from(nr_ids) * 8);
        if end > data.len() as u64 {
            return false;
        }
        at = end as usize;
    }
    true
}

/// A pipe-mode stream that passes records through whole, after checking what the parser
/// would allocate from: an event description that does not fit its record, or a
/// compressed record (not read: no zstd here), ends the stream with an error.
pub struct PipeGuard<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    started: bool,
    le: bool,
}

impl<R: BufRead> PipeGuard<R> {
    /// Guards `inner`, which starts at the pipe header.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            pos: 0,
            started: false,
            le: true,
        }
    }

    /// Reads the next record (or the header) into `buf`; `false` at the end.
    fn refill(&mut self) -> io::Result<bool> {
        self.buf.clear();
        self.pos = 0;
        if !self.started {
            self.started = true;
            let mut head = [0u8; PIPE_HEADER as usize];
            let got = read_up_to(&mut self.inner, &mut head)?;
            self.le = little_endian(&head[..got]).unwrap_or(true);
            self.buf.extend_from_slice(&head[..got]);
            return Ok(got > 0);
        }
        let mut header = [0u8; 8];
        let got = read_up_to(&mut self.inner, &mut header)?;
        if got < 8 {
            self.buf.extend_from_slice(&header[..got]);
            return Ok(got > 0);
        }
        let kind = u32_at(&header, 0, self.le).unwrap_or(0);
        let size = if self.le {
            u16::from_le_bytes([header[6], header[7]])
        } else {
            u16::from_be_bytes([header[6], header[7]])
        };
        self.buf.extend_from_slice(&header);
        let body = usize::from(size).saturating_sub(8);
        let mut rest = vec![0u8; body];
        let got = read_up_to(&mut self.inner, &mut rest)?;
        self.buf.extend_from_slice(&rest[..got]);
        if RECORD_COMPRESSED.contains(&kind) {
            return Err(io::Error::other(
                "compressed records (perf record -z) are not read; record without -z, or run perf inject to decompress",
            ));
        }
        if kind == RECORD_HEADER_FEATURE
            && u64_at(&rest, 0, self.le) == Some(u64::from(EVENT_DESC))
            && !event_desc_ok(rest.get(8..).unwrap_or_default(), self.le)
        {
            return Err(io::Error::other(
                "its event descriptions do not fit their record",
            ));
        }
        Ok(true)
    }
}

impl<R: BufRead> Read for PipeGuard<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.buf.len() && !self.refill()? {
            return Ok(0);
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
