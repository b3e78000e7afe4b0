//! An ELF file read whole when it is small, else in parts: its symbol tables pinned in
//! memory, the rest through a window.

use std::path::Path;

use object::{Object, ObjectSection};

use crate::input::perf_data::paged::Paged;

/// The most bytes read from one ELF or debug file (larger ones are not symbolised).
const MAX_ELF_BYTES: u64 = 1 << 31;

/// For its symbols, a file up to this size is read whole (one read), a larger one in
/// parts: a binary with its DWARF is mostly debug sections (61 MB for flametui's own,
/// 24 MB of them its symbol tables).
const READ_WHOLE_FOR_SYMBOLS: u64 = 8 << 20;

/// An ELF file of at most [`MAX_ELF_BYTES`] as [`object`] reads it: in memory when it is
/// small, else opened to be read in parts (a symbol table, a section), as a large
/// library is mostly code no profile needs read.
pub(super) enum Source {
    Bytes(Vec<u8>),
    Parts(Sparse),
}

/// A large file: some ranges read whole (its symbol tables, for the symbols), the rest
/// through the window. Reads inside a whole range are slices of it: no copy and no
/// allocation a name (`object`'s cache boxes every string it reads: 400,000 of them for
/// a compiler library, most of the time spent on it).
pub(super) struct Sparse {
    pinned: Vec<(u64, Vec<u8>)>,
    rest: object::ReadCache<Windowed>,
    /// The file again, for sections read whole into their own buffer ([`Source::section`]).
    raw: std::fs::File,
    len: u64,
}

impl Source {
    /// The `size` bytes at `offset` of a large file, read straight into one buffer of
    /// their own (a DWARF section: 100 MB and more in a debug build, which through the
    /// read cache would be zeroed, read, copied out and held twice); `None` for a small
    /// file (its bytes are in memory) or a range the file does not have.
    pub(super) fn section(&self, offset: u64, size: u64) -> Option<std::sync::Arc<[u8]>> {
        use std::os::unix::fs::FileExt as _;
        let sparse = self.holding(offset, size)?;
        let mut bytes: std::sync::Arc<[u8]> =
            std::iter::repeat_n(0u8, usize::try_from(size).ok()?).collect();
        let buf = std::sync::Arc::get_mut(&mut bytes)?;
        sparse.raw.read_exact_at(buf, offset).ok()?;
        Some(bytes)
    }

    /// As [`Source::section`], the bytes to be read in pages when asked (a DWARF section:
    /// see [`crate::input::perf_data::paged`]).
    pub(super) fn paged(&self, offset: u64, size: u64) -> Option<Paged> {
        let sparse = self.holding(offset, size)?;
        let file = sparse.raw.try_clone().ok()?;
        Some(Paged::new(file, offset, usize::try_from(size).ok()?))
    }

    /// The large file read in parts, when it has the `size` bytes at `offset`.
    fn holding(&self, offset: u64, size: u64) -> Option<&Sparse> {
        let Source::Parts(sparse) = self else {
            return None;
        };
        (offset.checked_add(size)? <= sparse.len).then_some(sparse)
    }
}

impl Sparse {
    /// The range read whole that holds `offset`: its start and bytes.
    fn pinned_at(&self, offset: u64) -> Option<(u64, &[u8])> {
        self.pinned
            .iter()
            .find(|(at, b)| offset >= *at && offset - at < b.len() as u64)
            .map(|(at, b)| (*at, b.as_slice()))
    }
}

impl<'a> object::ReadRef<'a> for &'a Sparse {
    fn len(self) -> Result<u64, ()> {
        (&self.rest).len()
    }

    fn read_bytes_at(self, offset: u64, size: u64) -> Result<&'a [u8], ()> {
        if let Some((at, bytes)) = self.pinned_at(offset) {
            let from = usize::try_from(offset - at).map_err(|_| ())?;
            let to = usize::try_from(size)
                .ok()
                .and_then(|n| from.checked_add(n))
                .ok_or(())?;
            if let Some(b) = bytes.get(from..to) {
                return Ok(b);
            }
        }
        (&self.rest).read_bytes_at(offset, size)
    }

    fn read_bytes_at_until(
        self,
        range: std::ops::Range<u64>,
        delimiter: u8,
    ) -> Result<&'a [u8], ()> {
        if let Some((at, bytes)) = self.pinned_at(range.start) {
            let from = usize::try_from(range.start - at).map_err(|_| ())?;
            let to = usize::try_from(range.end.saturating_sub(at))
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            let hay = bytes.get(from..to).ok_or(())?;
            if let Some(n) = memchr::memchr(delimiter, hay) {
                return Ok(&hay[..n]);
            }
            if range.end <= at + bytes.len() as u64 {
                return Err(());
            }
        }
        (&self.rest).read_bytes_at_until(range, delimiter)
    }
}

/// A file read through a window of [`WINDOW`] bytes: `object` reads a symbol's name in
/// 256-byte steps at a fresh offset each time, two system calls a name without it
/// (a 150 MB library has 200,000 names).
struct Windowed {
    file: std::fs::File,
    pos: u64,
    start: u64,
    buf: Vec<u8>,
    /// Its size: [`WINDOW`].
    window: usize,
}

impl Windowed {
    /// Reads the file's `(offset, size)` ranges whole, up to [`PIN_BYTES`] in all; a
    /// range that cannot be read is left out (to the window).
    fn read_whole(&mut self, ranges: &[(u64, u64)]) -> Vec<(u64, Vec<u8>)> {
        use std::io::{Read as _, Seek as _};
        let file_len = self.file.metadata().map_or(0, |m| m.len());
        let mut total = 0u64;
        let mut out = Vec::new();
        for &(at, size) in ranges {
            total = total.saturating_add(size);
            let Ok(len) = usize::try_from(size) else {
                continue;
            };
            // Nothing is allocated for a range past the end of the file.
            if total > PIN_BYTES || len == 0 || at.saturating_add(size) > file_len {
                continue;
            }
            let mut bytes = vec![0u8; len];
            let read = self
                .file
                .seek(std::io::SeekFrom::Start(at))
                .and_then(|_| self.file.read_exact(&mut bytes));
            if read.is_ok() {
                out.push((at, bytes));
            }
        }
        out
    }
}

/// The bytes one read of a [`Windowed`] file brings in.
const WINDOW: usize = 256 << 10;

impl std::io::Seek for Windowed {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.pos = match to {
            std::io::SeekFrom::Start(p) => p,
            std::io::SeekFrom::Current(d) => self.pos.checked_add_signed(d).ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before 0")
            })?,
            std::io::SeekFrom::End(_) => self.file.seek(to)?,
        };
        Ok(self.pos)
    }
}

impl std::io::Read for Windowed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Seek as _;
        let window = self.window.max(1);
        if out.len() >= window {
            self.file.seek(std::io::SeekFrom::Start(self.pos))?;
            let n = self.file.read(out)?;
            self.pos += n as u64;
            return Ok(n);
        }
        let inside = self.pos >= self.start && self.pos - self.start < self.buf.len() as u64;
        if !inside {
            self.file.seek(std::io::SeekFrom::Start(self.pos))?;
            self.buf.resize(window, 0);
            let mut filled = 0;
            while filled < window {
                match self.file.read(&mut self.buf[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.buf.truncate(filled);
            self.start = self.pos;
        }
        let at = usize::try_from(self.pos - self.start).unwrap_or(usize::MAX);
        let from = self.buf.get(at..).unwrap_or(&[]);
        let n = from.len().min(out.len());
        out[..n].copy_from_slice(&from[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

/// A file opened for some of its sections (the DWARF, the unwinder's): never read whole,
/// each section goes straight into its own buffer ([`Source::section`]). (A 61 MB binary
/// was read whole for its unwind sections, and `.text` then copied out of it.)
pub(super) fn open_for_sections(path: &Path) -> Option<Source> {
    open_sized(path, 0, false)
}

/// At most this many bytes of a large file's symbol and string tables are read whole
/// (beyond, they are read through the window).
const PIN_BYTES: u64 = 256 << 20;

/// A file opened for its symbols: a large file's symbol tables and their strings are read
/// whole, each in one read: `object` reads the names in the symbols' order, which is not
/// the strings' order, and through the window every jump was a fresh 256 KB read (a
/// 150 MB compiler library: 400 ms of copying for a 20 MB string table).
pub(super) fn open_for_symbols(path: &Path) -> Option<Source> {
    open_sized(path, READ_WHOLE_FOR_SYMBOLS, true)
}

/// A file of at most `whole` bytes read whole, else in parts (with its symbol tables
/// pinned when `symbols`).
fn open_sized(path: &Path, whole: u64, symbols: bool) -> Option<Source> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ELF_BYTES {
        return None;
    }
    if meta.len() <= whole {
        return std::fs::read(path).ok().map(Source::Bytes);
    }
    let file = std::fs::File::open(path).ok()?;
    let raw = file.try_clone().ok()?;
    let mut windowed = Windowed {
        file,
        pos: 0,
        start: 0,
        buf: Vec::new(),
        window: WINDOW,
    };
    let mut pinned = Vec::new();
    if symbols {
        let cache = object::ReadCache::new(windowed);
        let ranges = symbol_ranges(&cache);
        windowed = cache.into_inner();
        pinned = windowed.read_whole(&ranges);
    }
    Some(Source::Parts(Sparse {
        pinned,
        rest: object::ReadCache::new(windowed),
        raw,
        len: meta.len(),
    }))
}

/// `(offset, size)` in the file of its symbol tables and their strings.
fn symbol_ranges<'d, R: object::ReadRef<'d>>(data: R) -> Vec<(u64, u64)> {
    match object::File::parse(data) {
        Ok(file) => [".symtab", ".strtab", ".dynsym", ".dynstr"]
            .iter()
            .filter_map(|name| file.section_by_name(name)?.file_range())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// `$body` with `$file` bound to the parsed [`object::File`] of a [`Source`] (either
/// way of reading it), or `$err` when it does not parse.
macro_rules! with_elf {
    ($source:expr, |$file:ident| $body:expr, $err:expr) => {
        match $source {
            Source::Bytes(b) => match object::File::parse(&b[..]) {
                Ok($file) => $body,
                Err(_) => $err,
            },
            Source::Parts(c) => match object::File::parse(c) {
                Ok($file) => $body,
                Err(_) => $err,
            },
        }
    };
}
pub(super) use with_elf;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::perf_data::symbols::elf::{parse_elf, unwind_sections};
    use crate::input::perf_data::symbols::{Elf, UnwindSections};
    use std::sync::Arc;

    fn bytes_len(s: &Source) -> u64 {
        match s {
            Source::Bytes(b) => b.len() as u64,
            Source::Parts(p) => p.len,
        }
    }

    /// A large file is read in parts through a window; what it gives is what the whole
    /// file read at once gives.
    #[test]
    fn a_file_read_in_parts_gives_what_it_gives_read_whole() {
        use std::io::Read as _;
        let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/perf-data-cxx.gz");
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        let path = std::env::temp_dir().join(format!("flametui-parts-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let whole = Source::Bytes(bytes);
        // A window of 100 bytes: names across its edges, sections larger than it.
        let windowed = || Windowed {
            file: std::fs::File::open(&path).unwrap(),
            pos: 0,
            start: 0,
            buf: Vec::new(),
            window: 100,
        };
        let parts = Source::Parts(Sparse {
            pinned: Vec::new(),
            rest: object::ReadCache::new(windowed()),
            raw: std::fs::File::open(&path).unwrap(),
            len: bytes_len(&whole),
        });
        let a = with_elf!(&whole, |f| parse_elf(&f, &path), Elf::default());
        let b = with_elf!(&parts, |f| parse_elf(&f, &path), Elf::default());
        // The unwinder's sections through the window, and straight from the file.
        let none = |_, _| None;
        let u = with_elf!(
            &parts,
            |f| unwind_sections(&f, &none),
            UnwindSections::default()
        );
        let direct = |at, size| parts.section(at, size);
        let u_direct = with_elf!(
            &parts,
            |f| unwind_sections(&f, &direct),
            UnwindSections::default()
        );
        // The symbol and string tables read whole, the rest through the window; one
        // range cut short and one past the end are served by the window.
        let Source::Bytes(raw) = &whole else {
            unreachable!()
        };
        let mut ranges = symbol_ranges(&raw[..]);
        assert_eq!(ranges.len(), 4);
        // A part of the string table first: a name may run past its end.
        let strtab = ranges[1].0;
        ranges.insert(0, (strtab, 7));
        ranges.push((1 << 40, 10));
        ranges.push((0, u64::from(u32::MAX)));
        let mut w = windowed();
        let pinned = w.read_whole(&ranges);
        assert_eq!(pinned.len(), 5);
        let pinned = Source::Parts(Sparse {
            pinned,
            rest: object::ReadCache::new(w),
            raw: std::fs::File::open(&path).unwrap(),
            len: raw.len() as u64,
        });
        // A section read straight from the file is the file's bytes; none past its end.
        assert_eq!(
            parts.section(strtab, 64).as_deref(),
            Some(&raw[strtab as usize..strtab as usize + 64])
        );
        assert!(parts.section(raw.len() as u64 - 4, 5).is_none());
        assert!(parts.section(u64::MAX, 2).is_none());
        assert!(whole.section(0, 4).is_none());
        let whole_pinned = with_elf!(&pinned, |f| parse_elf(&f, &path), Elf::default());
        let _ = std::fs::remove_file(&path);
        assert!(a.symbols.symbols.len() > 10);
        let names = |e: &Elf| -> Vec<(u64, u64, Arc<str>)> {
            e.symbols
                .symbols
                .iter()
                .map(|s| (s.start, s.end, s.name.clone()))
                .collect()
        };
        assert_eq!(names(&a), names(&b));
        assert_eq!(names(&a), names(&whole_pinned));
        assert_eq!(a.segments, b.segments);
        assert!(u.eh_frame.is_some() && u.text.is_some());
        assert_eq!(u.text, u_direct.text);
        assert_eq!(u.eh_frame.map(|e| e.1), u_direct.eh_frame.map(|e| e.1));
    }
}
