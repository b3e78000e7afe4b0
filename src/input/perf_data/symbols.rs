//! Stage: perf.data addresses → names. The ELF files a recording's mmap events name (or
//! their separate debug files, found by build id), their symbol tables, DWARF inline
//! information and unwind sections, and the kernel's symbol table (`/proc/kallsyms`).
//!
//! Names are made as `perf script` prints them: C++ demangled without parameters, a
//! symbol that contains the address (zero-sized symbols reach to the next one), inlined
//! frames from DWARF named by their linkage name (or their plain name without one), an
//! inlined frame whose name equals the symbol's being the symbol's own frame.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, ObjectSymbolTable};

use super::dwarf::{Context, FileDwarf};

/// The most bytes read from one ELF or debug file (larger ones are not symbolised).
const MAX_ELF_BYTES: u64 = 1 << 31;

/// Files up to this size are read whole (one read); larger ones in parts.
const READ_WHOLE_BYTES: u64 = 64 << 20;

/// As [`READ_WHOLE_BYTES`] when only the symbols are read: a binary with its DWARF is
/// mostly debug sections (61 MB for flametui's own, 24 MB of them its symbol tables).
const READ_WHOLE_FOR_SYMBOLS: u64 = 8 << 20;

/// An ELF file of at most [`MAX_ELF_BYTES`] as [`object`] reads it: in memory when it is
/// small, else opened to be read in parts (a symbol table, a section), as a large
/// library is mostly code no profile needs read.
enum Source {
    Bytes(Vec<u8>),
    Parts(Sparse),
}

/// A large file: some ranges read whole (its symbol tables, for the symbols), the rest
/// through the window. Reads inside a whole range are slices of it: no copy and no
/// allocation a name (`object`'s cache boxes every string it reads: 400,000 of them for
/// a compiler library, most of the time spent on it).
struct Sparse {
    pinned: Vec<(u64, Vec<u8>)>,
    rest: object::ReadCache<Windowed>,
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

fn open(path: &Path) -> Option<Source> {
    open_with(path, false)
}

/// At most this many bytes of a large file's symbol and string tables are read whole
/// (beyond, they are read through the window).
const PIN_BYTES: u64 = 256 << 20;

/// As [`open`]; with `symbols`, a large file's symbol tables and their strings are read
/// whole, each in one read: `object` reads the names in the symbols' order, which is not
/// the strings' order, and through the window every jump was a fresh 256 KB read (a
/// 150 MB compiler library: 400 ms of copying for a 20 MB string table).
fn open_with(path: &Path, symbols: bool) -> Option<Source> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ELF_BYTES {
        return None;
    }
    let whole = if symbols {
        READ_WHOLE_FOR_SYMBOLS
    } else {
        READ_WHOLE_BYTES
    };
    if meta.len() <= whole {
        return std::fs::read(path).ok().map(Source::Bytes);
    }
    let file = std::fs::File::open(path).ok()?;
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

/// One symbol: its address range and name (raw, demangled on first use: a table of a
/// large library has hundreds of thousands of names, and a profile needs a few).
#[derive(Debug, Clone)]
struct Symbol {
    start: u64,
    end: u64,
    name: Arc<str>,
    shown: std::cell::OnceCell<Arc<str>>,
}

/// A symbol as read: address, size, raw name, rank.
type RawSymbol = (u64, u64, Arc<str>, u8);

/// A sorted table of symbols.
#[derive(Debug, Default)]
pub struct SymbolTable {
    symbols: Vec<Symbol>,
}

impl SymbolTable {
    /// A table of `(address, size, raw name, rank)` with perf's rules: of symbols at one
    /// address the best is kept, and a zero-sized symbol reaches to the next one.
    fn new(mut raw: Vec<RawSymbol>) -> Self {
        // Of symbols at one address the best is kept, as perf's choose_best_symbol: the
        // higher rank (function, not weak, global: see `rank`), then fewer leading
        // underscores, then the longer name (both demangled), then the first in the table.
        raw.sort_by_key(|r| r.0);
        let underscores = |s: &str| s.bytes().take_while(|&b| b == b'_').count();
        let mut i = 0;
        while i < raw.len() {
            let j = i + raw[i..].iter().take_while(|r| r.0 == raw[i].0).count();
            if j - i > 1 {
                let key = |r: &RawSymbol| {
                    let shown = demangle(&r.2);
                    (
                        std::cmp::Reverse(r.3),
                        underscores(&shown),
                        std::cmp::Reverse(shown.len()),
                    )
                };
                let best = (i..j).min_by_key(|&k| key(&raw[k])).unwrap_or(i);
                raw[i..=best].rotate_right(1);
            }
            i = j;
        }
        raw.dedup_by(|later, first| later.0 == first.0);
        let mut symbols: Vec<Symbol> = Vec::with_capacity(raw.len());
        for (i, (start, size, name, _)) in raw.iter().enumerate() {
            let next = raw.get(i + 1).map_or(u64::MAX, |n| n.0);
            let end = if *size == 0 {
                next
            } else {
                start.saturating_add(*size)
            };
            symbols.push(Symbol {
                start: *start,
                end,
                name: name.clone(),
                shown: std::cell::OnceCell::new(),
            });
        }
        Self { symbols }
    }

    /// The symbol whose range holds `addr`: its demangled name and start.
    pub fn find(&self, addr: u64) -> Option<(&Arc<str>, u64)> {
        self.find_symbol(addr).map(|s| (s.shown(), s.start))
    }

    fn find_symbol(&self, addr: u64) -> Option<&Symbol> {
        let at = self.symbols.partition_point(|s| s.start <= addr);
        let s = self.symbols.get(at.checked_sub(1)?)?;
        (addr < s.end).then_some(s)
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}

impl Symbol {
    fn shown(&self) -> &Arc<str> {
        self.shown.get_or_init(|| match demangle(&self.name) {
            Cow::Borrowed(_) => self.name.clone(),
            Cow::Owned(s) => Arc::from(s),
        })
    }
}

/// A symbol's rank among symbols at one address (perf prefers functions, then global
/// non-weak ones, then global ones).
fn rank(func: bool, global: bool, weak: bool) -> u8 {
    u8::from(func) * 4 + u8::from(!weak) * 2 + u8::from(global)
}

/// A demangled name as perf prints it: C++ without parameters or clone suffixes, Rust
/// without its hash, anything else as it is.
pub fn demangle(name: &str) -> Cow<'_, str> {
    // A v0 Rust name has no `.`: what follows one is a suffix (BOLT's `.warm`/`.cold`,
    // LLVM's `.llvm.N`), which perf's demangler (libiberty) leaves out.
    let rust = if name.starts_with("_R") {
        name.split('.').next().unwrap_or(name)
    } else {
        name
    };
    if (rust.starts_with("_ZN") || rust.starts_with("_R"))
        && let Ok(d) = rustc_demangle::try_demangle(rust)
    {
        let s = format!("{d:#}");
        if !s.is_empty() && (name.starts_with("_R") || name.contains("17h")) {
            return s.into();
        }
    }
    if name.starts_with("_Z") {
        let base = name.find('.').map_or(name, |at| &name[..at]);
        let opts = cpp_demangle::DemangleOptions::new()
            .no_params()
            .no_return_type();
        if let Ok(sym) = cpp_demangle::Symbol::new(base)
            && let Ok(s) = sym.demangle_with_options(&opts)
        {
            return as_libiberty(s).into();
        }
    }
    name.into()
}

/// `cpp_demangle`'s spelling of two things turned into libiberty's (`__cxa_demangle`,
/// which perf's names come from): an empty template parameter pack prints nothing
/// (`Foo<int, >` → `Foo<int>`), and an integer literal of a builtin type prints with
/// its suffix (`(unsigned long)4096` → `4096ul`, `(int)-1` → `-1`, `(bool)1` → `true`).
fn as_libiberty(mut s: String) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    while let Some(at) = s.find(", >") {
        s.replace_range(at..at + 2, "");
    }
    if !s.contains(')') {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    'outer: while let Some(open) = rest.find('(') {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        let digits_after = |cast: &str| {
            let tail = &from[cast.len()..];
            let neg = usize::from(tail.starts_with('-'));
            let n = tail[neg..].bytes().take_while(u8::is_ascii_digit).count();
            (n > 0).then_some(neg + n)
        };
        for (cast, suffix) in SUFFIXES {
            if from.starts_with(cast)
                && let Some(n) = digits_after(cast)
            {
                out.push_str(&from[cast.len()..cast.len() + n]);
                out.push_str(suffix);
                rest = &from[cast.len() + n..];
                continue 'outer;
            }
        }
        for (lit, word) in [("(bool)0", "false"), ("(bool)1", "true")] {
            if from.starts_with(lit) && !from[lit.len()..].starts_with(|c: char| c.is_ascii_digit())
            {
                out.push_str(word);
                rest = &from[lit.len()..];
                continue 'outer;
            }
        }
        out.push('(');
        rest = &from[1..];
    }
    out.push_str(rest);
    out
}

/// What one ELF file gives: its symbols, the offset → address rule of its segments,
/// its DWARF and its unwind sections.
#[derive(Default)]
pub struct Elf {
    /// Symbols by address (file's own addresses, SVMAs).
    pub symbols: SymbolTable,
    /// `(file offset, size, address, executable)` of its loadable segments.
    segments: Vec<(u64, u64, u64, bool)>,
    /// The file (this one or its debug file) that holds `.debug_info`.
    dwarf_file: Option<PathBuf>,
    /// Its DWARF, read and parsed on first use (only DWARF-unwound stacks show inline
    /// frames).
    dwarf: std::cell::OnceCell<Option<FileDwarf>>,
    /// The file itself and its debug file, for the unwind sections.
    unwind_files: (PathBuf, Option<PathBuf>),
    /// Unwind information for `--call-graph dwarf`, read on first use (a frame-pointer
    /// recording needs none, and `.text` is most of a binary).
    unwind: std::cell::OnceCell<Option<UnwindSections>>,
    /// The file read was the separate debug file found by build id.
    pub debug_file: bool,
    /// perf's synthesized `name@plt` symbols of the file itself: kept beside a separate
    /// debug file's table, whose `.rela.plt` holds no data (perf synthesizes them from
    /// the binary too).
    plt: Vec<RawSymbol>,
    /// The symbol table binutils' addr2line sees when perf asks it about this file (the
    /// file's own `.symtab`, else its `.dynsym`), when it is not `symbols` (taken from
    /// the debug file).
    a2l_symbols: Option<SymbolTable>,
    /// What addr2line has come to call each DWARF function (see [`Elf::inline_names`]).
    a2l_names: std::cell::RefCell<rustc_hash::FxHashMap<(u64, u64, u64), A2lName>>,
}

/// binutils' state of one DWARF function (a subprogram or one inlined instance): whether
/// it is named by its DWARF name (a linkage name, a C name, or once asked), and the
/// symbol-table name it took when asked first at an address of a symbol starting where
/// the function does.
#[derive(Debug, Clone, Default)]
struct A2lName {
    settled: bool,
    renamed: Option<Arc<str>>,
}

impl std::fmt::Debug for Elf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elf")
            .field("symbols", &self.symbols.symbols.len())
            .field("dwarf", &self.dwarf_file.is_some())
            .finish_non_exhaustive()
    }
}

/// The sections framehop needs.
#[derive(Debug, Clone, Default)]
pub struct UnwindSections {
    /// `(address range, bytes)` of `.text`, `.eh_frame`, `.eh_frame_hdr`; `.debug_frame`'s bytes.
    pub text: Option<(std::ops::Range<u64>, Arc<[u8]>)>,
    /// `.eh_frame`.
    pub eh_frame: Option<(std::ops::Range<u64>, Arc<[u8]>)>,
    /// `.eh_frame_hdr`.
    pub eh_frame_hdr: Option<(std::ops::Range<u64>, Arc<[u8]>)>,
    /// `.debug_frame`.
    pub debug_frame: Option<Arc<[u8]>>,
    /// `.got`'s range.
    pub got: Option<std::ops::Range<u64>>,
}

impl Elf {
    /// The file's address of a file offset (through its loadable segments).
    pub fn address_of_offset(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|&&(off, size, _, _)| offset >= off && offset - off < size)
            .map(|&(off, _, vaddr, _)| offset - off + vaddr)
    }

    /// The code segment (file offset, address) an executable mapping from page-aligned
    /// file offset `pgoff` maps, for the unwinder's base address. A segment is mapped
    /// from its offset rounded down to a page, so that page may also hold the segments
    /// before it (lld packs them so, and their address-to-offset differences differ):
    /// of the segments whose pages the mapping starts in, the executable one, else the
    /// last.
    pub fn segment_of_offset(&self, pgoff: u64) -> Option<(u64, u64)> {
        self.segments
            .iter()
            .filter(|&&(off, size, _, _)| {
                let page = off & !0xfff;
                page <= pgoff && pgoff - page < size.max(1) + (off - page)
            })
            .max_by_key(|&&(off, _, _, exec)| (exec, off))
            .map(|&(off, _, vaddr, _)| (off, vaddr))
    }

    /// The sections the unwinder needs, read on first use: `.text`, `.eh_frame` and its
    /// header from the file, `.debug_frame` from it or its debug file.
    pub fn unwind_sections(&self) -> Option<&UnwindSections> {
        self.unwind
            .get_or_init(|| {
                let (main, debug) = &self.unwind_files;
                let source = open(main)?;
                let mut u = with_elf!(&source, |file| unwind_sections(&file), return None);
                if u.debug_frame.is_none()
                    && let Some(dsource) = debug.as_ref().and_then(|d| open(d))
                {
                    u.debug_frame = with_elf!(
                        &dsource,
                        |dfile| section_data(&dfile, ".debug_frame").map(|s| s.1),
                        None
                    );
                }
                Some(u)
            })
            .as_ref()
    }

    /// The inline chain at `svma`, innermost first, the outermost being the function
    /// itself; empty without DWARF. Each name is the raw name perf gets from binutils'
    /// `addr2line -i -f` (perf without libbfd asks it, once per address), demangled.
    ///
    /// binutils names a frame by its DWARF name, except the innermost one of a function
    /// without a linkage name (a C++ or Rust function of internal linkage: a C name counts
    /// as one) the first time that function is asked about: it then answers with the
    /// name of the symbol-table symbol holding the address (a `.isra` clone's, the caller
    /// it is inlined into), and when that symbol starts where the function does, the
    /// function keeps that name for every later question (binutils' `dwarf2.c`). The
    /// answer at an address therefore depends on the order of the questions: the file's
    /// order here, perf's sample order there (README, perf.data deviations).
    pub fn inline_names(&self, svma: u64) -> Vec<Arc<str>> {
        let dwarf = self.dwarf.get_or_init(|| {
            let source = open(self.dwarf_file.as_ref()?)?;
            with_elf!(&source, |file| FileDwarf::load(&file), None)
        });
        let Some(found) = dwarf.as_ref().and_then(|d| d.context_for(svma)) else {
            return Vec::new();
        };
        let dwarf = found.context;
        // binutils' state is per DWARF function: DIE offsets within the unit, and the unit.
        let unit = found.unit.or_else(|| {
            let u = dwarf.find_dwarf_and_unit(svma).skip_all_loads()?;
            Some(u.header.offset().0)
        });
        let unit = unit.map_or(u64::MAX, |u| u as u64);
        // (DIE offset, raw name, linkage-named) innermost first.
        let mut chain: Vec<(u64, String, bool)> = Vec::new();
        let Ok(mut frames) = dwarf.find_frames(svma).skip_all_loads() else {
            return Vec::new();
        };
        while let Ok(Some(frame)) = frames.next() {
            let Some(function) = frame.function else {
                continue;
            };
            let Ok(raw) = function.raw_name() else {
                continue;
            };
            let linkage = raw.starts_with("_Z")
                || raw.starts_with("_R")
                || function.language.is_some_and(names_are_linkage);
            let die = frame.dw_die_offset.map_or(u64::MAX, |o| o.0 as u64);
            chain.push((die, raw.into_owned(), linkage));
            if chain.len() >= 256 {
                break;
            }
        }
        let Some(&(outer_die, _, _)) = chain.last() else {
            return Vec::new();
        };
        let mut state = self.a2l_names.borrow_mut();
        let mut out = Vec::with_capacity(chain.len());
        for (i, (die, raw, linkage)) in chain.iter().enumerate() {
            let st = state.entry((unit, outer_die, *die)).or_default();
            let mut name: Option<Arc<str>> = st.renamed.clone();
            if i == 0 && !*linkage && !st.settled {
                st.settled = true;
                let table = self.a2l_symbols.as_ref().unwrap_or(&self.symbols);
                if let Some(sym) = table.find_symbol(svma) {
                    if function_start(dwarf, svma, *die) == Some(sym.start) {
                        st.renamed = Some(sym.name.clone());
                    }
                    name = Some(sym.name.clone());
                }
            }
            let raw = name.as_deref().unwrap_or(raw);
            out.push(Arc::from(&*demangle(raw)));
        }
        out
    }
}

/// Languages whose plain DWARF name binutils takes for a linkage name (its
/// `mangle_style` 0: C and assembler).
fn names_are_linkage(lang: gimli::DwLang) -> bool {
    use gimli::constants::{
        DW_LANG_C, DW_LANG_C11, DW_LANG_C17, DW_LANG_C89, DW_LANG_C99, DW_LANG_Mips_Assembler,
    };
    [
        DW_LANG_C89,
        DW_LANG_C,
        DW_LANG_C99,
        DW_LANG_C11,
        DW_LANG_C17,
        DW_LANG_Mips_Assembler,
    ]
    .contains(&lang)
}

/// The first address of the DWARF function (DIE `die` of the unit holding `probe`):
/// binutils' `arange.low`, the first of its ranges.
fn function_start(dwarf: &Context, probe: u64, die: u64) -> Option<u64> {
    let unit = dwarf.find_dwarf_and_unit(probe).skip_all_loads()?;
    let offset = gimli::UnitOffset(usize::try_from(die).ok()?);
    let entry = unit.entry(offset).ok()?;
    let mut ranges = unit.die_ranges(&entry).ok()?;
    ranges.next().ok().flatten().map(|r| r.begin)
}

/// The outcome of looking for a DSO's file.
#[derive(Debug)]
pub enum Found {
    /// Read, symbols and all.
    Elf(Box<Elf>),
    /// No file at that path (under the search directories).
    Missing,
    /// A file whose build id is not the recording's.
    Changed,
    /// Not an ELF file this reader understands.
    Unreadable,
}

/// Where to look for the files a recording names.
#[derive(Debug, Clone, Default)]
pub struct SearchPath {
    /// Directories tried before the path itself (`--symfs`): `DIR/path` and `DIR/basename`.
    pub symfs: Vec<PathBuf>,
    /// perf's build-id cache (`~/.debug`), where `perf record` keeps a copy of every
    /// binary a recording names: tried after the path, so a binary rebuilt or deleted
    /// since the recording is still found.
    pub buildid_cache: Option<PathBuf>,
}

impl SearchPath {
    fn candidates(&self, path: &str, build_id: Option<&[u8]>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let rel = path.trim_start_matches('/');
        for dir in &self.symfs {
            out.push(dir.join(rel));
            if let Some(base) = Path::new(path).file_name() {
                out.push(dir.join(base));
            }
        }
        if self.symfs.is_empty() && !path.starts_with('[') {
            out.push(PathBuf::from(path));
        }
        if let (Some(cache), Some(id)) = (&self.buildid_cache, build_id.and_then(build_id_path)) {
            // `.build-id/xx/rest/elf` (`vdso` for the vdso; perf 4.x and later),
            // `.build-id/xx/rest` before.
            let entry = cache.join(".build-id").join(id);
            out.push(entry.join(if path == "[vdso]" { "vdso" } else { "elf" }));
            out.push(entry);
        }
        out
    }
}

/// A build id in hex.
pub fn build_id_hex(build_id: &[u8]) -> String {
    use std::fmt::Write;
    build_id.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// `xx/rest` of a build id in hex, as the build-id directories name it.
fn build_id_path(build_id: &[u8]) -> Option<String> {
    let (first, rest) = build_id.split_first()?;
    Some(format!("{first:02x}/{}", build_id_hex(rest)))
}

/// Opens the file of a DSO and, when its own has no symbol table, its separate debug file.
pub fn load_dso(path: &str, build_id: Option<&[u8]>, search: &SearchPath) -> Found {
    let mut changed = false;
    for candidate in search.candidates(path, build_id) {
        let Some(source) = open_with(&candidate, true) else {
            continue;
        };
        // The file parsed once: its build id, and (when it is the recording's) its symbols.
        let read = with_elf!(
            &source,
            |file| {
                let own_id = file.build_id().ok().flatten().map(<[u8]>::to_vec);
                match (build_id, own_id.as_deref()) {
                    (Some(want), Some(have)) if want != have => Some(None),
                    _ => Some(Some((own_id, parse_elf(&file, &candidate)))),
                }
            },
            None
        );
        let (own_id, mut elf) = match read {
            None => return Found::Unreadable,
            Some(None) => {
                changed = true;
                continue;
            }
            Some(Some(read)) => read,
        };
        drop(source);
        let id = build_id.or(own_id.as_deref());
        if let Some((dpath, dsource)) = id.and_then(|id| debug_file(id, search))
            && let Some(d) = with_elf!(
                &dsource,
                |dfile| Some(parse_elf_with(&dfile, &dpath, elf.plt.clone())),
                None
            )
        {
            // perf prefers the debug file's symbol table to the binary's.
            if !d.symbols.is_empty() {
                elf.a2l_symbols = Some(std::mem::replace(&mut elf.symbols, d.symbols));
            }
            if elf.dwarf_file.is_none() {
                elf.dwarf_file = d.dwarf_file;
            }
            elf.unwind_files.1 = Some(dpath);
            elf.debug_file = true;
        }
        return Found::Elf(Box::new(elf));
    }
    if changed {
        Found::Changed
    } else {
        Found::Missing
    }
}

/// `/usr/lib/debug/.build-id/xx/rest.debug`, under the search directories too.
fn debug_file(build_id: &[u8], search: &SearchPath) -> Option<(PathBuf, Source)> {
    let name = format!("usr/lib/debug/.build-id/{}.debug", build_id_path(build_id)?);
    let mut dirs: Vec<PathBuf> = search.symfs.clone();
    dirs.push(PathBuf::from("/"));
    dirs.iter().find_map(|d| {
        let path = d.join(&name);
        open_with(&path, true).map(|c| (path, c))
    })
}

/// Symbols and segments of one parsed file, and where its DWARF and unwind sections are.
fn parse_elf<'d, R: object::ReadRef<'d>>(file: &object::File<'d, R>, path: &Path) -> Elf {
    parse_elf_with(file, path, Vec::new())
}

/// As [`parse_elf`], with `extra` symbols in its table (a debug file's: the binary's
/// PLT entries).
fn parse_elf_with<'d, R: object::ReadRef<'d>>(
    file: &object::File<'d, R>,
    path: &Path,
    extra: Vec<RawSymbol>,
) -> Elf {
    let mut raw = extra;
    let mut add = |sym: object::Symbol<'d, '_, R>| {
        // Functions, and labels in code (as perf: assembly entry points like `_start`).
        let func = sym.kind() == object::SymbolKind::Text;
        let label = matches!(sym.kind(), object::SymbolKind::Unknown | object::SymbolKind::Label)
            && sym
                .section_index()
                .and_then(|i| file.section_by_index(i).ok())
                // SHF_EXECINSTR (a debug file's code sections are NOBITS, so not `Text`).
                .is_some_and(|s| matches!(s.flags(), object::SectionFlags::Elf { sh_flags } if sh_flags & 4 != 0));
        if !(func || label) || sym.is_undefined() || sym.address() == 0 {
            return;
        }
        let Ok(name) = sym.name() else { return };
        if name.is_empty() {
            return;
        }
        let r = rank(func, sym.is_global(), sym.is_weak());
        raw.push((sym.address(), sym.size(), Arc::from(name), r));
    };
    // perf reads .symtab, or .dynsym when there is none.
    if file.symbol_table().is_some() {
        file.symbols().for_each(&mut add);
    } else {
        file.dynamic_symbols().for_each(&mut add);
    }
    let mut plt = Vec::new();
    plt_symbols(file, &mut plt);
    raw.extend(plt.iter().cloned());
    let segments = file
        .segments()
        .filter_map(|s| {
            let (off, size) = s.file_range();
            let exec =
                matches!(s.flags(), object::SegmentFlags::Elf { p_flags } if p_flags & 1 != 0);
            (size > 0).then_some((off, size, s.address(), exec))
        })
        .collect();
    Elf {
        symbols: SymbolTable::new(raw),
        segments,
        dwarf_file: file
            .section_by_name(".debug_info")
            .map(|_| path.to_path_buf()),
        dwarf: std::cell::OnceCell::new(),
        unwind_files: (path.to_path_buf(), None),
        unwind: std::cell::OnceCell::new(),
        debug_file: false,
        plt,
        a2l_symbols: None,
        a2l_names: std::cell::RefCell::default(),
    }
}

/// perf's synthesized `name@plt` symbols: one per `.rela.plt` entry, in `.plt.sec` when
/// there is one, else in `.plt` after its 16-byte header (x86-64).
fn plt_symbols<'d, R: object::ReadRef<'d>>(file: &object::File<'d, R>, raw: &mut Vec<RawSymbol>) {
    if file.architecture() != object::Architecture::X86_64 || !file.is_little_endian() {
        return;
    }
    let Some(rela) = file.section_by_name(".rela.plt") else {
        return;
    };
    let Ok(data) = rela.data() else { return };
    let (base, skip) = match (
        file.section_by_name(".plt.sec"),
        file.section_by_name(".plt"),
    ) {
        (Some(sec), _) => (sec.address(), 0),
        (None, Some(plt)) => (plt.address(), 1),
        (None, None) => return,
    };
    if skip == 1 && !data.is_empty() {
        // The header (the lazy binder's stub), which perf names `@plt` too.
        raw.push((base, 16, Arc::from("@plt"), rank(true, true, false)));
    }
    let dynsym = file.dynamic_symbol_table();
    for (i, entry) in data.chunks_exact(24).enumerate().take(1 << 20) {
        let info = entry
            .get(8..16)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes);
        let index = (info >> 32) as usize;
        let name = dynsym
            .as_ref()
            .filter(|_| index != 0)
            .and_then(|t| t.symbol_by_index(object::SymbolIndex(index)).ok())
            .and_then(|s| s.name().ok().map(str::to_owned))
            .unwrap_or_default();
        let name: String = name;
        let addr = base + (i as u64 + skip) * 16;
        let shown = format!("{}@plt", demangle(&name));
        raw.push((addr, 16, Arc::from(shown.as_str()), rank(true, true, false)));
    }
}

/// The bytes of a section by name (decompressed), owned.
fn section_data<'d, R: object::ReadRef<'d>>(
    file: &object::File<'d, R>,
    name: &str,
) -> Option<(std::ops::Range<u64>, Arc<[u8]>)> {
    let s = file.section_by_name(name)?;
    if s.kind() == object::SectionKind::UninitializedData {
        return None;
    }
    let data = s.uncompressed_data().ok()?;
    let range = s.address()..s.address().saturating_add(s.size());
    Some((range, Arc::from(&*data)))
}

fn unwind_sections<'d, R: object::ReadRef<'d>>(file: &object::File<'d, R>) -> UnwindSections {
    UnwindSections {
        text: section_data(file, ".text"),
        eh_frame: section_data(file, ".eh_frame"),
        eh_frame_hdr: section_data(file, ".eh_frame_hdr"),
        debug_frame: section_data(file, ".debug_frame").map(|s| s.1),
        got: file
            .section_by_name(".got")
            .map(|s| s.address()..s.address().saturating_add(s.size())),
    }
}

/// The kernel's symbols from `/proc/kallsyms` (or a file in its format), with the module
/// each belongs to.
#[derive(Debug, Default)]
pub struct Kallsyms {
    table: SymbolTable,
    /// Module of each symbol by start address (`None`: the kernel itself).
    modules: Vec<(u64, Option<Arc<str>>)>,
    /// Whether every address read 0 (hidden by `kptr_restrict`).
    pub hidden: bool,
}

impl Kallsyms {
    /// Parses kallsyms text: `addr type name [module]` per line.
    pub fn parse(text: &str) -> Self {
        let mut raw = Vec::new();
        let mut modules = Vec::new();
        let mut lines = 0u64;
        let mut last_module: Option<Arc<str>> = None;
        for line in text.lines() {
            let mut it = line.split_ascii_whitespace();
            let (Some(addr), Some(kind), Some(name)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            lines += 1;
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            if addr == 0 || !matches!(kind, "T" | "t" | "W" | "w") {
                continue;
            }
            // Module names repeat line after line: one allocation per run of them.
            let module = it
                .next()
                .map(|m| m.trim_start_matches('[').trim_end_matches(']'));
            let module = match (module, &last_module) {
                (Some(m), Some(last)) if **last == *m => Some(last.clone()),
                (Some(m), _) => {
                    let m: Arc<str> = Arc::from(m);
                    last_module = Some(m.clone());
                    Some(m)
                }
                (None, _) => None,
            };
            let global = kind == "T" || kind == "W";
            raw.push((addr, 0, Arc::from(name), rank(true, global, false)));
            modules.push((addr, module));
        }
        modules.sort_by_key(|m| m.0);
        modules.dedup_by_key(|m| m.0);
        // perf gives each kernel symbol the length up to the next one, so of several at
        // one address all but the last in the file have none, and the last is chosen
        // before any other rule (`memcpy` then `__pi_memcpy`: `__pi_memcpy`).
        raw.sort_by_key(|r| r.0);
        for i in 0..raw.len() {
            if raw.get(i + 1).is_none_or(|next| next.0 != raw[i].0) {
                raw[i].3 += 8;
            }
        }
        Self {
            hidden: lines > 0 && raw.is_empty(),
            table: SymbolTable::new(raw),
            modules,
        }
    }

    /// This machine's table (empty when it cannot be read).
    pub fn from_machine() -> Self {
        std::fs::read_to_string("/proc/kallsyms")
            .map_or_else(|_| Self::default(), |t| Self::parse(&t))
    }

    /// The symbol at `addr` and its DSO as perf names it (`[kernel.kallsyms]` or `[module]`).
    pub fn find(&self, addr: u64) -> Option<(&Arc<str>, Option<&Arc<str>>)> {
        let (name, start) = self.table.find(addr)?;
        let at = self.modules.partition_point(|m| m.0 <= start);
        let module = self
            .modules
            .get(at.checked_sub(1)?)
            .and_then(|m| m.1.as_ref());
        Some((name, module))
    }

    /// Whether it has no symbol.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expected name is what binutils' `c++filt -p` (libiberty, as perf) prints.
    #[test]
    fn cpp_names_are_spelt_as_libiberty_spells_them() {
        let cases = [
            (
                "_ZN4llvm15AnalysisManagerINS_8FunctionEJEE13getResultImplEPNS_11AnalysisKeyERS1_",
                "llvm::AnalysisManager<llvm::Function>::getResultImpl",
            ),
            (
                "_ZN4llvm20BumpPtrAllocatorImplINS_15MallocAllocatorELm4096ELm4096ELm128EE12AllocateSlowEmmNS_5AlignE",
                "llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 4096ul, 4096ul, 128ul>::AllocateSlow",
            ),
            (
                "_ZN4llvm11PassManagerINS_8FunctionENS_15AnalysisManagerIS1_JEEEJEE3runERS1_RS3_",
                "llvm::PassManager<llvm::Function, llvm::AnalysisManager<llvm::Function>>::run",
            ),
            (
                "_ZNSt10moneypunctIcLb0EE2idE",
                "std::moneypunct<char, false>::id",
            ),
            ("_ZN1AILin5EE1fEv", "A<-5>::f"),
            ("_ZN1AILx7ELy8ELj3ELl9EE1fEv", "A<7ll, 8ull, 3u, 9l>::f"),
            ("_ZN1AILc65EE1fEv", "A<(char)65>::f"),
            ("_ZN6WorkerIdE3runEd.isra.0", "Worker<double>::run"),
        ];
        for (raw, want) in cases {
            assert_eq!(demangle(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_debug_files_table_keeps_the_binarys_plt_entries() {
        // The tiny program's binary and its `objcopy --only-keep-debug` file, whose
        // `.rela.plt` is NOBITS: perf names the binary's PLT stubs from the binary even
        // when the symbols come from the debug file (libc with libc6-dbg installed).
        let dir = std::env::temp_dir().join(format!("flametui-plt-{}", std::process::id()));
        let gunzip = |name: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("testdata")
                .join(name);
            let mut out = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()),
                &mut out,
            )
            .unwrap();
            out
        };
        let id = "95f4fd7980b85f6472fd9410568a04aa69ec2441";
        let debug_dir = dir.join("usr/lib/debug/.build-id").join(&id[..2]);
        std::fs::create_dir_all(&debug_dir).unwrap();
        std::fs::write(dir.join("tiny"), gunzip("perf-data-tiny.gz")).unwrap();
        std::fs::write(
            debug_dir.join(format!("{}.debug", &id[2..])),
            gunzip("perf-data-tiny-debug.gz"),
        )
        .unwrap();
        let search = SearchPath {
            symfs: vec![dir.clone()],
            buildid_cache: None,
        };
        let build_id: Vec<u8> = (0..id.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&id[i..i + 2], 16).unwrap())
            .collect();
        let found = load_dso("/tiny", Some(&build_id), &search);
        let _ = std::fs::remove_dir_all(&dir);
        let Found::Elf(elf) = found else {
            panic!("not read")
        };
        assert!(elf.debug_file);
        let name = |addr: u64| elf.symbols.find(addr).map(|s| s.0.to_string());
        // `.plt` at 0x1020: the header, then printf's and strtoul's stubs (.rela.plt).
        assert_eq!(name(0x1024).as_deref(), Some("@plt"));
        assert_eq!(name(0x1030).as_deref(), Some("printf@plt"));
        assert_eq!(name(0x104f).as_deref(), Some("strtoul@plt"));
    }

    #[test]
    fn symbols_at_one_address_keep_the_best_and_zero_sizes_reach_the_next() {
        let t = SymbolTable::new(vec![
            (0x10, 0, Arc::from("b"), rank(true, false, false)),
            (0x10, 4, Arc::from("a_global"), rank(true, true, false)),
            (0x20, 0, Arc::from("z"), rank(true, true, false)),
            (0x30, 4, Arc::from("y"), rank(true, true, false)),
        ]);
        assert_eq!(t.find(0x12).map(|s| &**s.0), Some("a_global"));
        assert_eq!(t.find(0x15), None);
        assert_eq!(t.find(0x2f).map(|s| &**s.0), Some("z"));
        assert_eq!(t.find(0x34), None);
        assert_eq!(t.find(0x5), None);
    }

    #[test]
    fn names_are_demangled_as_perf_prints_them() {
        assert_eq!(
            demangle("_ZN6WorkerIdE3runEd.isra.0"),
            "Worker<double>::run"
        );
        assert_eq!(
            demangle("_ZN12_GLOBAL__N_14leafEd"),
            "(anonymous namespace)::leaf"
        );
        assert_eq!(
            demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
            "core::ptr::drop_in_place"
        );
        assert_eq!(demangle("main"), "main");
        // A v0 name with a BOLT suffix, from rustc's own library: perf prints it without.
        assert_eq!(
            demangle(
                "_RNvXsC_NtCsdadwybgsbvk_12rustc_middle3mirNtB5_4BodyNtNtCsgEmfK2I1SDS_4core5clone5Clone5clone.warm"
            ),
            "<rustc_middle::mir::Body as core::clone::Clone>::clone"
        );
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
        });
        let a = with_elf!(&whole, |f| parse_elf(&f, &path), Elf::default());
        let b = with_elf!(&parts, |f| parse_elf(&f, &path), Elf::default());
        let u = with_elf!(&parts, |f| unwind_sections(&f), UnwindSections::default());
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
        });
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
    }

    #[test]
    fn the_vdso_is_looked_for_in_the_build_id_cache_only() {
        let search = SearchPath {
            symfs: Vec::new(),
            buildid_cache: Some(PathBuf::from("cache")),
        };
        let id = [0xab, 0xcd, 0xef];
        assert_eq!(
            search.candidates("[vdso]", Some(&id)),
            [
                PathBuf::from("cache/.build-id/ab/cdef/vdso"),
                PathBuf::from("cache/.build-id/ab/cdef")
            ]
        );
        assert_eq!(
            search.candidates("/bin/x", Some(&id))[..2],
            [
                PathBuf::from("/bin/x"),
                PathBuf::from("cache/.build-id/ab/cdef/elf")
            ]
        );
        assert!(search.candidates("[vdso]", None).is_empty());
    }

    #[test]
    fn of_kernel_symbols_at_one_address_the_last_is_named() {
        let k = Kallsyms::parse(
            "ffffffff821f4320 T memcpy\nffffffff821f4320 T __pi_memcpy\nffffffff821f4400 T next\n",
        );
        assert_eq!(
            k.find(0xffff_ffff_821f_4330).map(|f| &**f.0),
            Some("__pi_memcpy")
        );
    }

    #[test]
    fn kallsyms_with_modules_and_hidden_addresses() {
        let k = Kallsyms::parse(
            "ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffffc0000000 t ext4_fn\t[ext4]\n",
        );
        assert_eq!(
            k.find(0xffff_ffff_8100_0104).map(|s| &**s.0),
            Some("helper")
        );
        let (name, module) = k.find(0xffff_ffff_c000_0001).unwrap();
        assert_eq!((&**name, module.map(|m| &**m)), ("ext4_fn", Some("ext4")));
        assert!(!k.hidden);
        let hidden = Kallsyms::parse("0000000000000000 T _stext\n0000000000000000 t x\n");
        assert!(hidden.hidden && hidden.is_empty());
    }
}
