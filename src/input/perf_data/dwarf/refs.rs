//! References between DIEs: the name an inlined subroutine or a function's declaration
//! refers to, in its own unit or another.

use std::rc::Rc;

use super::{FileDwarf, Slice, function};

impl FileDwarf {
    /// The name a reference (`DW_AT_abstract_origin`, `DW_AT_specification`) leads to, in
    /// this unit or another, followed at most 16 times (as addr2line).
    pub(super) fn name_of(
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
