//! One ELF file parsed (its symbols, segments and PLT entries) and what it answers: the
//! address of a file offset, its unwind sections, the inline chain at an address.

use std::path::Path;
use std::sync::Arc;

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, ObjectSymbolTable};

use super::source::{Source, open_for_sections, with_elf};
use super::{CodeSections, Elf, RawSymbol, SymbolTable, UnwindSections, demangle, rank};
use crate::input::perf_data::dwarf::FileDwarf;
use crate::profile::source::{Arch, MOST_CODE_BYTES};

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

    /// The machine code of `[start, end)` (a function's addresses) from the binary itself
    /// (not its debug file, whose code sections hold nothing), at most
    /// [`MOST_CODE_BYTES`], and its instruction set; `None` when no code section holds
    /// `start`.
    pub fn code_bytes(&self, start: u64, end: u64) -> Option<(Vec<u8>, Arch)> {
        use std::os::unix::fs::FileExt as _;
        let code = self
            .code
            .get_or_init(|| {
                let path = &self.unwind_files.0;
                let source = open_for_sections(path)?;
                let (sections, arch) = with_elf!(&source, |file| Some(code_sections(&file)), None)?;
                Some(CodeSections {
                    file: std::fs::File::open(path).ok()?,
                    sections,
                    arch,
                })
            })
            .as_ref()?;
        let &(address, size, offset) = code
            .sections
            .iter()
            .find(|&&(a, size, _)| start >= a && start - a < size)?;
        let len = end
            .saturating_sub(start)
            .min(MOST_CODE_BYTES as u64)
            .min(address + size - start);
        let mut bytes = vec![0; usize::try_from(len).ok()?];
        code.file
            .read_exact_at(&mut bytes, offset + (start - address))
            .ok()?;
        Some((bytes, code.arch))
    }

    /// The sections the unwinder needs, read on first use: `.eh_frame` and its header from
    /// the file (and where `.text` is), `.debug_frame` from it or its debug file.
    pub fn unwind_sections(&self) -> Option<&UnwindSections> {
        self.unwind
            .get_or_init(|| {
                let (main, debug) = &self.unwind_files;
                let source = open_for_sections(main)?;
                let direct = |at, size| source.section(at, size);
                let mut u = with_elf!(&source, |file| unwind_sections(&file, &direct), return None);
                if u.debug_frame.is_none()
                    && let Some(dsource) = debug.as_ref().and_then(|d| open_for_sections(d))
                {
                    let direct = |at, size| dsource.section(at, size);
                    u.debug_frame = with_elf!(
                        &dsource,
                        |dfile| section_data(&dfile, ".debug_frame", &direct).map(|s| s.1),
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
    /// order here, perf's sample order there (docs/semantics.md, perf.data deviations).
    ///
    /// With `lines`, each name comes with its source line: the innermost frame's is the
    /// line of `svma`, an outer frame's the line its inner one was inlined at (what
    /// `addr2line -i` and perf's srcline print for each). Without, none, and no line table
    /// is read for them.
    pub fn inline_frames(&self, svma: u64, lines: bool) -> Vec<(Arc<str>, Option<SrcLine>)> {
        let Some(dwarf) = self.dwarf() else {
            return Vec::new();
        };
        let Some(found) = dwarf.frames(svma, lines) else {
            return Vec::new();
        };
        // binutils' state is per DWARF function: DIE offsets within the unit, and the unit.
        let unit = found.unit as u64;
        let linkage_lang = found.lang.is_some_and(names_are_linkage);
        // (DIE offset, raw name, linkage-named, line) innermost first.
        let chain: Vec<(u64, String, bool, Option<SrcLine>)> = found
            .frames
            .into_iter()
            .filter_map(|f| {
                let raw = f.name?;
                let linkage = raw.starts_with("_Z") || raw.starts_with("_R") || linkage_lang;
                Some((f.die as u64, raw, linkage, f.line))
            })
            .take(256)
            .collect();
        let Some(&(outer_die, _, _, _)) = chain.last() else {
            return Vec::new();
        };
        let mut state = self.a2l_names.borrow_mut();
        let mut out = Vec::with_capacity(chain.len());
        for (i, (die, raw, linkage, line)) in chain.iter().enumerate() {
            let st = state.entry((unit, outer_die, *die)).or_default();
            let mut name: Option<Arc<str>> = st.renamed.clone();
            if i == 0 && !*linkage && !st.settled {
                st.settled = true;
                let table = self.a2l_symbols.as_ref().unwrap_or(&self.symbols);
                if let Some(sym) = table.find_symbol(svma) {
                    let start = usize::try_from(*die)
                        .ok()
                        .and_then(|d| dwarf.die_start(found.unit, d));
                    if start == Some(sym.start) {
                        st.renamed = Some(sym.name.clone());
                    }
                    name = Some(sym.name.clone());
                }
            }
            let raw = name.as_deref().unwrap_or(raw);
            out.push((Arc::from(&*demangle(raw)), line.clone()));
        }
        out
    }

    /// The source line of `svma` (its innermost inlined code's), as `addr2line` without
    /// `-i` and perf's srcline of a frame give it; `None` without DWARF or a line there.
    pub fn line_of(&self, svma: u64) -> Option<SrcLine> {
        self.dwarf()?.line_of(svma)
    }

    /// The file's DWARF, read on first use.
    fn dwarf(&self) -> Option<&FileDwarf> {
        self.dwarf
            .get_or_init(|| {
                let source = open_for_sections(self.dwarf_file.as_ref()?)?;
                let paged = |at, size| source.paged(at, size);
                with_elf!(&source, |file| FileDwarf::load(&file, &paged), None)
            })
            .as_ref()
    }
}

/// A code section: `(address, size, file offset)`.
type CodeRange = (u64, u64, u64);

/// The code sections of a file, and its instruction set.
fn code_sections<'d, R: object::ReadRef<'d>>(file: &object::File<'d, R>) -> (Vec<CodeRange>, Arch) {
    let arch = match file.architecture() {
        object::Architecture::X86_64 => Arch::X86_64,
        _ => Arch::Other,
    };
    let sections = file
        .sections()
        .filter(|s| s.kind() == object::SectionKind::Text)
        .filter_map(|s| {
            let (offset, size) = s.file_range()?;
            Some((s.address(), size.min(s.size()), offset))
        })
        .collect();
    (sections, arch)
}

pub use crate::input::perf_data::dwarf::SrcLine;

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

/// Symbols and segments of one parsed file, and where its DWARF and unwind sections are.
pub(super) fn parse_elf<'d, R: object::ReadRef<'d>>(
    file: &object::File<'d, R>,
    path: &Path,
) -> Elf {
    parse_elf_with(file, path, Vec::new())
}

/// As [`parse_elf`], with `extra` symbols in its table (a debug file's: the binary's
/// PLT entries).
pub(super) fn parse_elf_with<'d, R: object::ReadRef<'d>>(
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
        code: std::cell::OnceCell::new(),
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

/// A section's address range and bytes (inflated), by name; `direct` as in
/// [`section_bytes`].
fn section_data<'d, R: object::ReadRef<'d>>(
    file: &object::File<'d, R>,
    name: &str,
    direct: Direct,
) -> Option<(std::ops::Range<u64>, Arc<[u8]>)> {
    let s = file.section_by_name(name)?;
    if s.kind() == object::SectionKind::UninitializedData {
        return None;
    }
    let data = section_bytes(&s, direct)?;
    let range = s.address()..s.address().saturating_add(s.size());
    Some((range, data))
}

/// Reads a section that is not compressed straight from the file (see [`section_bytes`]).
type Direct<'a> = &'a dyn Fn(u64, u64) -> Option<Arc<[u8]>>;

/// The bytes of `section`, inflated when it is compressed; `direct` reads one that is not
/// straight from the file when it can (`(offset, size)`; `None`: through the parsed file,
/// then copied).
fn section_bytes<'d, S: object::ObjectSection<'d>>(
    section: &S,
    direct: Direct,
) -> Option<Arc<[u8]>> {
    let plain = section
        .compressed_file_range()
        .ok()
        .filter(|r| r.format == object::CompressionFormat::None);
    plain
        .and_then(|r| direct(r.offset, r.uncompressed_size))
        .or_else(|| Some(Arc::from(&*section.uncompressed_data().ok()?)))
}

/// The unwinder's sections of `file` (`direct` as in [`section_bytes`]).
pub(super) fn unwind_sections<'d, R: object::ReadRef<'d>>(
    file: &object::File<'d, R>,
    direct: Direct,
) -> UnwindSections {
    UnwindSections {
        text: file
            .section_by_name(".text")
            .map(|s| s.address()..s.address().saturating_add(s.size())),
        eh_frame: section_data(file, ".eh_frame", direct),
        eh_frame_hdr: section_data(file, ".eh_frame_hdr", direct),
        debug_frame: section_data(file, ".debug_frame", direct).map(|s| s.1),
        got: file
            .section_by_name(".got")
            .map(|s| s.address()..s.address().saturating_add(s.size())),
    }
}
