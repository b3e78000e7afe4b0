//! A unit's functions and the inline chain at an address, read from the DIEs as addr2line
//! reads them (its `Functions`, `Function` and `InlinedFunction`), the innermost frame
//! chosen as binutils chooses it (perf's answer; the same where ranges nest), without
//! keeping them: a unit keeps the address ranges of its functions (24 bytes each), and a
//! question reads the one function that holds its address again.

use gimli::{AttributeValue, UnitOffset};

use super::Slice;

/// An address range of a function: `[begin, end)`, its DIE.
#[derive(Debug, Clone, Copy)]
pub struct FunctionRange {
    begin: u64,
    end: u64,
    die: usize,
}

/// The address-range attributes of a DIE.
#[derive(Default)]
pub struct RangeAttrs {
    low: Option<u64>,
    high: Option<u64>,
    size: Option<u64>,
    list: Option<gimli::RangeListsOffset<usize>>,
}

impl RangeAttrs {
    /// Takes `attr` if it is one of them (`DW_AT_low_pc`, `DW_AT_high_pc`, `DW_AT_ranges`).
    pub fn take(
        &mut self,
        unit: gimli::UnitRef<'_, Slice>,
        attr: &gimli::Attribute<Slice>,
    ) -> gimli::Result<()> {
        match (attr.name(), attr.value()) {
            (gimli::DW_AT_low_pc, AttributeValue::Addr(a)) => self.low = Some(a),
            (gimli::DW_AT_low_pc, AttributeValue::DebugAddrIndex(i)) => {
                self.low = Some(unit.address(i)?);
            }
            (gimli::DW_AT_high_pc, AttributeValue::Addr(a)) => self.high = Some(a),
            (gimli::DW_AT_high_pc, AttributeValue::DebugAddrIndex(i)) => {
                self.high = Some(unit.address(i)?);
            }
            (gimli::DW_AT_high_pc, AttributeValue::Udata(n)) => self.size = Some(n),
            (gimli::DW_AT_ranges, value) => self.list = unit.attr_ranges_offset(value)?,
            _ => {}
        }
        Ok(())
    }

    /// As [`RangeAttrs::take`], a range list given as an index into `.debug_rnglists`
    /// (`DW_FORM_rnglistx`) left out: binutils 2.40 reads no range from it for a function
    /// or an inlined subroutine.
    pub fn take_as_binutils(
        &mut self,
        unit: gimli::UnitRef<'_, Slice>,
        attr: &gimli::Attribute<Slice>,
    ) -> gimli::Result<()> {
        if attr.name() == gimli::DW_AT_ranges
            && matches!(attr.value(), AttributeValue::DebugRngListsIndex(_))
        {
            return Ok(());
        }
        self.take(unit, attr)
    }

    /// Whether it has a range list (`DW_AT_ranges`).
    pub fn has_list(&self) -> bool {
        self.list.is_some()
    }

    /// Calls `f` with each non-empty range: the range list's, else low to high, else low
    /// and size (a -1 tombstone wraps and is empty). Whether there was one.
    pub fn each(
        &self,
        unit: gimli::UnitRef<'_, Slice>,
        mut f: impl FnMut(u64, u64),
    ) -> gimli::Result<bool> {
        let mut any = false;
        let mut add = |begin: u64, end: u64| {
            if begin < end {
                f(begin, end);
                any = true;
            }
        };
        if let Some(list) = self.list {
            let mut ranges = unit.ranges(list)?;
            while let Some(r) = ranges.next()? {
                add(r.begin, r.end);
            }
        } else if let (Some(low), Some(high)) = (self.low, self.high) {
            add(low, high);
        } else if let (Some(low), Some(size)) = (self.low, self.size) {
            add(low, low.wrapping_add(size));
        }
        Ok(any)
    }
}

/// The address ranges of every `DW_TAG_subprogram` of `unit`, by start.
pub fn functions(unit: gimli::UnitRef<'_, Slice>) -> gimli::Result<Box<[FunctionRange]>> {
    let mut out = Vec::new();
    let mut entries = unit.entries_raw(None)?;
    while !entries.is_empty() {
        let die = entries.next_offset().0;
        let Some(abbrev) = entries.read_abbreviation()? else {
            continue;
        };
        if abbrev.tag() != gimli::DW_TAG_subprogram {
            entries.skip_attributes(abbrev.attributes())?;
            continue;
        }
        let mut ranges = RangeAttrs::default();
        for spec in abbrev.attributes() {
            let attr = entries.read_attribute(*spec)?;
            ranges.take_as_binutils(unit, &attr)?;
        }
        ranges.each(unit, |begin, end| {
            out.push(FunctionRange { begin, end, die });
        })?;
    }
    // As addr2line: by start, overlaps not handled (identical functions folded into one
    // address range answer as whichever the search meets).
    out.sort_unstable_by_key(|f| f.begin);
    Ok(out.into_boxed_slice())
}

/// The DIE of the function whose range holds `probe`, and that range's length.
pub fn function_at(functions: &[FunctionRange], probe: u64) -> Option<(usize, u64)> {
    let i = super::holding(functions, probe, |f| (f.begin, f.end))?;
    let f = functions[i];
    Some((f.die, f.end - f.begin))
}

/// Finds the name a reference (`DW_AT_abstract_origin`, `DW_AT_specification`) of a DIE
/// of the unit leads to.
pub type Names<'a> =
    &'a dyn Fn(gimli::UnitRef<'_, Slice>, AttributeValue<Slice>) -> gimli::Result<Option<Slice>>;

/// A frame of an inline chain as the DIEs give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DieFrame {
    /// The DIE (offset in its unit).
    pub die: usize,
    /// Its raw name (linkage name first), if any.
    pub name: Option<String>,
    /// Where the next frame inward was inlined: file index and line (0: none); `None`
    /// for the innermost frame.
    pub call: Option<(Option<u64>, u32)>,
}

/// The inline chain at `probe` in the function of DIE `function`, outermost (the
/// function) first, each inlined frame with the place it was called from; `names` finds
/// a name through a reference (`DW_AT_abstract_origin`, `DW_AT_specification`).
pub fn chain(
    unit: gimli::UnitRef<'_, Slice>,
    (function, function_len): (usize, u64),
    probe: u64,
    names: Names<'_>,
) -> gimli::Result<Vec<DieFrame>> {
    let mut entries = unit.entries_raw(Some(UnitOffset(function)))?;
    let depth = entries.next_depth();
    let Some(abbrev) = entries.read_abbreviation()? else {
        return Err(gimli::Error::NoEntryAtGivenOffset(function as u64));
    };
    let name = read_name(unit, &mut entries, abbrev.attributes(), names, &mut |_| {
        Ok(())
    })?;

    let found = inlined_at(unit, &mut entries, depth, probe, function_len)?;

    let mut out = vec![DieFrame {
        die: function,
        name: name.as_ref().and_then(lossy),
        call: None,
    }];
    for die in found {
        let mut entries = unit.entries_raw(Some(UnitOffset(die)))?;
        let Some(abbrev) = entries.read_abbreviation()? else {
            return Err(gimli::Error::NoEntryAtGivenOffset(die as u64));
        };
        let (mut file, mut line) = (None, 0);
        let version = unit.header.version();
        let name = read_name(
            unit,
            &mut entries,
            abbrev.attributes(),
            names,
            &mut |attr| {
                match attr.name() {
                    // A file index 0 means none before DWARF 5, the first file from it on.
                    gimli::DW_AT_call_file => {
                        if let AttributeValue::FileIndex(fi) = attr.value()
                            && (fi > 0 || version >= 5)
                        {
                            file = Some(fi);
                        }
                    }
                    gimli::DW_AT_call_line => {
                        #[allow(clippy::cast_possible_truncation)]
                        let n = attr.udata_value().unwrap_or(0) as u32;
                        line = n;
                    }
                    _ => {}
                }
                Ok(())
            },
        )?;
        out.push(DieFrame {
            die,
            name: name.as_ref().and_then(lossy),
            call: Some((file, line)),
        });
    }
    Ok(out)
}

/// The DIEs of the inlined subroutines that hold `probe` in the function whose children
/// `entries` is at (the function at `depth`, its range holding `probe` `function_len`
/// long), outermost first, as binutils finds them (perf's `addr2line`): the innermost is
/// the inlined subroutine with the smallest range holding `probe` (of equal ones the later
/// DIE, and none when the function's own range is smaller), the others those around it.
/// Where each inlined subroutine's ranges lie within its caller's, as compilers write
/// them, that is addr2line's answer too (the tests compare the two). A range list given
/// as an index (`DW_FORM_rnglistx`, clang's DWARF 5) counts as no range, as binutils 2.40
/// reads it: perf leaves such an inlined frame out unless one inside it holds `probe`.
fn inlined_at(
    unit: gimli::UnitRef<'_, Slice>,
    entries: &mut gimli::EntriesRaw<'_, Slice>,
    depth: isize,
    probe: u64,
    function_len: u64,
) -> gimli::Result<Vec<usize>> {
    // Each inlined subroutine: its DIE and the one around it (an index here), and the
    // (depth, index) of those around the next entry.
    let mut dies: Vec<(usize, Option<usize>)> = Vec::new();
    let mut open: Vec<(isize, usize)> = Vec::new();
    // (length, index) of the smallest range holding `probe`.
    let mut best: Option<(u64, usize)> = None;
    while !entries.is_empty() {
        let die = entries.next_offset().0;
        let here = entries.next_depth();
        if here <= depth {
            break;
        }
        while open.last().is_some_and(|&(d, _)| here <= d) {
            open.pop();
        }
        let Some(abbrev) = entries.read_abbreviation()? else {
            continue;
        };
        match abbrev.tag() {
            gimli::DW_TAG_subprogram => {
                // A nested function is its own (addr2line skips it and what it holds).
                entries.skip_attributes(abbrev.attributes())?;
                while !entries.is_empty() && entries.next_depth() > here {
                    if let Some(a) = entries.read_abbreviation()? {
                        entries.skip_attributes(a.attributes())?;
                    }
                }
            }
            gimli::DW_TAG_inlined_subroutine => {
                let mut ranges = RangeAttrs::default();
                for spec in abbrev.attributes() {
                    let attr = entries.read_attribute(*spec)?;
                    ranges.take_as_binutils(unit, &attr)?;
                }
                let me = dies.len();
                dies.push((die, open.last().map(|&(_, i)| i)));
                ranges.each(unit, |b, e| {
                    let len = e - b;
                    if b <= probe && probe < e && best.is_none_or(|(l, _)| len <= l) {
                        best = Some((len, me));
                    }
                })?;
                open.push((here, me));
            }
            _ => entries.skip_attributes(abbrev.attributes())?,
        }
    }
    let mut found = Vec::new();
    let mut at = best.filter(|&(len, _)| len <= function_len).map(|(_, i)| i);
    while let Some(i) = at {
        found.push(dies[i].0);
        at = dies[i].1;
    }
    found.reverse();
    Ok(found)
}

/// Reads a DIE's attributes (`specs`, from `entries`), each also given to `other`; its
/// name: a linkage name, else `DW_AT_name`, else the name of what
/// `DW_AT_abstract_origin` or `DW_AT_specification` refers to, whichever comes first in
/// the DIE once a linkage name is ruled out (addr2line's order).
fn read_name(
    unit: gimli::UnitRef<'_, Slice>,
    entries: &mut gimli::EntriesRaw<'_, Slice>,
    specs: &[gimli::AttributeSpecification],
    names: Names<'_>,
    other: &mut dyn FnMut(&gimli::Attribute<Slice>) -> gimli::Result<()>,
) -> gimli::Result<Option<Slice>> {
    let mut name = None;
    for spec in specs {
        let attr = entries.read_attribute(*spec)?;
        match attr.name() {
            gimli::DW_AT_linkage_name | gimli::DW_AT_MIPS_linkage_name => {
                if let Ok(n) = unit.attr_string(attr.value()) {
                    name = Some(n);
                }
            }
            gimli::DW_AT_name => {
                if name.is_none() {
                    name = unit.attr_string(attr.value()).ok();
                }
            }
            gimli::DW_AT_abstract_origin | gimli::DW_AT_specification => {
                if name.is_none() {
                    name = names(unit, attr.value())?;
                }
            }
            _ => other(&attr)?,
        }
    }
    Ok(name)
}

/// The DIE at `offset` of `unit`: its linkage name, else its name; without either, what
/// it refers to for its name (the caller follows it, a bounded number of times).
pub fn name_at(
    unit: gimli::UnitRef<'_, Slice>,
    offset: UnitOffset,
) -> gimli::Result<(Option<Slice>, Option<AttributeValue<Slice>>)> {
    let mut entries = unit.entries_raw(Some(offset))?;
    let Some(abbrev) = entries.read_abbreviation()? else {
        return Err(gimli::Error::NoEntryAtGivenOffset(offset.0 as u64));
    };
    let (mut name, mut next) = (None, None);
    for spec in abbrev.attributes() {
        let attr = entries.read_attribute(*spec)?;
        match attr.name() {
            gimli::DW_AT_linkage_name | gimli::DW_AT_MIPS_linkage_name => {
                if let Ok(n) = unit.attr_string(attr.value()) {
                    return Ok((Some(n), None));
                }
            }
            gimli::DW_AT_name => {
                if let Ok(n) = unit.attr_string(attr.value()) {
                    name = Some(n);
                }
            }
            gimli::DW_AT_abstract_origin | gimli::DW_AT_specification => next = Some(attr.value()),
            _ => {}
        }
    }
    Ok(match name {
        Some(n) => (Some(n), None),
        None => (None, next),
    })
}

/// A name's text, invalid UTF-8 replaced; `None` when it does not read.
fn lossy(name: &Slice) -> Option<String> {
    use gimli::Reader as _;
    name.to_string_lossy()
        .ok()
        .map(std::borrow::Cow::into_owned)
}
