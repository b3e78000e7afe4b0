//! Stage: the DWARF of one ELF file → the inline frames and the source line at an
//! address, for perf script's inline frames ([`super::symbols::Elf::inline_frames`]),
//! answered as addr2line's `find_frames` and `find_location` answer them (the tests
//! compare the two address by address), except where binutils, which perf asks, answers
//! otherwise: a range list written as an index (`DW_FORM_rnglistx`) gives a function no
//! range ([`function::RangeAttrs::take_as_binutils`]). What is kept is little:
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
mod refs;
mod units;

use std::cell::{OnceCell, RefCell};
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
            let Some(function) = function::function_at(functions, probe) else {
                // addr2line stops at the first unit with a line there, function or not.
                if self.place(offset, &unit, &state, probe).is_some() {
                    return None;
                }
                continue;
            };
            let uref = gimli::UnitRef::new(&self.dwarf, &unit);
            let chain = function::chain(uref, function, probe, &|u, v| self.name_of(u, v)).ok()?;
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
        if let Some(unit) = to_back(&mut recent, offset) {
            return Some(unit.clone());
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
            to_back(&mut self.kept.borrow_mut(), offset);
            return lines.clone();
        }
        let lines = Rc::new(Lines::parse(unit));
        *state.lines.borrow_mut() = Some(lines.clone());
        let rows = lines.as_ref().as_ref().map_or(0, Lines::len);
        let mut kept = self.kept.borrow_mut();
        kept.push_back((offset, rows));
        let mut total: usize = kept.iter().map(|k| k.1).sum();
        while total > self.kept_limit && kept.len() > 1 {
            let Some((old, n)) = kept.pop_front() else {
                break;
            };
            total -= n;
            if let Some(s) = self.units.borrow().get(&old) {
                *s.lines.borrow_mut() = None;
            }
        }
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
}

/// The value under `key` in a list kept least recently used first, moved to the end.
fn to_back<T>(list: &mut VecDeque<(usize, T)>, key: usize) -> Option<&T> {
    let i = list.iter().position(|(k, _)| *k == key)?;
    let hit = list.remove(i)?;
    list.push_back(hit);
    list.back().map(|(_, v)| v)
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
mod tests;
