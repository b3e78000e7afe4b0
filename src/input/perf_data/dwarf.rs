//! Stage: the DWARF of one ELF file → the addr2line context that knows an address, for
//! perf script's inline frames ([`super::symbols::Elf::inline_frames`]).
//!
//! A context of the whole file parses the header, abbreviations and line program header
//! of every compilation unit before it answers anything: 32 ms for libc's debug file
//! (1,800 units), about as long as inflating its sections, for the handful of units a
//! profile's addresses fall in. So `.debug_aranges` (address → unit) is read first, and a
//! context is made of the one unit that holds an address, when it is asked about; units
//! share the inflated sections. The whole-file context is still made, once, for an
//! address no arange covers (rustc and clang write no `.debug_aranges`; addr2line then
//! reads every unit's own ranges), and for files whose units refer into one another
//! (`DW_FORM_ref_addr`, dwz's `DW_FORM_GNU_ref_alt`, `DW_FORM_ref_sup*`: a unit alone
//! would miss the names it refers to).

use std::cell::OnceCell;
use std::sync::Arc;

use gimli::{RunTimeEndian, SectionId};

use super::paged::{Bytes, Paged};

/// The section bytes addr2line reads.
pub type Slice = Bytes;
/// An addr2line context over some of a file's units.
pub type Context = addr2line::Context<Slice>;

/// A file's DWARF: its sections, inflated once, and contexts made on first use.
pub struct FileDwarf {
    /// The sections read, by id (the others are empty).
    sections: Vec<(SectionId, Slice)>,
    endian: RunTimeEndian,
    /// `(start, end, unit)` address ranges from `.debug_aranges`, by start; `unit`
    /// indexes `units`.
    ranges: Vec<(u64, u64, u32)>,
    /// Each unit aranges names: its offset in `.debug_info` and its context.
    units: Vec<(usize, OnceCell<Option<Context>>)>,
    /// Units refer to DIEs of other units: only the whole-file context is used.
    linked: bool,
    whole: OnceCell<Option<Context>>,
}

/// A context that knows an address, and the offset in `.debug_info` of the unit it was
/// made of (`None` for the whole-file context).
pub struct Found<'a> {
    /// The context.
    pub context: &'a Context,
    /// Where its unit starts in the file's `.debug_info`.
    pub unit: Option<usize>,
}

impl std::fmt::Debug for FileDwarf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileDwarf")
            .field("units", &self.units.len())
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
                sections.push((id, Bytes::memory(Arc::from(&*data), endian)));
            }
        }
        let mut me = FileDwarf {
            sections,
            endian,
            ranges: Vec::new(),
            units: Vec::new(),
            linked: false,
            whole: OnceCell::new(),
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
    /// (its addresses go to the whole-file context).
    fn read_aranges(&mut self) {
        let Some(aranges) = self.section(SectionId::DebugAranges).cloned() else {
            return;
        };
        let aranges = gimli::DebugAranges::from(aranges);
        let mut headers = aranges.headers();
        let mut unit_of = rustc_hash::FxHashMap::default();
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
                            set.push((r.begin, r.end));
                        }
                    }
                    Ok(None) => break,
                    Err(_) => {
                        whole = false;
                        break;
                    }
                }
            }
            if !whole {
                continue;
            }
            let next = u32::try_from(self.units.len()).unwrap_or(u32::MAX);
            let unit = *unit_of.entry(offset).or_insert_with(|| {
                self.units.push((offset, OnceCell::new()));
                next
            });
            self.ranges
                .extend(set.into_iter().map(|(b, e)| (b, e, unit)));
        }
        self.ranges.sort_unstable_by_key(|r| r.0);
    }

    /// The context to ask about `probe`: its unit's, or the whole file's.
    pub fn context_for(&self, probe: u64) -> Option<Found<'_>> {
        let at = self.ranges.partition_point(|r| r.0 <= probe);
        let hit = at
            .checked_sub(1)
            .and_then(|i| self.ranges.get(i))
            .filter(|r| probe < r.1);
        if let Some(&(_, _, unit)) = hit
            && let Some((offset, cell)) = self.units.get(unit as usize)
            && let Some(context) = cell.get_or_init(|| self.unit_context(*offset))
        {
            return Some(Found {
                context,
                unit: Some(*offset),
            });
        }
        let context = self
            .whole
            .get_or_init(|| Context::from_dwarf(self.dwarf(None)?).ok())
            .as_ref()?;
        Some(Found {
            context,
            unit: None,
        })
    }

    /// A context of the one unit at `offset` of `.debug_info`.
    fn unit_context(&self, offset: usize) -> Option<Context> {
        use gimli::Reader;
        let mut unit = self.section(SectionId::DebugInfo)?.clone();
        let header = gimli::DebugInfo::from(unit.clone())
            .header_from_offset(gimli::DebugInfoOffset(offset))
            .ok()?;
        unit.skip(offset).ok()?;
        unit.truncate(header.length_including_self()).ok()?;
        Context::from_dwarf(self.dwarf(Some(&unit))?).ok()
    }

    /// The sections as gimli reads them; with `info`, that `.debug_info` and no
    /// `.debug_aranges` (a one-unit context finds its unit's ranges in the unit).
    fn dwarf(&self, info: Option<&Slice>) -> Option<gimli::Dwarf<Slice>> {
        let empty = Bytes::memory(Arc::from(&[][..]), self.endian);
        let mut dwarf = gimli::Dwarf::load(|id| -> Result<Slice, gimli::Error> {
            Ok(match (id, info) {
                (SectionId::DebugInfo, Some(unit)) => (*unit).clone(),
                (SectionId::DebugAranges, Some(_)) => empty.clone(),
                _ => self.section(id).cloned().unwrap_or_else(|| empty.clone()),
            })
        })
        .ok()?;
        // Units that share an abbreviation table share it parsed (rustc: 1,974 units, 405
        // tables in flametui's own binary; 19 MB of them parsed once per unit), as
        // addr2line's own loader does.
        dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
        Some(dwarf)
    }
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

/// Whether an attribute of `.debug_abbrev` has a form that refers outside its unit:
/// `DW_FORM_ref_addr`, `DW_FORM_ref_sup4`, `DW_FORM_ref_sup8`, `DW_FORM_GNU_ref_alt`.
/// An abbreviation table is `code tag children (name form [value])* 0 0`, tables end with
/// code 0; a table that does not parse counts as referring (the safe answer).
fn refers_across_units(abbrev: &[u8]) -> bool {
    use gimli::Reader as _;
    use gimli::leb128::read::unsigned;
    const CROSS: [u64; 4] = [0x10, 0x1c, 0x24, 0x1f20];
    const IMPLICIT_CONST: u64 = 0x21;
    // LEB128 has no byte order.
    let mut r = gimli::EndianSlice::new(abbrev, gimli::LittleEndian);
    let mut cross = || -> gimli::Result<bool> {
        while !r.is_empty() {
            if unsigned(&mut r)? == 0 {
                continue; // the end of one table
            }
            // The tag, then the children byte.
            unsigned(&mut r)?;
            r.read_u8()?;
            loop {
                let (name, form) = (unsigned(&mut r)?, unsigned(&mut r)?);
                if name == 0 && form == 0 {
                    break;
                }
                if CROSS.contains(&form) {
                    return Ok(true);
                }
                if form == IMPLICIT_CONST {
                    gimli::leb128::read::signed(&mut r)?;
                }
            }
        }
        Ok(false)
    };
    cross().unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_that_refer_across_units_are_found() {
        // code 1, DW_TAG_subprogram, no children, (DW_AT_name, DW_FORM_string), end;
        // end of table.
        let plain = [1, 0x2e, 0, 0x03, 0x08, 0, 0, 0];
        assert!(!refers_across_units(&plain));
        // The same with DW_AT_abstract_origin as DW_FORM_ref_addr.
        let cross = [1, 0x2e, 0, 0x31, 0x10, 0, 0, 0];
        assert!(refers_across_units(&cross));
        // DW_FORM_GNU_ref_alt (0x1f20: two LEB128 bytes), after an implicit constant.
        let alt = [1, 0x2e, 0, 0x0b, 0x21, 0x7f, 0x31, 0xa0, 0x3e, 0, 0, 0];
        assert!(refers_across_units(&alt));
        // Cut in the middle of an attribute: the safe answer.
        assert!(refers_across_units(&[1, 0x2e, 0, 0x31]));
        assert!(!refers_across_units(&[]));
    }

    /// The names of the frames at `probe`, innermost first, with their DIE offsets.
    fn frames(context: &Context, probe: u64) -> Vec<(Option<usize>, String)> {
        let mut out = Vec::new();
        let mut it = context.find_frames(probe).skip_all_loads().unwrap();
        while let Ok(Some(f)) = it.next() {
            let name = f.function.map(|n| n.raw_name().unwrap().into_owned());
            out.push((f.dw_die_offset.map(|o| o.0), name.unwrap_or_default()));
        }
        out
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

    /// At every address of `text`, the context `dwarf` gives answers as `whole`; how many
    /// addresses a unit's context answered, and how many have inlined frames.
    fn same_frames(
        dwarf: &FileDwarf,
        whole: &Context,
        text: std::ops::Range<u64>,
    ) -> (usize, usize) {
        let (mut by_unit, mut inlined) = (0, 0);
        for probe in text {
            let found = dwarf.context_for(probe).unwrap();
            let got = frames(found.context, probe);
            assert_eq!(got, frames(whole, probe), "{probe:#x}");
            by_unit += usize::from(found.unit.is_some());
            inlined += usize::from(got.len() > 1);
        }
        (by_unit, inlined)
    }

    /// At every address of the C++ test binary's code, the context of the unit that
    /// aranges names gives the frames the whole file's context gives, and so do sections
    /// read from the file in pages.
    #[test]
    fn a_unit_alone_answers_as_the_whole_file() {
        use object::{Object, ObjectSection};
        let bytes = cxx_binary();
        let file = object::File::parse(&bytes[..]).unwrap();
        let dwarf = FileDwarf::load(&file, &|_, _| None).unwrap();
        assert!(!dwarf.linked);
        assert!(!dwarf.units.is_empty() && !dwarf.ranges.is_empty());
        let whole = Context::from_dwarf(dwarf.dwarf(None).unwrap()).unwrap();
        let text = file.section_by_name(".text").unwrap();
        let text = text.address()..text.address() + text.size();
        let (by_unit, inlined) = same_frames(&dwarf, &whole, text.clone());
        // Most of the code is in a unit aranges names, some of it inlined.
        assert!(by_unit > 0x100, "{by_unit}");
        assert!(inlined > 0, "{inlined}");
        // An address outside every arange is asked of the whole file.
        assert!(dwarf.context_for(0).is_some_and(|f| f.unit.is_none()));

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
        assert_eq!(same_frames(&paged, &whole, text), (by_unit, inlined));
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
                    let Some(found) = dwarf.context_for(probe) else {
                        continue;
                    };
                    if let Ok(mut it) = found.context.find_frames(probe).skip_all_loads() {
                        for _ in 0..64 {
                            match it.next() {
                                Ok(Some(f)) => {
                                    named += usize::from(
                                        f.function.is_some_and(|n| n.raw_name().is_ok()),
                                    );
                                }
                                Ok(None) | Err(_) => break,
                            }
                        }
                    }
                    let _ = found.context.find_location(probe);
                }
            }
            answered += usize::from(named > 0);
        }
        let _ = std::fs::remove_file(&path);
        // Some damage leaves answers (a name, a line), some leaves none.
        assert!(answered > 2 && answered < ranges.len() * 2, "{answered}");
    }
}
