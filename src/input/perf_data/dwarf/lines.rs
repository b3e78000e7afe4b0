//! A unit's line table, kept small: the file and line of each address range, without the
//! columns and without the rows that change neither (addr2line keeps every row, 24 bytes
//! each; a Rust unit's rows mostly change the column only).
//!
//! A lookup answers as addr2line's `Lines::find_location` does: the sequence holding the
//! address (sequences sorted by start, as addr2line sorts them), then its last row at or
//! before it; of rows at the same address, the last.

use std::num::NonZeroU64;
use std::sync::Arc;

use super::Slice;

/// One row: from `address` on (to the next row), `file` and `line` (0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    address: u64,
    file: u32,
    line: u32,
}

/// One sequence: `[start, end)`, its rows `rows[first..last]`.
#[derive(Debug)]
struct Sequence {
    start: u64,
    end: u64,
    first: u32,
    last: u32,
}

/// A unit's line table.
#[derive(Debug, Default)]
pub struct Lines {
    sequences: Box<[Sequence]>,
    rows: Box<[Row]>,
}

/// Where an address is: a file index of the unit's line program and a line (0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The index in the line program's file table.
    pub file: u64,
    /// The line, 0 when the row has none.
    pub line: u32,
}

impl Lines {
    /// Runs `unit`'s line program; `None` when it has none or it does not parse (addr2line
    /// then answers no location either).
    pub fn parse(unit: &gimli::Unit<Slice>) -> Option<Self> {
        let program = unit.line_program.clone()?;
        let mut rows = program.rows();
        let mut sequences = Vec::new();
        let mut kept: Vec<Row> = Vec::new();
        let mut pending: Vec<Row> = Vec::new();
        loop {
            let row = match rows.next_row() {
                Ok(Some((_, row))) => *row,
                Ok(None) => break,
                Err(_) => return None,
            };
            if row.end_sequence() {
                let (Some(first), end) = (pending.first().map(|r| r.address), row.address()) else {
                    continue;
                };
                if first < end {
                    let at = kept.len();
                    let mut last: Option<(u32, u32)> = None;
                    for r in pending.drain(..) {
                        if last != Some((r.file, r.line)) {
                            last = Some((r.file, r.line));
                            kept.push(r);
                        }
                    }
                    sequences.push(Sequence {
                        start: first,
                        end,
                        first: u32::try_from(at).ok()?,
                        last: u32::try_from(kept.len()).ok()?,
                    });
                }
                pending.clear();
                continue;
            }
            let next = Row {
                address: row.address(),
                file: u32::try_from(row.file_index()).unwrap_or(u32::MAX),
                // As addr2line: the line cut to 32 bits.
                #[allow(clippy::cast_possible_truncation)]
                line: row.line().map_or(0, NonZeroU64::get) as u32,
            };
            match pending.last_mut() {
                // Of rows at one address, the last counts.
                Some(last) if last.address == next.address => *last = next,
                _ => pending.push(next),
            }
        }
        sequences.sort_unstable_by_key(|s| s.start);
        Some(Self {
            sequences: sequences.into_boxed_slice(),
            rows: kept.into_boxed_slice(),
        })
    }

    /// The rows kept (what the table weighs, 16 bytes each).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The address ranges of the sequences, in the table's order.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sequences.iter().map(|s| (s.start, s.end))
    }

    /// Where `probe` is; `None` outside every sequence.
    pub fn find(&self, probe: u64) -> Option<Place> {
        let at = super::holding(&self.sequences, probe, |s| (s.start, s.end))?;
        let s = &self.sequences[at];
        let rows = self.rows.get(s.first as usize..s.last as usize)?;
        let i = rows
            .partition_point(|r| r.address <= probe)
            .checked_sub(1)?;
        let r = rows[i];
        Some(Place {
            file: u64::from(r.file),
            line: r.line,
        })
    }
}

/// The path of file `index` of `unit`'s line program as addr2line writes it: the unit's
/// directory, the file's directory (unless it is entry 0, the unit's own), the file's
/// name, each an absolute path replacing what came before. Entry 0 of a program before
/// DWARF 5, which has none, is the empty path. `None`: no such entry, or a name that
/// does not read.
pub fn file_path(
    dwarf: &gimli::Dwarf<Slice>,
    unit: &gimli::Unit<Slice>,
    index: u64,
) -> Option<Arc<str>> {
    use gimli::Reader as _;
    let header = unit.line_program.as_ref()?.header();
    let Some(file) = header.file(index) else {
        return (index == 0).then(|| Arc::from(""));
    };
    let uref = gimli::UnitRef::new(dwarf, unit);
    let mut path = match &unit.comp_dir {
        Some(dir) => dir.to_string_lossy().ok()?.into_owned(),
        None => String::new(),
    };
    if file.directory_index() != 0
        && let Some(dir) = file.directory(header)
    {
        push_path(
            &mut path,
            &uref.attr_string(dir).ok()?.to_string_lossy().ok()?,
        );
    }
    push_path(
        &mut path,
        &uref
            .attr_string(file.path_name())
            .ok()?
            .to_string_lossy()
            .ok()?,
    );
    Some(Arc::from(path))
}

/// Appends `part` to `path` with a separator, or replaces it when `part` is absolute (a
/// Unix root, a Windows root or drive), as addr2line does.
fn push_path(path: &mut String, part: &str) {
    let unix_root = |p: &str| p.starts_with('/') || p.get(1..3) == Some(":/");
    let windows_root = |p: &str| p.starts_with('\\') || p.get(1..3) == Some(":\\");
    if unix_root(part) || windows_root(part) {
        part.clone_into(path);
        return;
    }
    let sep = if windows_root(path) { '\\' } else { '/' };
    if !path.is_empty() && !path.ends_with(sep) {
        path.push(sep);
    }
    path.push_str(part);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_as_addr2line_joins_them() {
        let join = |parts: &[&str]| {
            let mut p = String::new();
            for part in parts {
                push_path(&mut p, part);
            }
            p
        };
        assert_eq!(join(&["/src", "lib", "a.rs"]), "/src/lib/a.rs");
        assert_eq!(join(&["/src/", "a.rs"]), "/src/a.rs");
        assert_eq!(
            join(&["/src", "/usr/include", "stdio.h"]),
            "/usr/include/stdio.h"
        );
        assert_eq!(join(&["", "a.c"]), "a.c");
        assert_eq!(join(&["C:\\src", "a.c"]), "C:\\src\\a.c");
        assert_eq!(join(&["/src", "C:/x", "a.c"]), "C:/x/a.c");
    }
}
