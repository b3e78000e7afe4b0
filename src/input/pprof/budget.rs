//! Stage: bytes → the size of a pprof profile's tables once decoded, checked before any of
//! them is.
//!
//! A repeated protobuf field costs a few bytes an entry on the wire and a fixed size an
//! entry once decoded: an empty string-table entry is two bytes (`0x32 0x00`) but a 24-byte
//! vector header, an empty location two bytes but a hash-table entry, a location id packed
//! in one byte an 8-byte `u64`, and prost grows its vectors by doubling. So a 0.9 MB
//! `.pb.gz` of 900 MB of empty entries needed 4.7 to 12 GB and aborted, the 1 GiB cap on
//! the input notwithstanding.
//!
//! [`scan`] walks the top-level fields of the message once (varint keys and lengths, no
//! allocation) and counts the entries of every table: `sample_type` (field 1), `sample` (2),
//! `mapping` (3), `location` (4), `function` (5) and `string_table` (6), and inside each
//! sample its `location_id`s, `value`s (packed varints of one byte each count one each) and
//! `label`s, inside each location its `line`s. [`Counts::check`] then refuses a profile
//! whose tables would take more than [`FACTOR`] × its (decompressed) size + [`SLACK`] once
//! decoded, naming the table and its count. The loader decodes the tables one entry at a
//! time into vectors and hash tables sized from these counts (no doubling), so the sizes
//! checked here are the sizes allocated.
//!
//! Why 4 × + 64 MiB: a real profile's tables take less than 2 × its size once decoded
//! (Go's CPU, heap and labelled profiles of `testdata/`: 1.0 to 1.5 ×; a location is some
//! 18 bytes on the wire and 40 decoded, a string some 20 and 24), while entries emptied out
//! to bomb the decoder take 12 × (strings) to 40 × (locations, functions) their wire size.
//! 4 × leaves real profiles twice their need; the slack lets small profiles with large
//! tables through (a 5 KB profile's tables may take 64 MiB).
//!
//! What is not counted: the call tree and the sample table built from the samples (the
//! profile itself, as for every format; samples without a string label are not recorded in
//! the sample table at all), and a sample's stack, which has as many frames as its
//! locations have lines.

use super::proto;
use super::sniff::varint;
use crate::text::thousands;

/// A profile's decoded tables may take this many times its size…
pub const FACTOR: u64 = 4;

/// …plus this many bytes (64 MiB).
pub const SLACK: u64 = 64 << 20;

/// The most sample types (metrics) a profile may have: each is a tree of its own, built by
/// walking every location again (the most events perf script input keeps, too). Go's
/// profiles have two (CPU) to four (heap).
pub const MAX_SAMPLE_TYPES: u64 = 64;

/// A field cut short.
pub const CUT: &str = "not a readable pprof profile (protobuf: a field is cut short)";

/// A field's value, as the wire format gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire types 1 and 5 (8 and 4 bytes), not read.
    Fixed,
    /// Wire type 2: a message, a string or packed numbers.
    Bytes(&'a [u8]),
}

/// The fields of a protobuf message, in order: `(number, value)`, or the error that ends
/// them (a field cut short, a group's wire type).
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    rest: &'a [u8],
}

/// The fields of the message `bytes`.
pub fn fields(bytes: &[u8]) -> Fields<'_> {
    Fields { rest: bytes }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    fn field(&mut self) -> Result<(u64, Value<'a>), String> {
        let cut = || CUT.to_owned();
        let (tag, n) = varint(self.rest).ok_or_else(cut)?;
        let rest = &self.rest[n..];
        let (value, rest) = match tag & 7 {
            0 => {
                let (v, n) = varint(rest).ok_or_else(cut)?;
                (Value::Varint(v), &rest[n..])
            }
            1 => (Value::Fixed, rest.get(8..).ok_or_else(cut)?),
            5 => (Value::Fixed, rest.get(4..).ok_or_else(cut)?),
            2 => {
                let (len, n) = varint(rest).ok_or_else(cut)?;
                let len = usize::try_from(len).map_err(|_| cut())?;
                let (bytes, after) = rest[n..].split_at_checked(len).ok_or_else(cut)?;
                (Value::Bytes(bytes), after)
            }
            w => {
                return Err(format!(
                    "not a readable pprof profile (protobuf: wire type {w})"
                ));
            }
        };
        self.rest = rest;
        Ok((tag >> 3, value))
    }
}

/// How many entries each table of a profile has, and the largest nested ones.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// `sample_type` entries (metrics).
    pub sample_types: u64,
    /// `sample` entries.
    pub samples: u64,
    /// `mapping` entries.
    pub mappings: u64,
    /// `location` entries.
    pub locations: u64,
    /// `line` entries of all locations.
    pub lines: u64,
    /// `function` entries.
    pub functions: u64,
    /// `string_table` entries.
    pub strings: u64,
    /// Bytes of the strings that are not ASCII (decoded lossily, maybe into a copy up to
    /// three times as long).
    pub non_ascii: u64,
    /// The largest sample: its index, its location ids, values and labels, and the bytes
    /// prost decodes them into.
    pub largest_sample: (u64, u64, u64),
    /// The largest location: its index, its lines, and the bytes prost decodes them into.
    pub largest_location: (u64, u64, u64),
    /// Some sample has a label with a string value (it may be a task).
    pub labelled: bool,
}

/// Counts the entries of every table of the profile `bytes`, without decoding any.
///
/// # Errors
/// A top-level field cut short, of a group's wire type, or a table entry that is not
/// length-delimited. (A malformed entry is left to its decoding, which says what is wrong;
/// what is counted of it is at least what prost allocates before it fails.)
pub fn scan(bytes: &[u8]) -> Result<Counts, String> {
    let mut c = Counts::default();
    for f in fields(bytes) {
        let (field, value) = f?;
        let entry = match value {
            Value::Bytes(b) => b,
            _ if (1..=6).contains(&field) => {
                return Err(format!(
                    "not a readable pprof profile (protobuf: field {field} of the profile is \
                     not length-delimited)"
                ));
            }
            _ => continue,
        };
        match field {
            1 => c.sample_types += 1,
            2 => c.sample(entry),
            3 => c.mappings += 1,
            4 => c.location(entry),
            5 => c.functions += 1,
            6 => {
                c.strings += 1;
                if !entry.is_ascii() {
                    c.non_ascii += entry.len() as u64;
                }
            }
            _ => {}
        }
    }
    Ok(c)
}

/// Numbers in a packed field: one per byte that ends a varint (at most one a byte).
fn packed_len(packed: &[u8]) -> u64 {
    packed.iter().filter(|&&b| b < 0x80).count() as u64 + 1
}

/// `size_of::<T>()` as a `u64`.
fn size<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

impl Counts {
    fn sample(&mut self, entry: &[u8]) {
        let (mut words, mut labels) = (0u64, 0u64);
        for f in fields(entry) {
            let Ok((field, value)) = f else { break };
            match (field, value) {
                (1 | 2, Value::Varint(_)) => words += 1,
                (1 | 2, Value::Bytes(packed)) => words += packed_len(packed),
                (3, Value::Bytes(label)) => {
                    labels += 1;
                    self.labelled |=
                        fields(label).any(|f| matches!(f, Ok((2, Value::Varint(v))) if v != 0));
                }
                _ => {}
            }
        }
        // prost grows each vector by doubling: up to twice its entries.
        let bytes = 2 * (words * size::<u64>() + labels * size::<proto::Label>());
        if bytes > self.largest_sample.2 {
            self.largest_sample = (self.samples, words + labels, bytes);
        }
        self.samples += 1;
    }

    fn location(&mut self, entry: &[u8]) {
        let lines = fields(entry)
            .map_while(Result::ok)
            .filter(|(field, _)| *field == 4)
            .count() as u64;
        self.lines += lines;
        let bytes = 2 * lines * size::<proto::Line>();
        if bytes > self.largest_location.2 {
            self.largest_location = (self.locations, lines, bytes);
        }
        self.locations += 1;
    }

    /// Each table's name in `profile.proto`, its entries and the bytes they take decoded
    /// (as the loader holds them: see `super::location_frames`).
    fn tables(&self) -> [(&'static str, u64, u64); 5] {
        // A hash table of `n` entries of `entry` bytes made with capacity `n` (hashbrown:
        // a power of two of buckets, at most 7/8 full, one control byte each).
        let map = |n: u64, entry: u64| {
            let buckets = if n < 8 {
                8
            } else {
                (n.saturating_mul(8) / 7).next_power_of_two()
            };
            buckets.saturating_mul(entry + 1)
        };
        // Each location has one frame per line, or one when it has none.
        let frames = (self.locations + self.lines) * size::<crate::profile::NameId>();
        [
            (
                "sample_type",
                self.sample_types,
                self.sample_types * (size::<proto::ValueType>() + 2 * size::<String>()),
            ),
            ("mapping", self.mappings, map(self.mappings, 16)),
            ("location", self.locations, map(self.locations, 16) + frames),
            ("function", self.functions, map(self.functions, 16)),
            (
                "string_table",
                self.strings,
                self.strings * size::<std::borrow::Cow<'_, str>>() + 3 * self.non_ascii,
            ),
        ]
    }

    /// The bytes the tables and the largest sample and location take decoded.
    pub fn decoded_bytes(&self) -> u64 {
        let tables: u64 = self.tables().iter().map(|t| t.2).sum();
        tables + self.largest_sample.2 + self.largest_location.2
    }

    /// Refuses a profile of `len` bytes whose tables would take more than [`FACTOR`] ×
    /// `len` + [`SLACK`] once decoded, or that has more than [`MAX_SAMPLE_TYPES`] metrics.
    ///
    /// # Errors
    /// Which table (or sample, or location) is the largest, its count and its decoded size.
    pub fn check(&self, len: u64) -> Result<(), String> {
        if self.sample_types > MAX_SAMPLE_TYPES {
            return Err(format!(
                "refused: its sample_type has {} entries (metrics), more than the \
                 {MAX_SAMPLE_TYPES} read",
                thousands(self.sample_types)
            ));
        }
        let allowed = len.saturating_mul(FACTOR).saturating_add(SLACK);
        let total = self.decoded_bytes();
        if total <= allowed {
            return Ok(());
        }
        let mut what: Vec<(String, u64)> = self
            .tables()
            .iter()
            .map(|&(name, n, b)| (format!("its {name} has {} entries", thousands(n)), b))
            .collect();
        let (i, n, b) = self.largest_sample;
        what.push((
            format!(
                "its sample {i} has {} location ids, values and labels",
                thousands(n)
            ),
            b,
        ));
        let (i, n, b) = self.largest_location;
        what.push((format!("its location {i} has {} lines", thousands(n)), b));
        let (largest, bytes) = what
            .into_iter()
            .max_by_key(|w| w.1)
            .unwrap_or((String::new(), 0));
        Err(format!(
            "refused: {largest}, which would take {} once decoded ({} in all); a profile of {} \
             may take at most {FACTOR} × its size + {} MiB, {}",
            human(bytes),
            human(total),
            human(len),
            SLACK >> 20,
            human(allowed)
        ))
    }
}

/// Bytes in the unit that suits them: `812 bytes`, `3.4 MB`, `10.8 GB`.
fn human(b: u64) -> String {
    match b {
        0..1_000_000 => format!("{} bytes", thousands(b)),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        _ => format!("{:.1} GB", b as f64 / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `0x32 0x00` (an empty string) `n` times, after a sample type.
    fn empty_strings(n: usize) -> Vec<u8> {
        let mut b = vec![0x0a, 0x04, 0x08, 0x00, 0x10, 0x00];
        for _ in 0..n {
            b.extend([0x32, 0x00]);
        }
        b
    }

    #[test]
    fn every_table_and_nested_field_is_counted() {
        let mut b = empty_strings(3);
        // A location with two lines, another with none.
        b.extend([0x22, 0x06, 0x08, 0x01, 0x22, 0x00, 0x22, 0x00, 0x22, 0x00]);
        // A sample: 3 packed location ids, 1 unpacked value, a label with a string.
        b.extend([
            0x12, 0x0c, 0x0a, 0x04, 0x01, 0x02, 0x83, 0x01, 0x10, 0x07, 0x1a, 0x02, 0x10, 0x05,
        ]);
        b.extend([0x1a, 0x00, 0x2a, 0x00, 0x2a, 0x00]);
        let c = scan(&b).unwrap();
        assert_eq!(
            (c.sample_types, c.strings, c.locations, c.lines, c.samples),
            (1, 3, 2, 2, 1)
        );
        assert_eq!((c.mappings, c.functions), (1, 2));
        // 3 ids (the packed count is at most one more) and a value: 5 words, a label.
        assert_eq!(c.largest_sample.1, 6);
        assert_eq!(c.largest_location, (0, 2, 2 * 2 * size::<proto::Line>()));
        assert!(c.labelled);
        assert!(c.check(b.len() as u64).is_ok());
    }

    #[test]
    fn a_table_too_large_for_its_bytes_is_refused_by_name() {
        let n = 8 << 20;
        let b = empty_strings(n);
        let c = scan(&b).unwrap();
        assert_eq!(c.strings, n as u64);
        let e = c.check(b.len() as u64).unwrap_err();
        assert!(e.contains("string_table has 8,388,608 entries"), "{e}");
        // The same table in a larger file fits.
        assert!(c.check(b.len() as u64 * 4).is_ok());
    }

    #[test]
    fn a_top_level_field_cut_short_or_of_the_wrong_type_is_an_error() {
        assert_eq!(scan(&[0x32, 0x05, 0x00]).unwrap_err(), CUT);
        assert!(scan(&[0x30, 0x01]).unwrap_err().contains("field 6"));
        assert!(scan(&[0x33]).unwrap_err().contains("wire type 3"));
    }
}
