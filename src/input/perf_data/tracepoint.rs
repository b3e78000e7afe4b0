//! Stage: a recording's tracing data (the tracepoints' format files, as the kernel wrote
//! them into `HEADER_TRACING_DATA` or, in pipe mode, a `PERF_RECORD_HEADER_TRACING_DATA`)
//! → where `sched:sched_switch` keeps `prev_state` and `next_pid` in a sample's raw data,
//! and how its `prev_state` bits print; then a sample's raw data → its [`Switch`].
//!
//! The format file is read rather than a layout assumed: the fields moved between kernels
//! (`prev_state` was an `int` before it became a `long`), and so did the state bits (`I`
//! is 0x80 from 4.14 on, and the preemption mark is the bit above the last state). The
//! letters come from the `__print_flags` table of the file's `print fmt`, as perf prints
//! them: the first listed flag that is set, `R` when none is, `+` for the bit above.

use crate::profile::{Switch, TaskState};

/// Where `sched:sched_switch`'s fields are, and how its states print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchFormat {
    /// `prev_state`: offset and size in bytes.
    prev_state: (usize, usize),
    /// `next_pid`: offset and size in bytes.
    next_pid: (usize, usize),
    /// The `__print_flags` table: each state bit and its letter, in the table's order.
    flags: Vec<(u64, u8)>,
    little_endian: bool,
}

/// Where a tracepoint's format text begins in the tracing data.
const NAME: &[u8] = b"name: sched_switch\n";
/// The most text a format file is read for (the kernel's are about 2 KB).
const MAX_FORMAT: usize = 64 << 10;

impl SwitchFormat {
    /// The format of `sched_switch` in a recording's tracing data, if it is there and
    /// names both fields.
    pub fn find(tracing: &[u8], little_endian: bool) -> Option<Self> {
        let at = memchr::memmem::find(tracing, NAME)?;
        let rest = &tracing[at..tracing.len().min(at + MAX_FORMAT)];
        // The format text ends with its print fmt line.
        let end = memchr::memmem::find(rest, b"\nprint fmt:")
            .and_then(|p| memchr::memchr(b'\n', &rest[p + 1..]).map(|e| p + 1 + e))
            .unwrap_or(rest.len());
        let text = String::from_utf8_lossy(&rest[..end]);
        Self::parse(&text, little_endian)
    }

    /// Reads a format file's text (`name: …`, `format:`, field lines, `print fmt: …`).
    pub fn parse(text: &str, little_endian: bool) -> Option<Self> {
        let mut prev_state = None;
        let mut next_pid = None;
        for line in text.lines() {
            let Some(field) = line.trim().strip_prefix("field:") else {
                continue;
            };
            let mut parts = field.split(';').map(str::trim);
            let decl = parts.next().unwrap_or("");
            let name = decl.rsplit([' ', '*']).next().unwrap_or("");
            let number = |key: &str| -> Option<usize> {
                field
                    .split(';')
                    .map(str::trim)
                    .find_map(|p| p.strip_prefix(key))
                    .and_then(|v| v.trim().parse().ok())
            };
            let place = number("offset:").zip(number("size:"));
            match name {
                "prev_state" => prev_state = place,
                "next_pid" => next_pid = place,
                _ => {}
            }
        }
        let fits = |(_, size): (usize, usize)| matches!(size, 1 | 2 | 4 | 8);
        let prev_state = prev_state.filter(|p| fits(*p))?;
        let next_pid = next_pid.filter(|p| fits(*p))?;
        let flags = text
            .find("print fmt:")
            .map(|p| print_flags(&text[p..]))
            .unwrap_or_default();
        Some(Self {
            prev_state,
            next_pid,
            flags,
            little_endian,
        })
    }

    /// The switch a sample's raw tracepoint data describes; `None` when the data is too
    /// short for the fields.
    pub fn decode(&self, raw: &[u8]) -> Option<Switch> {
        let next_tid = self.int(raw, self.next_pid)?;
        let state = self.int(raw, self.prev_state)?;
        Some(Switch {
            next_tid: i32::try_from(next_tid).ok()?,
            state: self.state(state.cast_unsigned()),
        })
    }

    /// The state `prev_state` bits print as: the first flag of the table that is set,
    /// `R` when none is (without a table: the kernel's bits since 4.14).
    fn state(&self, bits: u64) -> TaskState {
        let flags: &[(u64, u8)] = if self.flags.is_empty() {
            &KERNEL_FLAGS
        } else {
            &self.flags
        };
        let letter = flags
            .iter()
            .find(|(bit, _)| bits & bit != 0)
            .map_or(b'R', |f| f.1);
        TaskState::parse(std::str::from_utf8(&[letter]).unwrap_or("?"))
    }

    /// A signed integer field, widened.
    fn int(&self, raw: &[u8], (offset, size): (usize, usize)) -> Option<i64> {
        let bytes = raw.get(offset..offset.checked_add(size)?)?;
        let mut b = [0u8; 8];
        if self.little_endian {
            b[..size].copy_from_slice(bytes);
            // Sign-extended from the field's width.
            if bytes[size - 1] & 0x80 != 0 {
                b[size..].fill(0xff);
            }
            Some(i64::from_le_bytes(b))
        } else {
            b[8 - size..].copy_from_slice(bytes);
            if bytes[0] & 0x80 != 0 {
                b[..8 - size].fill(0xff);
            }
            Some(i64::from_be_bytes(b))
        }
    }
}

/// The state bits of kernels 4.14 and later, used when a format has no flag table.
const KERNEL_FLAGS: [(u64, u8); 8] = [
    (0x01, b'S'),
    (0x02, b'D'),
    (0x04, b'T'),
    (0x08, b't'),
    (0x10, b'X'),
    (0x20, b'Z'),
    (0x40, b'P'),
    (0x80, b'I'),
];

/// The `{ value, "letter" }` pairs of a print fmt's `__print_flags` table, in order.
fn print_flags(print_fmt: &str) -> Vec<(u64, u8)> {
    let Some(at) = print_fmt.find("__print_flags(") else {
        return Vec::new();
    };
    let mut flags = Vec::new();
    let mut rest = &print_fmt[at..];
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let pair = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let Some((value, letter)) = pair.split_once(',') else {
            continue;
        };
        let value = value.trim();
        let value = match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        };
        let letter = letter.trim().trim_matches('"').as_bytes().first().copied();
        if let (Some(v), Some(l)) = (value, letter) {
            flags.push((v, l));
        }
        // The table ends at the closing parenthesis after its last pair.
        if rest.trim_start().starts_with(')') {
            break;
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format file of kernel 6.18, as `/sys/kernel/tracing/events/sched/sched_switch/format`
    /// prints it.
    const FORMAT_6_18: &str = "name: sched_switch\nID: 372\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n\
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n\
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n\
print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

    /// The raw data of a switch with `prev_state` and `next_pid` at the 6.18 offsets.
    fn raw(state: i64, next: i32) -> Vec<u8> {
        let mut r = vec![0u8; 64];
        r[32..40].copy_from_slice(&state.to_le_bytes());
        r[56..60].copy_from_slice(&next.to_le_bytes());
        r
    }

    #[test]
    fn the_kernel_format_gives_fields_and_states() {
        // Found inside other bytes, as in a tracing data section.
        let mut data = b"\x17\x08Dtracing0.6\0 other formats ".to_vec();
        data.extend_from_slice(FORMAT_6_18.as_bytes());
        data.extend_from_slice(b"\0\0\0name: sched_wakeup\nID: 1\n");
        let f = SwitchFormat::find(&data, true).unwrap();
        assert_eq!((f.prev_state, f.next_pid), ((32, 8), (56, 4)));
        assert_eq!(f.flags.len(), 8);
        let state = |bits: i64| f.decode(&raw(bits, 42)).unwrap().state;
        assert_eq!(state(0), TaskState::Runnable);
        assert_eq!(state(0x100), TaskState::Runnable, "R+");
        assert_eq!(state(1), TaskState::Sleeping);
        assert_eq!(state(2), TaskState::Uninterruptible);
        assert_eq!(state(0x80), TaskState::Idle);
        assert_eq!(state(0x10), TaskState::Dead);
        assert_eq!(state(0x20), TaskState::Zombie);
        assert_eq!(f.decode(&raw(1, 1234)).unwrap().next_tid, 1234);
        assert_eq!(f.decode(&raw(1, 0)).unwrap().next_tid, 0);
        assert_eq!(f.decode(&[0u8; 40]), None, "too short for next_pid");
    }

    #[test]
    fn an_old_int_state_and_decimal_flags_are_read() {
        // Kernels before 4.14 (`int prev_state` at 32, decimal flags, no `I`).
        let text = FORMAT_6_18
            .replace(
                "long prev_state;\toffset:32;\tsize:8",
                "int prev_state;\toffset:32;\tsize:4",
            )
            .replace("{ 0x00000001, \"S\" }", "{ 1, \"S\" }")
            .replace("{ 0x00000002, \"D\" }", "{ 2, \"D\" }");
        let f = SwitchFormat::parse(&text, true).unwrap();
        assert_eq!(f.prev_state, (32, 4));
        assert_eq!(f.flags[0], (1, b'S'));
        let mut r = raw(0, 7);
        r[32..36].copy_from_slice(&2i32.to_le_bytes());
        r[36..40].copy_from_slice(&[0xaa; 4]); // not the field's
        assert_eq!(f.decode(&r).unwrap().state, TaskState::Uninterruptible);
    }

    #[test]
    fn formats_without_the_fields_are_not_used() {
        assert_eq!(SwitchFormat::find(b"nothing here", true), None);
        let text = FORMAT_6_18.replace("next_pid", "next_xid");
        assert_eq!(SwitchFormat::parse(&text, true), None);
        let text = FORMAT_6_18.replace(
            "size:8;\tsigned:1;\n\tfield:char next",
            "size:3;\tsigned:1;\n\tfield:char next",
        );
        assert_eq!(
            SwitchFormat::parse(&text, true),
            None,
            "a size no integer has"
        );
        // No flag table: the kernel's bits.
        let cut = &FORMAT_6_18[..FORMAT_6_18.find("print fmt").unwrap()];
        let f = SwitchFormat::parse(cut, true).unwrap();
        assert_eq!(
            f.decode(&raw(2, 1)).unwrap().state,
            TaskState::Uninterruptible
        );
    }

    #[test]
    fn big_endian_fields_are_read() {
        let f = SwitchFormat::parse(FORMAT_6_18, false).unwrap();
        let mut r = vec![0u8; 64];
        r[32..40].copy_from_slice(&1i64.to_be_bytes());
        r[56..60].copy_from_slice(&(-1i32).to_be_bytes());
        let s = f.decode(&r).unwrap();
        assert_eq!((s.next_tid, s.state), (-1, TaskState::Sleeping));
    }
}
