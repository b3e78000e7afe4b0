//! Stage: the DWARF of one ELF file → the inline frames and the source line at an
//! address, for perf script's inline frames ([`super::symbols::Elf::inline_frames`]),
//! answered as addr2line's `find_frames` and `find_location` answer them (the tests
//! compare the two address by address) while keeping little:
//!
//! - Units: `.debug_aranges` (address → unit) is read first. Every unit's own ranges are
//!   read only for an address no arange covers (rustc and clang write no aranges), or
//!   when units refer into one another (`DW_FORM_ref_addr`, dwz's `DW_FORM_GNU_ref_alt`,
//!   `DW_FORM_ref_sup*`), as addr2line's whole-file context reads them. Of a unit asked
//!   about, its functions' address ranges are kept (24 bytes each); its header,
//!   abbreviations and line program header only for the last few ([`RECENT_UNITS`]).
//! - Functions: the one function holding an address is read again for each question (the
//!   caller keeps each address's answer); none of its inlined subroutines is kept.
//! - Lines: a unit's line table is read only when a line is asked for (or no function
//!   holds the address), kept at 16 bytes a row without the rows that change only the
//!   column, and at most [`KEPT_ROWS`] rows over all units, the least recently used
//!   dropped first.
//!
//! addr2line's contexts kept every unit's header, abbreviations and line program header,
//! and every row of every line table they read: 44 MB of line tables for a recording of
//! flametui itself (docs/performance.md).

mod function;
mod lines;
mod units;

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use gimli::{RunTimeEndian, SectionId};
use rustc_hash::FxHashMap;

use super::paged::{Bytes, Paged};
use function::FunctionRange;
use lines::Lines;
use units::{Index, refers_across_units, root_of};

/// The section bytes gimli reads.
pub type Slice = Bytes;

/// A source file and line, as DWARF names them.
pub type SrcLine = (Arc<str>, u32);

/// Units parsed (gimli's header, abbreviations, line program header) kept at once.
const RECENT_UNITS: usize = 8;

/// Line-table rows kept, over every unit (16 bytes each: 16 MB; the 37 units a recording
/// of flametui itself falls in hold 900,000); the unit asked about last is kept whatever
/// its size, the others dropped least recently used first and read again when asked
/// about.
const KEPT_ROWS: usize = 1 << 20;

/// A file's DWARF: its sections, inflated once, what is known of the units asked about.
pub struct FileDwarf {
    /// The sections read, by id (the others are empty).
    sections: Vec<(SectionId, Slice)>,
    dwarf: gimli::Dwarf<Slice>,
    /// `(start, end, unit)` address ranges from `.debug_aranges`, by start; `unit` is its
    /// offset in `.debug_info`.
    aranges: Vec<(u64, u64, usize)>,
    /// Units refer to DIEs of other units: every unit's ranges are read ([`Index`]).
    linked: bool,
    /// Every unit's ranges, read when an address no arange covers is asked about.
    index: OnceCell<Index>,
    /// Every unit's offset, in order, read when a name refers into another unit.
    starts: OnceCell<Vec<usize>>,
    /// The units asked about, by offset.
    units: RefCell<FxHashMap<usize, Rc<UnitState>>>,
    /// Units parsed, the last used last.
    recent: RefCell<VecDeque<(usize, Rc<gimli::Unit<Slice>>)>>,
    /// The units whose line table is kept, least recently used first, with its rows.
    kept: RefCell<VecDeque<(usize, usize)>>,
    kept_rows: Cell<usize>,
    /// The most rows kept ([`KEPT_ROWS`]; tests make it small).
    kept_limit: usize,
}

/// What is kept of a unit once asked about.
struct UnitState {
    lang: Option<gimli::DwLang>,
    /// The address ranges its first DIE declares; `None`: it declares none.
    own: Option<Vec<(u64, u64)>>,
    /// Its functions' ranges (`None`: its DIEs do not read).
    functions: OnceCell<Option<Box<[FunctionRange]>>>,
    /// Its line table, while kept (`Some(None)`: it has none).
    lines: RefCell<Option<Rc<Option<Lines>>>>,
    /// The paths of its line program's files asked about.
    files: RefCell<FxHashMap<u64, Option<Arc<str>>>>,
}

/// The frames at an address, innermost first (the outermost is the function itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inlined {
    /// The offset in `.debug_info` of the unit that holds the function.
    pub unit: usize,
    /// The unit's language.
    pub lang: Option<gimli::DwLang>,
    /// The frames.
    pub frames: Vec<Frame>,
}

/// One frame of [`Inlined`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Its DIE's offset in the unit.
    pub die: usize,
    /// Its raw name (linkage name first), if it has one.
    pub name: Option<String>,
    /// Its source line: the address's for the innermost frame, where the next one inward
    /// was inlined for the others.
    pub line: Option<SrcLine>,
}

impl std::fmt::Debug for FileDwarf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileDwarf")
            .field("aranges", &self.aranges.len())
            .field("linked", &self.linked)
            .finish_non_exhaustive()
    }
}

impl FileDwarf {
    /// Reads (inflating) the DWARF sections of `file`; `None` without `.debug_info`.
    /// `paged` opens a large section that is not compressed to be read from the file in
    /// pages, when it can (`(offset, size)`; `None`: read whole through `file`).
    pub fn load<'d, R: object::ReadRef<'d>>(
        file: &object::File<'d, R>,
        paged: &dyn Fn(u64, u64) -> Option<Paged>,
    ) -> Option<Self> {
        Self::load_with(file, paged, PAGED)
    }

    /// As [`FileDwarf::load`], sections from `least` bytes on read in pages.
    fn load_with<'d, R: object::ReadRef<'d>>(
        file: &object::File<'d, R>,
        paged: &dyn Fn(u64, u64) -> Option<Paged>,
        least: u64,
    ) -> Option<Self> {
        use object::{CompressionFormat, Object, ObjectSection};
        file.section_by_name(".debug_info")?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let mut sections = Vec::new();
        for id in SECTIONS {
            let Some(section) = file.section_by_name(id.name()) else {
                continue;
            };
            let plain = section
                .compressed_file_range()
                .ok()
                .filter(|r| r.format == CompressionFormat::None && r.uncompressed_size >= least);
            if let Some(paged) = plain.and_then(|r| paged(r.offset, r.uncompressed_size)) {
                sections.push((id, Bytes::paged(paged, endian)));
            } else if let Ok(data) = section.uncompressed_data() {
                sections.push((id, Bytes::memory(data.into_owned(), endian)));
            }
        }
        let dwarf = gimli_dwarf(&sections, endian)?;
        let mut me = FileDwarf {
            sections,
            dwarf,
            aranges: Vec::new(),
            linked: false,
            index: OnceCell::new(),
            starts: OnceCell::new(),
            units: RefCell::default(),
            recent: RefCell::default(),
            kept: RefCell::default(),
            kept_rows: Cell::new(0),
            kept_limit: KEPT_ROWS,
        };
        me.linked = me
            .section(SectionId::DebugAbbrev)
            .map(gimli::Reader::to_slice)
            .is_some_and(|a| a.map_or(true, |a| refers_across_units(&a)));
        if !me.linked {
            me.read_aranges();
        }
        Some(me)
    }

    fn section(&self, id: SectionId) -> Option<&Slice> {
        self.sections.iter().find(|(i, _)| *i == id).map(|(_, s)| s)
    }

    /// The ranges and units of `.debug_aranges`; a set that does not parse is left out
    /// (its addresses are looked up in every unit's own ranges).
    fn read_aranges(&mut self) {
        let mut headers = self.dwarf.debug_aranges.headers();
        while let Ok(Some(header)) = headers.next() {
            let offset = header.debug_info_offset().0;
            let mut set = Vec::new();
            let mut entries = header.entries();
            let mut whole = true;
            loop {
                match entries.next() {
                    Ok(Some(e)) => {
                        let r = e.range();
                        if r.begin < r.end {
                            set.push((r.begin, r.end, offset));
                        }
                    }
                    Ok(None) => break,
                    Err(_) => {
                        whole = false;
                        break;
                    }
                }
            }
            if whole {
                self.aranges.extend(set);
            }
        }
        self.aranges.sort_unstable_by_key(|r| r.0);
    }

    /// The frames at `probe`, as addr2line's `find_frames` gives them; `None` when no
    /// function holds it (or its DWARF does not read). Without `lines`, no source lines
    /// (and no line table read when a function holds the address).
    pub fn frames(&self, probe: u64, lines: bool) -> Option<Inlined> {
        for offset in self.units_at(probe) {
            let Some((unit, state)) = self.unit(offset) else {
                continue;
            };
            let functions = state
                .functions
                .get_or_init(|| function::functions(gimli::UnitRef::new(&self.dwarf, &unit)).ok());
            let functions = functions.as_ref()?;
            let Some(die) = function::function_at(functions, probe) else {
                // addr2line stops at the first unit with a line there, function or not.
                if self.place(offset, &unit, &state, probe).is_some() {
                    return None;
                }
                continue;
            };
            let uref = gimli::UnitRef::new(&self.dwarf, &unit);
            let chain = function::chain(uref, die, probe, &|u, v| self.name_of(u, v)).ok()?;
            let mut line = if lines {
                self.place(offset, &unit, &state, probe)
                    .and_then(|p| self.src_line(&unit, &state, Some(p.file), p.line))
            } else {
                None
            };
            let mut frames = Vec::with_capacity(chain.len());
            for f in chain.into_iter().rev() {
                frames.push(Frame {
                    die: f.die,
                    name: f.name,
                    line: line.take(),
                });
                if lines && let Some((file, call_line)) = f.call {
                    line = self.src_line(&unit, &state, file, call_line);
                }
            }
            return Some(Inlined {
                unit: offset,
                lang: state.lang,
                frames,
            });
        }
        None
    }

    /// The source line of `probe` (its innermost inlined code's), as addr2line's
    /// `find_location` gives it: the first unit holding it with a line there.
    pub fn line_of(&self, probe: u64) -> Option<SrcLine> {
        for offset in self.units_at(probe) {
            let Some((unit, state)) = self.unit(offset) else {
                continue;
            };
            if let Some(p) = self.place(offset, &unit, &state, probe) {
                return self.src_line(&unit, &state, Some(p.file), p.line);
            }
        }
        None
    }

    /// The first address of the DIE at `die` of the unit at `unit` (binutils' `arange.low`,
    /// the first of its ranges).
    pub fn die_start(&self, unit: usize, die: usize) -> Option<u64> {
        let (unit, _) = self.unit(unit)?;
        let uref = gimli::UnitRef::new(&self.dwarf, &unit);
        let entry = uref.entry(gimli::UnitOffset(die)).ok()?;
        let mut ranges = uref.die_ranges(&entry).ok()?;
        ranges.next().ok().flatten().map(|r| r.begin)
    }

    /// The units to ask about `probe`, in order: the one aranges names (when its own
    /// ranges hold it, as a context of that unit alone would answer), else those whose
    /// ranges hold it.
    fn units_at(&self, probe: u64) -> Vec<usize> {
        if !self.linked {
            let at = self.aranges.partition_point(|r| r.0 <= probe);
            let hit = at
                .checked_sub(1)
                .and_then(|i| self.aranges.get(i))
                .filter(|r| probe < r.1);
            if let Some(&(_, _, offset)) = hit
                && let Some((unit, state)) = self.unit(offset)
            {
                let holds = |r: &(u64, u64)| r.0 <= probe && probe < r.1;
                let owns = match &state.own {
                    Some(own) => own.iter().any(holds),
                    None => self
                        .lines(offset, &unit, &state)
                        .as_ref()
                        .as_ref()
                        .is_some_and(|l| l.ranges().any(|r| holds(&r))),
                };
                return if owns { vec![offset] } else { Vec::new() };
            }
        }
        self.index
            .get_or_init(|| Index::read(&self.dwarf))
            .find(probe)
    }

    /// The unit at `offset`, parsed, and what is kept of it; `None` when it does not parse.
    fn unit(&self, offset: usize) -> Option<(Rc<gimli::Unit<Slice>>, Rc<UnitState>)> {
        let unit = self.parsed(offset)?;
        if let Some(state) = self.units.borrow().get(&offset) {
            return Some((unit, state.clone()));
        }
        let uref = gimli::UnitRef::new(&self.dwarf, &unit);
        let root = root_of(uref).ok()?;
        let state = Rc::new(UnitState {
            lang: root.lang,
            own: root.own,
            functions: OnceCell::new(),
            lines: RefCell::default(),
            files: RefCell::default(),
        });
        self.units.borrow_mut().insert(offset, state.clone());
        Some((unit, state))
    }

    /// The unit at `offset` parsed by gimli, from the recent ones or parsed again.
    fn parsed(&self, offset: usize) -> Option<Rc<gimli::Unit<Slice>>> {
        let mut recent = self.recent.borrow_mut();
        if let Some(i) = recent.iter().position(|(o, _)| *o == offset) {
            let hit = recent.remove(i)?;
            let unit = hit.1.clone();
            recent.push_back(hit);
            return Some(unit);
        }
        let header = self
            .dwarf
            .unit_header(gimli::DebugInfoOffset(offset))
            .ok()?;
        let unit = Rc::new(self.dwarf.unit(header).ok()?);
        if recent.len() >= RECENT_UNITS {
            recent.pop_front();
        }
        recent.push_back((offset, unit.clone()));
        Some(unit)
    }

    /// The unit's line table, read unless kept; keeping it may drop others'.
    fn lines(
        &self,
        offset: usize,
        unit: &gimli::Unit<Slice>,
        state: &UnitState,
    ) -> Rc<Option<Lines>> {
        if let Some(lines) = state.lines.borrow().as_ref() {
            // The last used is dropped last.
            let mut kept = self.kept.borrow_mut();
            if let Some(i) = kept.iter().position(|k| k.0 == offset)
                && let Some(k) = kept.remove(i)
            {
                kept.push_back(k);
            }
            return lines.clone();
        }
        let lines = Rc::new(Lines::parse(unit));
        *state.lines.borrow_mut() = Some(lines.clone());
        let rows = lines.as_ref().as_ref().map_or(0, Lines::len);
        let mut kept = self.kept.borrow_mut();
        kept.push_back((offset, rows));
        let mut total = self.kept_rows.get() + rows;
        while total > self.kept_limit && kept.len() > 1 {
            let Some((old, n)) = kept.pop_front() else {
                break;
            };
            total -= n;
            if let Some(s) = self.units.borrow().get(&old) {
                *s.lines.borrow_mut() = None;
            }
        }
        self.kept_rows.set(total);
        lines
    }

    /// Where `probe` is in the unit's line table.
    fn place(
        &self,
        offset: usize,
        unit: &gimli::Unit<Slice>,
        state: &UnitState,
        probe: u64,
    ) -> Option<lines::Place> {
        self.lines(offset, unit, state)
            .as_ref()
            .as_ref()?
            .find(probe)
    }

    /// File `file` of the unit's line program and `line`, when both are known (`line` 0:
    /// none).
    fn src_line(
        &self,
        unit: &gimli::Unit<Slice>,
        state: &UnitState,
        file: Option<u64>,
        line: u32,
    ) -> Option<SrcLine> {
        if line == 0 {
            return None;
        }
        let file = file?;
        let path = state
            .files
            .borrow_mut()
            .entry(file)
            .or_insert_with(|| lines::file_path(&self.dwarf, unit, file))
            .clone()?;
        Some((path, line))
    }

    /// The name a reference (`DW_AT_abstract_origin`, `DW_AT_specification`) leads to, in
    /// this unit or another, followed at most 16 times (as addr2line).
    fn name_of(
        &self,
        unit: gimli::UnitRef<'_, Slice>,
        value: gimli::AttributeValue<Slice>,
    ) -> gimli::Result<Option<Slice>> {
        let mut value = value;
        let mut other: Option<Rc<gimli::Unit<Slice>>> = None;
        for _ in 0..16 {
            let here = match &other {
                Some(u) => gimli::UnitRef::new(&self.dwarf, u),
                None => unit,
            };
            let (name, next) = match value {
                gimli::AttributeValue::UnitRef(at) => function::name_at(here, at)?,
                gimli::AttributeValue::DebugInfoRef(at) => {
                    let u = self.unit_holding(at.0)?;
                    let at = gimli::DebugInfoOffset(at.0)
                        .to_unit_offset(&u.header)
                        .ok_or(gimli::Error::NoEntryAtGivenOffset(at.0 as u64))?;
                    let found = function::name_at(gimli::UnitRef::new(&self.dwarf, &u), at)?;
                    other = Some(u);
                    found
                }
                _ => return Ok(None),
            };
            match (name, next) {
                (Some(n), _) => return Ok(Some(n)),
                (None, Some(next)) => value = next,
                (None, None) => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The unit that holds `.debug_info` offset `at`.
    fn unit_holding(&self, at: usize) -> gimli::Result<Rc<gimli::Unit<Slice>>> {
        let starts = self.starts.get_or_init(|| {
            let mut out = Vec::new();
            let mut headers = self.dwarf.units();
            while let Ok(Some(h)) = headers.next() {
                if let Some(o) = h.debug_info_offset() {
                    out.push(o.0);
                }
            }
            out
        });
        let missing = gimli::Error::NoEntryAtGivenOffset(at as u64);
        let i = match starts.binary_search(&at) {
            Ok(_) | Err(0) => return Err(missing),
            Err(i) => i - 1,
        };
        self.parsed(starts[i]).ok_or(missing)
    }
}

/// The index of the item of `items` (sorted by start, not overlapping) whose `[start,
/// end)` holds `probe`, found by binary search as addr2line finds its functions and line
/// sequences (of overlapping ones, whichever the search meets).
fn holding<T>(items: &[T], probe: u64, range: impl Fn(&T) -> (u64, u64)) -> Option<usize> {
    use std::cmp::Ordering;
    items
        .binary_search_by(|item| {
            let (start, end) = range(item);
            if probe < start {
                Ordering::Greater
            } else if probe >= end {
                Ordering::Less
            } else {
                Ordering::Equal
            }
        })
        .ok()
}

/// The sections as gimli reads them.
fn gimli_dwarf(
    sections: &[(SectionId, Slice)],
    endian: RunTimeEndian,
) -> Option<gimli::Dwarf<Slice>> {
    let empty = Bytes::memory(Vec::new(), endian);
    gimli::Dwarf::load(|id| -> Result<Slice, gimli::Error> {
        Ok(sections
            .iter()
            .find(|(i, _)| *i == id)
            .map_or_else(|| empty.clone(), |(_, s)| s.clone()))
    })
    .ok()
}

/// A section that is not compressed is read from its file in pages from this size on
/// (the DWARF of small files, and compressed sections, are read whole).
const PAGED: u64 = 1 << 20;

/// The sections read. Location lists and macros are large and say nothing of functions
/// or lines: left compressed.
const SECTIONS: [SectionId; 11] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugTypes,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// addr2line's answer at `probe` (the oracle), in the terms of [`Inlined`]: the frames that
    /// have a DIE, and the unit; `None` without a function there.
    fn oracle(ctx: &addr2line::Context<Slice>, probe: u64) -> Option<Inlined> {
        let mut frames = Vec::new();
        let mut it = ctx.find_frames(probe).skip_all_loads().ok()?;
        let mut lang = None;
        while let Ok(Some(f)) = it.next() {
            let Some(die) = f.dw_die_offset else { continue };
            lang = f.function.as_ref().and_then(|n| n.language).or(lang);
            let line = f.location.as_ref().and_then(|l| {
                let line = l.line.filter(|&n| n > 0)?;
                Some((Arc::from(l.file?), line))
            });
            frames.push(Frame {
                die: die.0,
                name: f.function.map(|n| n.raw_name().unwrap().into_owned()),
                line,
            });
        }
        if frames.is_empty() {
            return None;
        }
        let unit = ctx.find_dwarf_and_unit(probe).skip_all_loads()?;
        let unit = unit.header.debug_info_offset()?.0;
        Some(Inlined { unit, lang, frames })
    }

    /// addr2line's context of the whole file, over the same sections.
    fn whole(dwarf: &FileDwarf) -> addr2line::Context<Slice> {
        use gimli::{Reader as _, Section as _};
        let endian = dwarf.dwarf.debug_info.reader().endian();
        addr2line::Context::from_dwarf(gimli_dwarf(&dwarf.sections, endian).unwrap()).unwrap()
    }

    /// At each of `probes`, `dwarf` gives addr2line's frames and line; how many addresses
    /// have frames, and how many of them inlined ones.
    fn same_answers(
        dwarf: &FileDwarf,
        whole: &addr2line::Context<Slice>,
        probes: impl Iterator<Item = u64>,
    ) -> (usize, usize) {
        let (mut found, mut inlined) = (0, 0);
        for probe in probes {
            let mut got = dwarf.frames(probe, true);
            let want = oracle(whole, probe);
            // addr2line gives a function without a name no language.
            if let (Some(g), Some(w)) = (&mut got, &want)
                && w.lang.is_none()
            {
                g.lang = None;
            }
            assert_eq!(got, want, "{probe:#x}");
            let line = whole.find_location(probe).ok().flatten().and_then(|l| {
                let line = l.line.filter(|&n| n > 0)?;
                Some((Arc::<str>::from(l.file?), line))
            });
            assert_eq!(dwarf.line_of(probe), line, "{probe:#x}");
            // Without lines: the same frames, no lines.
            let bare = dwarf.frames(probe, false);
            let stripped = got.map(|mut g| {
                g.frames.iter_mut().for_each(|f| f.line = None);
                g
            });
            assert_eq!(
                bare.map(|mut b| {
                    b.lang = stripped.as_ref().and_then(|s| s.lang);
                    b
                }),
                stripped
            );
            if let Some(w) = want {
                found += 1;
                inlined += usize::from(w.frames.len() > 1);
            }
        }
        (found, inlined)
    }

    /// The C++ test binary (`testdata/perf-data-cxx.gz`), with its DWARF.
    fn cxx_binary() -> Vec<u8> {
        use std::io::Read as _;
        let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/perf-data-cxx.gz");
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    /// At every address of the C++ test binary's code, the frames, their names, DIEs and
    /// lines are addr2line's, through `.debug_aranges` and through every unit's own
    /// ranges, with line tables kept or dropped after each question, and with sections
    /// read from the file in pages.
    #[test]
    fn frames_are_addr2lines_at_every_address_of_a_cxx_binary() {
        use object::{Object, ObjectSection};
        let bytes = cxx_binary();
        let file = object::File::parse(&bytes[..]).unwrap();
        let mut dwarf = FileDwarf::load(&file, &|_, _| None).unwrap();
        assert!(!dwarf.linked && !dwarf.aranges.is_empty());
        let whole = whole(&dwarf);
        let text = file.section_by_name(".text").unwrap();
        let text = text.address()..text.address() + text.size();
        let (found, inlined) = same_answers(&dwarf, &whole, text.clone());
        // Most of the code is in a function, some of it inlined.
        assert!(found > 0x100, "{found}");
        assert!(inlined > 0, "{inlined}");

        // Every unit's own ranges, as for a file without aranges.
        dwarf.aranges.clear();
        assert_eq!(same_answers(&dwarf, &whole, text.clone()), (found, inlined));

        // Line tables dropped after each question.
        let mut small = FileDwarf::load(&file, &|_, _| None).unwrap();
        small.kept_limit = 1;
        assert_eq!(same_answers(&small, &whole, text.clone()), (found, inlined));
        assert_eq!(small.kept.borrow().len(), 1);

        // Every section that is not compressed read from the file in pages.
        let path = std::env::temp_dir().join(format!("flametui-dwarf-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let open = |at, size| {
            let f = std::fs::File::open(&path).ok()?;
            Some(Paged::new(f, at, usize::try_from(size).ok()?))
        };
        let paged = FileDwarf::load_with(&file, &open, 0).unwrap();
        let _ = std::fs::remove_file(&path);
        let info = paged.section(SectionId::DebugInfo).unwrap();
        assert!(info.in_memory().is_none());
        assert_eq!(same_answers(&paged, &whole, text), (found, inlined));
    }

    /// At addresses across this test program's own code (Rust, whose units refer into
    /// one another, with std's units that have aranges), the answers are addr2line's.
    #[test]
    fn frames_are_addr2lines_across_a_rust_binary() {
        use object::{Object, ObjectSection};
        let exe = std::env::current_exe().unwrap();
        let bytes = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&bytes[..]).unwrap();
        let Some(mut dwarf) = FileDwarf::load(&file, &|_, _| None) else {
            eprintln!("skipped: this test program was built without DWARF");
            return;
        };
        dwarf.kept_limit = 1 << 14;
        let whole = whole(&dwarf);
        let text = file.section_by_name(".text").unwrap();
        // About 3,000 addresses spread over the code, none a multiple of the step's
        // factors only.
        let step = (text.size() / 3_000).max(1) | 1;
        let probes = (text.address()..text.address() + text.size()).step_by(step as usize);
        let (found, inlined) = same_answers(&dwarf, &whole, probes);
        assert!(found > 1_000, "{found}");
        assert!(inlined > 100, "{inlined}");
    }

    /// Any ELF file with DWARF named by `FLAMETUI_DWARF_ORACLE` (a debug file too: its code
    /// sections hold no bytes but keep their addresses), at 5,000 addresses spread over its
    /// code: the answers are addr2line's. Run by hand on binaries the tests do not hold:
    /// `FLAMETUI_DWARF_ORACLE=/path/to/binary cargo test --lib oracle_file -- --ignored`.
    #[test]
    #[ignore = "needs FLAMETUI_DWARF_ORACLE, a path"]
    fn frames_are_addr2lines_in_the_oracle_file() {
        use object::{Object, ObjectSection};
        let path = std::env::var_os("FLAMETUI_DWARF_ORACLE").expect("FLAMETUI_DWARF_ORACLE");
        let bytes = std::fs::read(&path).unwrap();
        let file = object::File::parse(&bytes[..]).unwrap();
        let dwarf = FileDwarf::load(&file, &|_, _| None).expect("no DWARF in the file");
        let whole = whole(&dwarf);
        let (mut found, mut inlined) = (0, 0);
        for text in file
            .sections()
            .filter(|s| s.kind() == object::SectionKind::Text || s.name() == Ok(".text"))
        {
            let step = (text.size() / 5_000).max(1) | 1;
            let probes = (text.address()..text.address() + text.size()).step_by(step as usize);
            let (f, i) = same_answers(&dwarf, &whole, probes);
            (found, inlined) = (found + f, inlined + i);
        }
        eprintln!("{found} addresses with frames, {inlined} with inlined ones");
    }

    /// DWARF with damaged bytes, read in pages from a file and in memory, answers with
    /// frames or with nothing: never a panic.
    #[test]
    fn damaged_dwarf_in_pages_or_in_memory_never_panics() {
        use object::{Object, ObjectSection};
        let bytes = cxx_binary();
        let (text, ranges) = {
            let file = object::File::parse(&bytes[..]).unwrap();
            let text = file.section_by_name(".text").unwrap();
            let ranges: Vec<(usize, usize)> = SECTIONS
                .iter()
                .filter_map(|id| file.section_by_name(id.name())?.file_range())
                .map(|(at, size)| (at as usize, size as usize))
                .collect();
            (text.address()..text.address() + text.size(), ranges)
        };
        let path = std::env::temp_dir().join(format!("flametui-damaged-{}", std::process::id()));
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut answered = 0;
        // Each section in turn, 8 of its bytes set to pseudo-random values, twice.
        for &(at, size) in ranges.iter().chain(&ranges) {
            let mut named = 0;
            let mut damaged = bytes.clone();
            for _ in 0..8 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let pos = at + (state >> 33) as usize % size.max(1);
                damaged[pos] = (state >> 25) as u8;
            }
            std::fs::write(&path, &damaged).unwrap();
            let file = object::File::parse(&damaged[..]).unwrap();
            let open = |at, size| {
                let f = std::fs::File::open(&path).ok()?;
                Some(Paged::new(f, at, usize::try_from(size).ok()?))
            };
            let loads = [
                FileDwarf::load_with(&file, &open, 0),
                FileDwarf::load(&file, &|_, _| None),
            ];
            for dwarf in loads.iter().flatten() {
                for probe in text.clone().step_by(5) {
                    if let Some(found) = dwarf.frames(probe, true) {
                        named += found.frames.iter().filter(|f| f.name.is_some()).count();
                        for f in &found.frames {
                            let _ = dwarf.die_start(found.unit, f.die);
                        }
                    }
                    let _ = dwarf.line_of(probe);
                }
            }
            answered += usize::from(named > 0);
        }
        let _ = std::fs::remove_file(&path);
        // Some damage leaves answers (a name, a line), some leaves none.
        assert!(answered > 2 && answered < ranges.len() * 2, "{answered}");
    }
}
