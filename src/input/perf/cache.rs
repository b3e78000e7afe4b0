//! The parser's symbol cache: each symbol's frame names, made once and found again by the
//! bytes of the line.

use crate::profile::NameId;

/// The perf parser's symbol cache: a table of 4-byte offsets into one byte vector of
/// records `dso u32, ids u32, len u32, symbol bytes`, so that a hit reads the table (small
/// enough to stay in the core's cache while the input streams past) and one place in
/// memory, where the record's numbers and the symbol lie side by side.
///
/// - the symbol is without its offset (with `\0` and the address for an unknown symbol
///   when addresses are kept);
/// - `dso` is the DSO's number, and [`JAVA`] when read in a Java process (whose names are
///   tidied differently), and [`INLINE`] for an inlined frame of perf.data (one of text
///   has its own DSO, `(inlined)`);
/// - `ids` is the frame name (most symbols), or [`MANY`] and the index of its names (Java
///   inlining).
#[derive(Debug, Default)]
pub(super) struct SymbolCache {
    table: hashbrown::HashTable<u32>,
    records: Vec<u8>,
    /// The names of symbols that make several frames, root→leaf.
    many: Vec<Box<[NameId]>>,
}

const HEADER: usize = 12;

/// `(dso, ids, symbol)` of the record at `at`.
fn record(records: &[u8], at: u32) -> (u32, u32, &[u8]) {
    let at = at as usize;
    let word = |i: usize| {
        records
            .get(at + i..at + i + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(u32::MAX, u32::from_ne_bytes)
    };
    let len = word(8) as usize;
    let key = records
        .get(at + HEADER..at + HEADER + len)
        .unwrap_or_default();
    (word(0), word(4), key)
}

impl SymbolCache {
    /// The `ids` cached for `key` in `dso`.
    pub(super) fn get(&self, hash: u64, key: &[u8], dso: u32) -> Option<u32> {
        let at = *self.table.find(hash, |&at| {
            let (d, _, k) = record(&self.records, at);
            d == dso && k == key
        })?;
        Some(record(&self.records, at).1)
    }

    /// Appends the names of `ids` leaf first (the order of a sample's frames).
    pub(super) fn push_leaf_first(&self, ids: u32, frames: &mut Vec<NameId>) {
        if ids & MANY == 0 {
            frames.push(NameId(ids));
        } else if let Some(many) = self.many.get((ids & !MANY) as usize) {
            frames.extend(many.iter().rev());
        }
    }

    /// Caches `names` (root→leaf) for `key` in `dso`; nothing when the cache is full
    /// (4 GiB of symbols).
    pub(super) fn insert(&mut self, hash: u64, key: &[u8], dso: u32, names: Vec<NameId>) {
        let end = self.records.len() + HEADER + key.len();
        let (Ok(at), Ok(len), Ok(_)) = (
            u32::try_from(self.records.len()),
            u32::try_from(key.len()),
            u32::try_from(end),
        ) else {
            return;
        };
        let ids = match names.as_slice() {
            [one] if one.0 & MANY == 0 => one.0,
            _ => match u32::try_from(self.many.len()) {
                Ok(n) if n & MANY == 0 => {
                    self.many.push(names.into_boxed_slice());
                    MANY | n
                }
                _ => return,
            },
        };
        for word in [dso, ids, len] {
            self.records.extend_from_slice(&word.to_ne_bytes());
        }
        self.records.extend_from_slice(key);
        let Self { table, records, .. } = self;
        table.insert_unique(hash, at, |&at| {
            let (d, _, k) = record(records, at);
            cache_hash(k, d)
        });
    }
}

pub(super) const JAVA: u32 = 1 << 31;
pub(super) const INLINE: u32 = 1 << 30;

pub(super) fn cache_hash(key: &[u8], dso: u32) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(key);
    h.write_u32(dso);
    h.finish()
}
const MANY: u32 = 1 << 31;
