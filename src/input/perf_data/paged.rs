//! A DWARF section as gimli reads it ([`Bytes`]): in memory, or read from its file a page
//! at a time through a small cache of pages.
//!
//! A binary with its DWARF holds far more of it than a profile asks about: flametui's own
//! release binary has 61 MB of sections (`.debug_info` 22 MB, `.debug_str` 21 MB), of
//! which a profile reads its units' first entries, the units its addresses fall in, and
//! a few hundred names. Read whole, they were the largest part of the memory of reading
//! a `--call-graph dwarf` recording of it. Without `mmap` (the crate forbids `unsafe`),
//! a large section that is not compressed is read from the file when asked: its pages
//! are cached, up to [`CACHED_PAGES`], and a reader holds no page, only its place (addr2line
//! keeps a reader per unit: one page each would be thousands of pages).

use std::borrow::Cow;
use std::cell::RefCell;
use std::os::unix::fs::FileExt as _;
use std::rc::Rc;
use std::sync::Arc;

use gimli::{Error, ReaderOffsetId, Result, RunTimeEndian};

/// Bytes of one page: small, as a unit's name and directory are read for every unit
/// (thousands), each from anywhere in `.debug_str`.
const PAGE: usize = 16 << 10;

/// Pages kept, each in the place its number gives (a sequential scan never evicts what
/// it is about to read; two places far apart in the section rarely collide): 256 KB a
/// section. 128 pages gave no faster run on the recordings of docs/performance.md and
/// held 6 MB more over the four sections read in pages than 32; 16 read 17% more pages
/// than 32 (from the page cache: no slower run) and hold 1 MB less. 8 read 37% more.
const CACHED_PAGES: usize = 16;

/// A section of a file read a page at a time.
#[derive(Debug)]
pub struct Paged {
    file: std::fs::File,
    /// Where the section starts in the file.
    at: u64,
    /// Its size.
    size: usize,
    /// `(page number, bytes)` by page number modulo [`CACHED_PAGES`].
    pages: RefCell<Vec<(usize, Vec<u8>)>>,
}

impl Paged {
    /// The `size` bytes at `at` of `file`.
    pub fn new(file: std::fs::File, at: u64, size: usize) -> Self {
        Self {
            file,
            at,
            size,
            pages: RefCell::default(),
        }
    }

    /// Calls `f` with the bytes of the page holding `pos` from `pos` on, read from the
    /// file unless kept; the cache is borrowed meanwhile (no page is copied out whole nor
    /// shared).
    #[inline]
    fn with_page<T>(&self, pos: usize, f: impl FnOnce(&[u8]) -> T) -> Result<T> {
        let mut pages = self.pages.try_borrow_mut().map_err(|_| Error::Io)?;
        let n = pos / PAGE;
        let slot = n % CACHED_PAGES;
        if pages.len() <= slot {
            pages.resize_with(slot + 1, || (usize::MAX, Vec::new()));
        }
        let (held, bytes) = &mut pages[slot];
        if *held != n {
            // Held by no page until it is read whole (a failed read leaves it empty).
            *held = usize::MAX;
            self.read_page(n, bytes)?;
            *held = n;
        }
        Ok(f(bytes.get(pos % PAGE..).unwrap_or(&[])))
    }

    /// Reads page `n` into `bytes`.
    #[cold]
    fn read_page(&self, n: usize, bytes: &mut Vec<u8>) -> Result<()> {
        let start = n * PAGE;
        let len = PAGE.min(self.size.saturating_sub(start));
        bytes.resize(len, 0);
        self.file
            .read_exact_at(bytes, self.at + start as u64)
            .map_err(|_| Error::Io)
    }

    /// Copies the bytes at `pos` into `out` (the caller checks the range).
    fn read_at(&self, mut pos: usize, out: &mut [u8]) -> Result<()> {
        let mut done = 0;
        while done < out.len() {
            let rest = &mut out[done..];
            let n = self.with_page(pos, |page| {
                let n = rest.len().min(page.len());
                rest[..n].copy_from_slice(&page[..n]);
                n
            })?;
            if n == 0 {
                return Err(Error::Io);
            }
            done += n;
            pos += n;
        }
        Ok(())
    }

    /// The first `byte` in `[pos, end)`, as an offset from `pos`.
    fn find(&self, mut pos: usize, end: usize, byte: u8) -> Result<Option<usize>> {
        let start = pos;
        while pos < end {
            let (found, n) = self.with_page(pos, |page| {
                let page = &page[..page.len().min(end - pos)];
                (memchr::memchr(byte, page), page.len())
            })?;
            if let Some(i) = found {
                return Ok(Some(pos + i - start));
            }
            if n == 0 {
                return Err(Error::Io);
            }
            pos += n;
        }
        Ok(None)
    }
}

/// Where a section's bytes are.
#[derive(Debug, Clone)]
enum Source {
    Memory(Arc<Vec<u8>>),
    File(Rc<Paged>),
}

/// A gimli reader over part of a section, in memory or read from its file.
#[derive(Debug, Clone)]
pub struct Bytes {
    source: Source,
    /// The part: `[start, start + len)` of the section.
    start: usize,
    len: usize,
    endian: RunTimeEndian,
}

impl Bytes {
    /// A section in memory (kept as it is: a section inflated is not copied again).
    pub fn memory(bytes: Vec<u8>, endian: RunTimeEndian) -> Self {
        Self {
            len: bytes.len(),
            source: Source::Memory(Arc::new(bytes)),
            start: 0,
            endian,
        }
    }

    /// A section read from its file when asked.
    pub fn paged(paged: Paged, endian: RunTimeEndian) -> Self {
        Self {
            len: paged.size,
            source: Source::File(Rc::new(paged)),
            start: 0,
            endian,
        }
    }

    /// The bytes, when they are in memory.
    pub fn in_memory(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Memory(b) => b.get(self.start..self.start + self.len),
            Source::File(_) => None,
        }
    }

    fn eof(&self) -> Error {
        Error::UnexpectedEof(gimli::Reader::offset_id(self))
    }
}

impl gimli::Reader for Bytes {
    type Endian = RunTimeEndian;
    type Offset = usize;

    #[inline]
    fn endian(&self) -> RunTimeEndian {
        self.endian
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    fn empty(&mut self) {
        self.len = 0;
    }

    #[inline]
    fn truncate(&mut self, len: usize) -> Result<()> {
        if len > self.len {
            return Err(self.eof());
        }
        self.len = len;
        Ok(())
    }

    #[inline]
    fn offset_from(&self, base: &Self) -> usize {
        self.start.saturating_sub(base.start)
    }

    fn offset_id(&self) -> ReaderOffsetId {
        // The place in the file (pages) or in memory: distinct for distinct sections.
        let base = match &self.source {
            Source::Memory(b) => b.as_ptr() as u64,
            Source::File(p) => p.at | (1 << 63),
        };
        ReaderOffsetId(base.wrapping_add(self.start as u64))
    }

    fn lookup_offset_id(&self, id: ReaderOffsetId) -> Option<usize> {
        let here = self.offset_id().0;
        let off = usize::try_from(id.0.checked_sub(here)?).ok()?;
        (off <= self.len).then_some(off)
    }

    fn find(&self, byte: u8) -> Result<usize> {
        let found = match &self.source {
            Source::Memory(b) => {
                let part = b.get(self.start..self.start + self.len).unwrap_or(&[]);
                memchr::memchr(byte, part)
            }
            Source::File(p) => p.find(self.start, self.start + self.len, byte)?,
        };
        found.ok_or_else(|| self.eof())
    }

    #[inline]
    fn skip(&mut self, len: usize) -> Result<()> {
        if len > self.len {
            return Err(self.eof());
        }
        self.start += len;
        self.len -= len;
        Ok(())
    }

    #[inline]
    fn split(&mut self, len: usize) -> Result<Self> {
        let mut first = self.clone();
        first.truncate(len)?;
        self.skip(len)?;
        Ok(first)
    }

    fn to_slice(&self) -> Result<Cow<'_, [u8]>> {
        if let Some(b) = self.in_memory() {
            return Ok(Cow::Borrowed(b));
        }
        let mut out = vec![0; self.len];
        self.clone().read_slice(&mut out)?;
        Ok(Cow::Owned(out))
    }

    fn to_string(&self) -> Result<Cow<'_, str>> {
        match self.to_slice()? {
            Cow::Borrowed(b) => std::str::from_utf8(b)
                .map(Cow::Borrowed)
                .map_err(|_| Error::BadUtf8),
            Cow::Owned(v) => String::from_utf8(v)
                .map(Cow::Owned)
                .map_err(|_| Error::BadUtf8),
        }
    }

    fn to_string_lossy(&self) -> Result<Cow<'_, str>> {
        Ok(match self.to_slice()? {
            Cow::Borrowed(b) => String::from_utf8_lossy(b),
            Cow::Owned(v) => Cow::Owned(String::from_utf8_lossy(&v).into_owned()),
        })
    }

    #[inline]
    fn read_slice(&mut self, buf: &mut [u8]) -> Result<()> {
        if buf.len() > self.len {
            return Err(self.eof());
        }
        match &self.source {
            Source::Memory(b) => {
                let part = b.get(self.start..self.start + buf.len()).ok_or(Error::Io)?;
                buf.copy_from_slice(part);
            }
            Source::File(p) => p.read_at(self.start, buf)?,
        }
        self.start += buf.len();
        self.len -= buf.len();
        Ok(())
    }

    #[inline]
    fn read_u8(&mut self) -> Result<u8> {
        // The most frequent read (each byte of a LEB128): no copy of a slice.
        if self.len == 0 {
            return Err(self.eof());
        }
        let byte = match &self.source {
            Source::Memory(b) => b.get(self.start).copied(),
            Source::File(p) => p.with_page(self.start, |page| page.first().copied())?,
        };
        self.start += 1;
        self.len -= 1;
        byte.ok_or(Error::Io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::Reader as _;

    /// A section in a file (behind 3 bytes of something else) read in pages reads as the
    /// same bytes in memory: across pages, past the cache, and at its end.
    #[test]
    fn a_section_read_in_pages_reads_as_in_memory() {
        let size = PAGE * (CACHED_PAGES + 3) + 123;
        let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("flametui-paged-{}", std::process::id()));
        let mut file = vec![9, 9, 9];
        file.extend_from_slice(&data);
        std::fs::write(&path, &file).unwrap();
        let paged = Paged::new(std::fs::File::open(&path).unwrap(), 3, size);
        let _ = std::fs::remove_file(&path);
        let endian = RunTimeEndian::Little;
        let mut a = Bytes::paged(paged, endian);
        let mut b = Bytes::memory(data.clone(), endian);
        assert_eq!(a.len(), b.len());
        // Reads that cross pages, a whole page and more, LEB128s, skips.
        for step in [1usize, 2, 8, PAGE - 1, PAGE + 5, 3 * PAGE, 17] {
            let mut x = vec![0; step];
            let mut y = vec![0; step];
            assert_eq!(a.read_slice(&mut x).is_ok(), b.read_slice(&mut y).is_ok());
            assert_eq!(x, y);
            assert_eq!(a.read_uleb128().ok(), b.read_uleb128().ok());
            assert_eq!(a.read_u32().ok(), b.read_u32().ok());
            assert_eq!(a.offset_from(&Bytes::memory(Vec::new(), endian)), a.start);
        }
        // Finding a byte past the cached pages, splitting, reading a part whole.
        let back = Bytes::paged(
            Paged::new(
                {
                    std::fs::write(&path, &file).unwrap();
                    let f = std::fs::File::open(&path).unwrap();
                    let _ = std::fs::remove_file(&path);
                    f
                },
                3,
                size,
            ),
            endian,
        );
        let mut whole = Bytes::memory(data.clone(), endian);
        let mut paged = back.clone();
        for r in [&mut whole, &mut paged] {
            r.skip(size - PAGE - 300).unwrap();
        }
        assert_eq!(paged.find(0).ok(), whole.find(0).ok());
        assert_eq!(paged.find(250).ok(), whole.find(250).ok());
        let (mut p1, mut w1) = (paged.split(1000).unwrap(), whole.split(1000).unwrap());
        assert_eq!(p1.to_slice().unwrap(), w1.to_slice().unwrap());
        assert_eq!(paged.to_slice().unwrap(), whole.to_slice().unwrap());
        assert_eq!(p1.read_u64().ok(), w1.read_u64().ok());
        // Past the end: an error, not a panic, and nothing read.
        let mut buf = vec![0; paged.len() + 1];
        assert!(paged.read_slice(&mut buf).is_err());
        assert!(paged.skip(paged.len() + 1).is_err());
        assert_eq!(paged.to_slice().unwrap(), whole.to_slice().unwrap());
        // No 255 after the point where the data ends: not found.
        let mut tail = back.clone();
        tail.skip(size - 10).unwrap();
        assert!(tail.find(255).is_err());
        // An id names a place of this reader only.
        let id = p1.offset_id();
        assert_eq!(back.lookup_offset_id(id), Some(size - PAGE - 300 + 8));
        assert_eq!(whole.lookup_offset_id(id), None);
    }
}
