//! The units of a file's DWARF: which hold an address (every unit's ranges, as
//! addr2line's whole-file context reads them), what a unit's first DIE says, and whether
//! units refer into one another.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Slice;
use super::function::RangeAttrs;
use super::lines::Lines;

/// Every unit's address ranges, as addr2line's whole-file context orders them: by end,
/// then unit, each with the least start from it on (so a search stops early).
#[derive(Default)]
pub struct Index {
    /// `(begin, end, least begin from here on, unit offset)`.
    ranges: Vec<(u64, u64, u64, usize)>,
}

impl Index {
    /// The units whose ranges hold `probe`, in addr2line's order.
    pub fn find(&self, probe: u64) -> Vec<usize> {
        let pos = match self.ranges.binary_search_by_key(&probe, |r| r.1) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        let high = probe.saturating_add(1);
        let mut out: Vec<usize> = Vec::new();
        for &(begin, end, least, unit) in self.ranges.get(pos..).unwrap_or(&[]) {
            if high <= least {
                break;
            }
            if probe < end && high > begin {
                out.push(unit);
            }
        }
        out
    }

    /// Every unit's address ranges, as addr2line's whole-file context reads them: a unit's
    /// `DW_AT_ranges`, else its aranges, else its low and high address, else its line
    /// table's sequences. A unit that does not parse has none.
    pub fn read(dwarf: &gimli::Dwarf<Slice>) -> Self {
        let mut aranges: FxHashMap<usize, Vec<(u64, u64)>> = FxHashMap::default();
        let mut headers = dwarf.debug_aranges.headers();
        while let Ok(Some(header)) = headers.next() {
            let set = aranges.entry(header.debug_info_offset().0).or_default();
            let mut entries = header.entries();
            // Entries that do not read are skipped; one that stops the set ends it.
            for _ in 0..1 << 24 {
                match entries.next() {
                    Ok(Some(e)) if e.length() != 0 => set.push((e.range().begin, e.range().end)),
                    Ok(Some(_)) | Err(_) => {}
                    Ok(None) => break,
                }
            }
        }
        let mut ranges: Vec<(u64, u64, u64, usize)> = Vec::new();
        // Units share abbreviation tables (rustc: 1,974 units, 405 tables in flametui's own
        // binary): each parsed once here, and let go with the units.
        let mut tables: FxHashMap<usize, Arc<gimli::Abbreviations>> = FxHashMap::default();
        let mut units = dwarf.units();
        while let Ok(Some(header)) = units.next() {
            let Some(offset) = header.debug_info_offset().map(|o| o.0) else {
                continue;
            };
            match header.type_() {
                gimli::UnitType::Compilation
                | gimli::UnitType::Skeleton(_)
                | gimli::UnitType::SplitCompilation(_) => {}
                _ => continue,
            }
            let at = header.debug_abbrev_offset();
            let table = if let Some(t) = tables.get(&at.0) {
                t.clone()
            } else {
                let Ok(t) = dwarf.debug_abbrev.abbreviations(at) else {
                    continue;
                };
                let t = Arc::new(t);
                tables.insert(at.0, t.clone());
                t
            };
            let Ok(unit) = gimli::Unit::new_with_abbreviations(dwarf, header, table) else {
                continue;
            };
            let uref = gimli::UnitRef::new(dwarf, &unit);
            let mut add = |b: u64, e: u64| ranges.push((b, e, 0, offset));
            let Ok((attrs, _)) = root_attrs(uref) else {
                continue;
            };
            let found = if attrs.has_list() {
                attrs.each(uref, &mut add).unwrap_or(false)
            } else if let Some(set) = aranges.get(&offset).filter(|s| !s.is_empty()) {
                for &(b, e) in set {
                    add(b, e);
                }
                true
            } else {
                attrs.each(uref, &mut add).unwrap_or(false)
            };
            if !found && let Some(lines) = Lines::parse(&unit) {
                lines.ranges().for_each(|(b, e)| add(b, e));
            }
        }
        ranges.sort_unstable_by_key(|r| (r.1, r.3));
        let mut least = u64::MAX;
        for r in ranges.iter_mut().rev() {
            least = least.min(r.0);
            r.2 = least;
        }
        Self { ranges }
    }
}

/// A unit's first DIE: its address-range attributes and its language.
pub fn root_attrs(
    unit: gimli::UnitRef<'_, Slice>,
) -> gimli::Result<(RangeAttrs, Option<gimli::DwLang>)> {
    let mut entries = unit.entries_raw(None)?;
    let abbrev = entries
        .read_abbreviation()?
        .ok_or(gimli::Error::NoEntryAtGivenOffset(0))?;
    let mut ranges = RangeAttrs::default();
    let mut lang = None;
    for spec in abbrev.attributes() {
        let attr = entries.read_attribute(*spec)?;
        if let (gimli::DW_AT_language, gimli::AttributeValue::Language(l)) =
            (attr.name(), attr.value())
        {
            lang = Some(l);
        }
        ranges.take(unit, &attr)?;
    }
    Ok((ranges, lang))
}

/// What a unit's first DIE says of it.
pub struct Root {
    /// Its language.
    pub lang: Option<gimli::DwLang>,
    /// The address ranges it declares (`None`: none).
    pub own: Option<Vec<(u64, u64)>>,
}

/// What the unit's first DIE says of it.
pub fn root_of(unit: gimli::UnitRef<'_, Slice>) -> gimli::Result<Root> {
    let (attrs, lang) = root_attrs(unit)?;
    let mut own = Vec::new();
    let any = attrs.each(unit, |b, e| own.push((b, e)))?;
    Ok(Root {
        lang,
        own: any.then_some(own),
    })
}

/// Whether an attribute of `.debug_abbrev` has a form that refers outside its unit:
/// `DW_FORM_ref_addr`, `DW_FORM_ref_sup4`, `DW_FORM_ref_sup8`, `DW_FORM_GNU_ref_alt`.
/// An abbreviation table is `code tag children (name form [value])* 0 0`, tables end with
/// code 0; a table that does not parse counts as referring (the safe answer).
pub fn refers_across_units(abbrev: &[u8]) -> bool {
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
}
