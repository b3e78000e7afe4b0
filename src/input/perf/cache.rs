//! The parser's symbol cache: each symbol's frame names, made once and found again by the
//! bytes of the line.

use crate::profile::NameId;

/// The perf parser's symbol cache: a table of slots pointing into one byte vector of
/// records `dso u32, ids u32, len u32, symbol bytes`, so that a hit reads one slot and
/// one place in memory, where the record's numbers and the symbol lie side by side.
///
/// - the symbol is without its offset (with `\0` and the address for an unknown symbol
///   when addresses are kept);
/// - `dso` is the DSO's number, and [`JAVA`] when read in a Java process (whose names are
///   tidied differently), and [`INLINE`] for an inlined frame of perf.data (one of text
///   has its own DSO, `(inlined)`);
/// - `ids` is the frame name (most symbols), or [`MANY`] and the index of its names (Java
///   inlining).
///
/// The table is probed linearly, each slot holding a record's offset and 32 more bits of
/// its hash: a lookup reads the slot where the hash points (and the next ones on a
/// collision), then the one record whose hash bits match. With tens of thousands of
/// symbols met in no order (a system-wide recording), table and records stay out of the
/// core's nearest caches: every load waited on is a miss, and a general hash table's
/// control bytes are one more.
#[derive(Debug, Default)]
pub(super) struct SymbolCache {
    slots: Vec<Slot>,
    /// Symbols cached.
    len: usize,
    records: Vec<u8>,
    /// The names of symbols that make several frames, root→leaf.
    many: Vec<Box<[NameId]>>,
}

/// A slot of the table: the record's offset plus one (0: empty), and the hash's high
/// bits.
#[derive(Debug, Default, Clone, Copy)]
struct Slot {
    at: u32,
    tag: u32,
}

const HEADER: usize = 12;

/// Slots of a new table (a power of two).
const FIRST_SLOTS: usize = 1024;

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

/// The hash bits a slot keeps.
fn tag(hash: u64) -> u32 {
    (hash >> 32) as u32
}

impl SymbolCache {
    /// The `ids` cached for `key` in `dso`.
    pub(super) fn get(&self, hash: u64, key: &[u8], dso: u32) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.at == 0 {
                return None;
            }
            if s.tag == tag(hash) {
                let (d, ids, k) = record(&self.records, s.at - 1);
                if d == dso && k == key {
                    return Some(ids);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Appends the names of `ids` leaf first (the order of a sample's frames).
    pub(super) fn push_leaf_first(&self, ids: u32, frames: &mut Vec<NameId>) {
        if ids & MANY == 0 {
            frames.push(NameId(ids));
        } else if let Some(many) = self.many.get((ids & !MANY) as usize) {
            frames.extend(many.iter().rev());
        }
    }

    /// Caches `names` (root→leaf) for `key` in `dso`, which [`SymbolCache::get`] did not
    /// find; nothing when the cache is full (4 GiB of symbols).
    pub(super) fn insert(&mut self, hash: u64, key: &[u8], dso: u32, names: Vec<NameId>) {
        let end = self.records.len() + HEADER + key.len();
        let (Ok(at), Ok(len), Ok(_)) = (
            u32::try_from(self.records.len() + 1),
            u32::try_from(key.len()),
            u32::try_from(end + 1),
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
        // At most half full: a hit reads about one slot, a miss about two.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        for word in [dso, ids, len] {
            self.records.extend_from_slice(&word.to_ne_bytes());
        }
        self.records.extend_from_slice(key);
        place(&mut self.slots, Slot { at, tag: tag(hash) }, hash);
        self.len += 1;
    }

    /// Doubles the table, placing every record again by its hash.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(FIRST_SLOTS);
        let mut slots = vec![Slot::default(); size];
        for s in self.slots.iter().filter(|s| s.at != 0) {
            let (d, _, k) = record(&self.records, s.at - 1);
            place(&mut slots, *s, cache_hash(k, d));
        }
        self.slots = slots;
    }
}

/// Puts `slot` in the first empty slot from where `hash` points.
fn place(slots: &mut [Slot], slot: Slot, hash: u64) {
    let mask = slots.len() - 1;
    let mut i = hash as usize & mask;
    while slots[i].at != 0 {
        i = (i + 1) & mask;
    }
    slots[i] = slot;
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
