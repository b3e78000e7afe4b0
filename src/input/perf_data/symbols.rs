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

/// The most bytes read from one ELF or debug file (larger ones are not symbolised).
const MAX_ELF_BYTES: u64 = 1 << 31;

/// One symbol: its address range and demangled name.
#[derive(Debug, Clone)]
struct Symbol {
    start: u64,
    end: u64,
    name: Arc<str>,
    /// The raw names of every symbol at `start` (aliases), for naming inline chains.
    aliases: Arc<[Box<str>]>,
}

/// A symbol as read: address, size, demangled name, rank, raw name.
type RawSymbol = (u64, u64, Arc<str>, u8, Box<str>);

/// A sorted table of symbols.
#[derive(Debug, Default)]
pub struct SymbolTable {
    symbols: Vec<Symbol>,
}

impl SymbolTable {
    /// A table of `(address, size, name)` with perf's rules: of symbols at one address the
    /// best is kept, and a zero-sized symbol reaches to the next one.
    fn new(raw: Vec<(u64, u64, Arc<str>, u8)>) -> Self {
        Self::with_raw_names(
            raw.into_iter()
                .map(|(a, s, n, r)| (a, s, n, r, Box::from("")))
                .collect(),
        )
    }

    /// [`SymbolTable::new`], with each symbol's raw (mangled) name.
    fn with_raw_names(mut raw: Vec<RawSymbol>) -> Self {
        // Rank: higher is better (function, global, not weak: see `rank`); then fewer
        // leading underscores, then the longer name, then the first in the table, as
        // perf's choose_best_symbol.
        let underscores = |s: &str| s.bytes().take_while(|&b| b == b'_').count();
        raw.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.3.cmp(&a.3))
                .then(underscores(&a.2).cmp(&underscores(&b.2)))
                .then(b.2.len().cmp(&a.2.len()))
        });
        let mut aliases: Vec<Arc<[Box<str>]>> = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            let j = i + raw[i..].iter().take_while(|r| r.0 == raw[i].0).count();
            let names: Vec<Box<str>> = raw[i..j]
                .iter_mut()
                .map(|r| std::mem::take(&mut r.4))
                .collect();
            aliases.push(names.into());
            i = j;
        }
        raw.dedup_by(|later, first| later.0 == first.0);
        let mut symbols: Vec<Symbol> = Vec::with_capacity(raw.len());
        for (i, ((start, size, name, _, _), aliases)) in raw.iter().zip(aliases).enumerate() {
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
                aliases,
            });
        }
        Self { symbols }
    }

    /// The symbol whose range holds `addr`.
    pub fn find(&self, addr: u64) -> Option<(&Arc<str>, u64)> {
        self.find_symbol(addr).map(|s| (&s.name, s.start))
    }

    fn find_symbol(&self, addr: u64) -> Option<&Symbol> {
        let at = self.symbols.partition_point(|s| s.start <= addr);
        let s = self.symbols.get(at.checked_sub(1)?)?;
        (addr < s.end).then_some(s)
    }

    /// The name of the outermost function of an inline chain, as perf's addr2line names
    /// it: its DWARF name when a symbol at the function's address has that name, else the
    /// symbol's.
    pub fn outer_name(&self, addr: u64, dwarf_raw: &str, dwarf_name: Arc<str>) -> Arc<str> {
        match self.find_symbol(addr) {
            Some(s) if s.aliases.iter().any(|a| &**a == dwarf_raw) => dwarf_name,
            Some(s) => s.name.clone(),
            None => dwarf_name,
        }
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
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
    if (name.starts_with("_ZN") || name.starts_with("_R"))
        && let Ok(d) = rustc_demangle::try_demangle(name)
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
            return s.into();
        }
    }
    name.into()
}

/// The DWARF of one file, for inline frames.
pub type Dwarf = addr2line::Context<gimli::EndianArcSlice<gimli::RunTimeEndian>>;

/// What one ELF file gives: its symbols, the offset → address rule of its segments,
/// its DWARF and its unwind sections.
#[derive(Default)]
pub struct Elf {
    /// Symbols by address (file's own addresses, SVMAs).
    pub symbols: SymbolTable,
    /// `(file offset, size, address)` of its loadable segments.
    segments: Vec<(u64, u64, u64)>,
    /// The bytes of the file (this one or its debug file) that holds `.debug_info`.
    dwarf_file: Option<Arc<[u8]>>,
    /// Its DWARF, parsed on first use (only DWARF-unwound stacks show inline frames).
    dwarf: std::cell::OnceCell<Option<Dwarf>>,
    /// Unwind information for `--call-graph dwarf`.
    pub unwind: Option<UnwindSections>,
    /// The file read was the separate debug file found by build id.
    pub debug_file: bool,
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
            .find(|&&(off, size, _)| offset >= off && offset - off < size)
            .map(|&(off, _, vaddr)| offset - off + vaddr)
    }

    /// The segment (file offset, address) holding file offset `offset`, for the unwinder's
    /// base address.
    pub fn segment_of_offset(&self, offset: u64) -> Option<(u64, u64)> {
        self.segments
            .iter()
            .find(|&&(off, size, _)| offset >= off && offset - off < size.max(1))
            .map(|&(off, _, vaddr)| (off, vaddr))
    }

    /// The inline chain at `svma`, innermost first, the outermost (the function itself)
    /// named as [`SymbolTable::outer_name`] says (empty without DWARF).
    pub fn inline_names(&self, svma: u64) -> Vec<Arc<str>> {
        let dwarf = self.dwarf.get_or_init(|| {
            let bytes = self.dwarf_file.as_ref()?;
            let file = object::File::parse(&**bytes).ok()?;
            load_dwarf(&file)
        });
        let Some(dwarf) = dwarf else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let Ok(mut frames) = dwarf.find_frames(svma).skip_all_loads() else {
            return out;
        };
        let mut last_raw = String::new();
        while let Ok(Some(frame)) = frames.next() {
            let Some(function) = frame.function else {
                continue;
            };
            let raw: String = match function.raw_name() {
                Ok(r) => r.into_owned(),
                Err(_) => continue,
            };
            out.push(Arc::from(&*demangle(&raw)));
            last_raw = raw;
            if out.len() >= 256 {
                break;
            }
        }
        if let Some(outer) = out.pop() {
            out.push(self.symbols.outer_name(svma, &last_raw, outer));
        }
        out
    }
}

/// Reads a file of at most [`MAX_ELF_BYTES`].
fn read_limited(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ELF_BYTES {
        return None;
    }
    std::fs::read(path).ok()
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
}

impl SearchPath {
    fn candidates(&self, path: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let rel = path.trim_start_matches('/');
        for dir in &self.symfs {
            out.push(dir.join(rel));
            if let Some(base) = Path::new(path).file_name() {
                out.push(dir.join(base));
            }
        }
        if self.symfs.is_empty() {
            out.push(PathBuf::from(path));
        }
        out
    }
}

/// Opens the file of a DSO and, when its own has no symbol table, its separate debug file.
pub fn load_dso(path: &str, build_id: Option<&[u8]>, search: &SearchPath) -> Found {
    let mut changed = false;
    for candidate in search.candidates(path) {
        let Some(bytes) = read_limited(&candidate) else {
            continue;
        };
        let bytes: Arc<[u8]> = bytes.into();
        let Ok(file) = object::File::parse(&*bytes) else {
            return Found::Unreadable;
        };
        let own_id = file.build_id().ok().flatten();
        if let (Some(want), Some(have)) = (build_id, own_id)
            && want != have
        {
            changed = true;
            continue;
        }
        let mut elf = parse_elf(&file, &bytes, true);
        let id = build_id.or(own_id);
        if let Some(debug) = id.and_then(|id| debug_file(id, search)) {
            let debug: Arc<[u8]> = debug.into();
            if let Ok(dfile) = object::File::parse(&*debug) {
                // perf prefers the debug file's symbol table to the binary's.
                let d = parse_elf(&dfile, &debug, false);
                if !d.symbols.is_empty() {
                    elf.symbols = d.symbols;
                }
                if elf.dwarf_file.is_none() {
                    elf.dwarf_file = d.dwarf_file;
                }
                if let Some(u) = &mut elf.unwind
                    && u.debug_frame.is_none()
                {
                    u.debug_frame = section_data(&dfile, ".debug_frame").map(|s| s.1);
                }
                elf.debug_file = true;
            }
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
fn debug_file(build_id: &[u8], search: &SearchPath) -> Option<Vec<u8>> {
    use std::fmt::Write;
    let (first, rest) = build_id.split_first()?;
    let mut name = format!("usr/lib/debug/.build-id/{first:02x}/");
    for b in rest {
        let _ = write!(name, "{b:02x}");
    }
    name.push_str(".debug");
    let mut dirs: Vec<PathBuf> = search.symfs.clone();
    dirs.push(PathBuf::from("/"));
    dirs.iter().find_map(|d| read_limited(&d.join(&name)))
}

/// Symbols, segments, DWARF and unwind sections of one parsed file.
fn parse_elf(file: &object::File<'_>, bytes: &Arc<[u8]>, unwind: bool) -> Elf {
    let mut raw = Vec::new();
    let mut add = |sym: object::Symbol<'_, '_>| {
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
        raw.push((
            sym.address(),
            sym.size(),
            Arc::from(&*demangle(name)),
            r,
            Box::from(name),
        ));
    };
    // perf reads .symtab, or .dynsym when there is none.
    if file.symbol_table().is_some() {
        file.symbols().for_each(&mut add);
    } else {
        file.dynamic_symbols().for_each(&mut add);
    }
    plt_symbols(file, &mut raw);
    let segments = file
        .segments()
        .filter_map(|s| {
            let (off, size) = s.file_range();
            (size > 0).then_some((off, size, s.address()))
        })
        .collect();
    Elf {
        symbols: SymbolTable::with_raw_names(raw),
        segments,
        dwarf_file: file.section_by_name(".debug_info").map(|_| bytes.clone()),
        dwarf: std::cell::OnceCell::new(),
        unwind: unwind.then(|| unwind_sections(file)),
        debug_file: false,
    }
}

/// perf's synthesized `name@plt` symbols: one per `.rela.plt` entry, in `.plt.sec` when
/// there is one, else in `.plt` after its 16-byte header (x86-64).
fn plt_symbols(file: &object::File<'_>, raw: &mut Vec<RawSymbol>) {
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
        raw.push((
            addr,
            16,
            Arc::from(shown.as_str()),
            rank(true, true, false),
            Box::from(shown.as_str()),
        ));
    }
}

/// The bytes of a section by name (decompressed), owned.
fn section_data(file: &object::File<'_>, name: &str) -> Option<(std::ops::Range<u64>, Arc<[u8]>)> {
    let s = file.section_by_name(name)?;
    if s.kind() == object::SectionKind::UninitializedData {
        return None;
    }
    let data = s.uncompressed_data().ok()?;
    let range = s.address()..s.address().saturating_add(s.size());
    Some((range, Arc::from(&*data)))
}

fn unwind_sections(file: &object::File<'_>) -> UnwindSections {
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

/// The DWARF of a file for addr2line, when it has `.debug_info`.
fn load_dwarf(file: &object::File<'_>) -> Option<Dwarf> {
    file.section_by_name(".debug_info")?;
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let load = |id: gimli::SectionId| -> Result<_, gimli::Error> {
        let data: Arc<[u8]> = file
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok())
            .map_or_else(|| Arc::from(&[][..]), |d| Arc::from(&*d));
        Ok(gimli::EndianArcSlice::new(data, endian))
    };
    let dwarf = gimli::Dwarf::load(load).ok()?;
    addr2line::Context::from_dwarf(dwarf).ok()
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
            let module = it
                .next()
                .map(|m| Arc::from(m.trim_start_matches('[').trim_end_matches(']')));
            let global = kind == "T" || kind == "W";
            raw.push((addr, 0, Arc::from(name), rank(true, global, false)));
            modules.push((addr, module));
        }
        modules.sort_by_key(|m| m.0);
        modules.dedup_by_key(|m| m.0);
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
