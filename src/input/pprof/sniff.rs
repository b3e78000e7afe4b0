//! Stage: bytes → format detection, for pprof's binary `profile.proto`.
//!
//! A protobuf message has no magic number, so the sniff walks the wire format of the first
//! bytes as a `Profile`: each field's number must be one of `Profile`'s with its wire type,
//! each message field must hold a well-formed message, and at least one must contain a
//! control byte other than tab, newline and carriage return (a field tag such as
//! `ValueType`'s `0x08`). Text, which has none, is therefore never taken for a profile.

/// What the first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// A pprof profile.
    Yes,
    /// Not one.
    No,
    /// Too few bytes to tell.
    NotYet,
}

/// How many top-level fields are enough to decide.
const FIELDS: usize = 64;

/// Judges the first bytes of an (uncompressed) input.
pub fn sniff(head: &[u8]) -> Sniff {
    let mut pos = 0;
    let mut seen = false;
    let undecided = |seen: bool| if seen { Sniff::Yes } else { Sniff::NotYet };
    for _ in 0..FIELDS {
        if pos == head.len() {
            return undecided(seen);
        }
        let Some((tag, n)) = varint(&head[pos..]) else {
            return truncated_or_bad(&head[pos..], seen);
        };
        pos += n;
        let (field, wire) = (tag >> 3, tag & 7);
        match (field, wire) {
            (7..=10 | 12..=15, 0) => match varint(&head[pos..]) {
                Some((_, n)) => pos += n,
                None => return truncated_or_bad(&head[pos..], seen),
            },
            (1..=6 | 11 | 13, 2) => {
                let Some((len, n)) = varint(&head[pos..]) else {
                    return truncated_or_bad(&head[pos..], seen);
                };
                pos += n;
                let Some(payload) = usize::try_from(len)
                    .ok()
                    .and_then(|len| head.get(pos..pos.checked_add(len)?))
                else {
                    return undecided(seen);
                };
                pos += payload.len();
                if matches!(field, 1..=5 | 11) {
                    if !is_message(payload) {
                        return Sniff::No;
                    }
                    seen |= payload.iter().any(|&b| is_control(b));
                } else if field == 6 && payload.is_empty() {
                    seen = true; // the string table's first entry, "", as `2 0`
                }
            }
            _ => return Sniff::No,
        }
    }
    if seen { Sniff::Yes } else { Sniff::No }
}

/// A control byte that text does not hold.
fn is_control(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')
}

/// A varint cut by the end of the prefix is undecided; one longer than ten bytes is no
/// protobuf.
fn truncated_or_bad(rest: &[u8], seen: bool) -> Sniff {
    if rest.len() < 10 {
        if seen { Sniff::Yes } else { Sniff::NotYet }
    } else {
        Sniff::No
    }
}

/// Reads a base-128 varint: its value and length.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().take(10).enumerate() {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Whether `b` is a whole, well-formed protobuf message with small field numbers (every
/// message of `profile.proto` numbers its fields below 16).
fn is_message(b: &[u8]) -> bool {
    let mut pos = 0;
    while pos < b.len() {
        let Some((tag, n)) = varint(&b[pos..]) else {
            return false;
        };
        pos += n;
        if !(1..16).contains(&(tag >> 3)) {
            return false;
        }
        let skip = match tag & 7 {
            0 => varint(&b[pos..]).map(|(_, n)| n),
            1 => Some(8),
            2 => varint(&b[pos..]).and_then(|(len, n)| n.checked_add(usize::try_from(len).ok()?)),
            5 => Some(4),
            _ => None,
        };
        match skip.and_then(|s| pos.checked_add(s)) {
            Some(end) if end <= b.len() => pos = end,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_known_by_its_first_fields() {
        // sample_type { type: 1, unit: 2 }, then string_table "".
        let p = [0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00];
        assert_eq!(sniff(&p), Sniff::Yes);
        assert_eq!(sniff(&p[..1]), Sniff::NotYet);
        assert_eq!(sniff(&p[..4]), Sniff::NotYet);
        assert_eq!(sniff(&p[..6]), Sniff::Yes);
        assert_eq!(sniff(&[]), Sniff::NotYet);
    }

    #[test]
    fn text_is_never_a_profile() {
        for text in [
            "main;foo;bar 12\n",
            "\n\nabcdefghijkl\n",
            "Performance counter stats\n",
            "perf 123 [000] 1.0: cycles:\n\tffff func (lib)\n\n",
            "* 2\nZZ 3\n",
        ] {
            assert_ne!(sniff(text.as_bytes()), Sniff::Yes, "{text:?}");
        }
        assert_eq!(sniff(b"main;foo 1\n"), Sniff::No);
        // A message field that is not a message.
        assert_eq!(sniff(&[0x0a, 0x02, 0xff, 0xff]), Sniff::No);
        // An unknown field or a wrong wire type.
        assert_eq!(sniff(&[0x80, 0x01, 0x00]), Sniff::No);
        assert_eq!(sniff(&[0x08, 0x01]), Sniff::No);
    }
}
