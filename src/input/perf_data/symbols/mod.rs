//! Stage: perf.data addresses → names. The ELF files a recording's mmap events name (or
//! their separate debug files, found by build id), their symbol tables, DWARF inline
//! information and unwind sections, and the kernel's symbol table (`/proc/kallsyms`).
//!
//! Names are made as `perf script` prints them: C++ demangled without parameters, a
//! symbol that contains the address (zero-sized symbols reach to the next one), inlined
//! frames from DWARF named by their linkage name (or their plain name without one), an
//! inlined frame whose name equals the symbol's being the symbol's own frame.
//!
//! This file holds the symbol table, what one ELF file gives, and the search for a DSO's
//! file; `source` reads a file (whole, or in parts), `elf` parses one and answers its
//! questions (addresses, unwind sections, inline chains), `names` demangles, and
//! `kallsyms` reads the kernel's table.

mod elf;
mod kallsyms;
mod names;
mod source;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use object::Object;

use super::dwarf::FileDwarf;
pub use elf::SrcLine;
use elf::{parse_elf, parse_elf_with};
pub use kallsyms::Kallsyms;
pub use names::demangle;
use source::{Source, open_for_symbols, with_elf};

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

    /// The addresses `[start, end)` of the symbol holding `addr`.
    pub fn range_of(&self, addr: u64) -> Option<(u64, u64)> {
        self.find_symbol(addr).map(|s| (s.start, s.end))
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
    /// The file's code sections, found on first use (for the machine code of functions
    /// without lines).
    code: std::cell::OnceCell<Option<CodeSections>>,
    /// Unwind information for `--call-graph dwarf`, read on first use (a frame-pointer
    /// recording needs none).
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
    /// What binutils' addr2line has come to call each DWARF function (see
    /// [`Elf::inline_frames`]).
    a2l_names: std::cell::RefCell<rustc_hash::FxHashMap<(u64, u64, u64), A2lName>>,
}

/// A binary opened for its machine code: its code sections `(address, size, file offset)`
/// and instruction set.
#[derive(Debug)]
struct CodeSections {
    file: std::fs::File,
    sections: Vec<(u64, u64, u64)>,
    arch: crate::profile::source::Arch,
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
    /// `.text`'s address range (its pointer encodings are relative to it). Its bytes are
    /// not read: framehop analyses instructions for Mach-O and PE only, as an ELF file's
    /// `.eh_frame` covers prologues and epilogues (for flametui's own binary, 8.5 MB
    /// read for nothing).
    pub text: Option<std::ops::Range<u64>>,
    /// `.eh_frame`.
    pub eh_frame: Option<(std::ops::Range<u64>, Arc<[u8]>)>,
    /// `.eh_frame_hdr`.
    pub eh_frame_hdr: Option<(std::ops::Range<u64>, Arc<[u8]>)>,
    /// `.debug_frame`.
    pub debug_frame: Option<Arc<[u8]>>,
    /// `.got`'s range.
    pub got: Option<std::ops::Range<u64>>,
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
        let Some(source) = open_for_symbols(&candidate) else {
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
        open_for_symbols(&path).map(|c| (path, c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
