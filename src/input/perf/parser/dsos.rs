//! The DSOs of a perf script, numbered for the symbol cache's keys: few, each met on many
//! lines, so a line's DSO is looked up first in a small table of recent ones.

use rustc_hash::FxHashMap;

use crate::input::perf::cache::{INLINE, JAVA};

/// Places in the table of recent DSOs.
const RECENT: usize = 64;

/// The DSOs seen, by number.
#[derive(Debug)]
pub(super) struct Dsos {
    numbers: FxHashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// The number of the DSO last met at each place, placed by the name's length and
    /// last bytes (where DSO paths differ): most lines' DSO is found by one comparison,
    /// without hashing its whole path (a system-wide recording's lines go from one of 40
    /// libraries to another).
    recent: [u32; RECENT],
}

impl Default for Dsos {
    fn default() -> Self {
        Self {
            numbers: FxHashMap::default(),
            names: Vec::new(),
            recent: [0; RECENT],
        }
    }
}

impl Dsos {
    /// The number of a DSO name (below [`INLINE`] and [`JAVA`]).
    pub(super) fn number(&mut self, dso: &str) -> u32 {
        let place = place(dso.as_bytes());
        let recent = self.recent[place];
        if let Some(name) = self.names.get(recent as usize)
            && **name == *dso
        {
            return recent;
        }
        let n = if let Some(&n) = self.numbers.get(dso) {
            n
        } else {
            let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX) & !(JAVA | INLINE);
            self.numbers.insert(dso.into(), n);
            self.names.push(dso.into());
            n
        };
        self.recent[place] = n;
        n
    }
}

/// The place of a DSO name in the table of recent DSOs: from its length and its last 8
/// bytes (`libfoo.so.1`, `[kernel.kallsyms]`: paths differ at their end).
fn place(dso: &[u8]) -> usize {
    let tail = dso
        .len()
        .checked_sub(8)
        .and_then(|at| dso.get(at..))
        .map_or(0, |t| t.try_into().map_or(0, u64::from_le_bytes));
    let mixed = (tail ^ dso.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 58) as usize % RECENT
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name keeps its number, whether found in the recent table, in the map after
    /// its place was taken by another, or met first; names sharing a place stay apart.
    #[test]
    fn each_dso_keeps_its_number() {
        let names: Vec<String> = (0..300)
            .map(|i| format!("/usr/lib/libbench{i}.so.4"))
            .collect();
        let mut d = Dsos::default();
        let first: Vec<u32> = names.iter().map(|n| d.number(n)).collect();
        assert_eq!(first, (0..300).collect::<Vec<u32>>());
        for round in 0..3 {
            for (i, n) in names.iter().enumerate().rev() {
                assert_eq!(d.number(n), i as u32, "round {round}");
            }
        }
        assert_eq!(d.number("[kernel.kallsyms]"), 300);
        assert_eq!(d.number("x"), 301);
        assert_eq!(d.number("[kernel.kallsyms]"), 300);
    }
}
