//! Stage: format detection. Each format answers yes / no / not sure over the first lines
//! of the input (as inferno's collapse-guess does); the sniffed prefix is then replayed.

use std::io::{self, BufRead};

use super::{bpftrace, folded, perf, stap};
use crate::profile::Format;

/// How many lines detection looks at, at most.
const PREFIX_LINES: usize = 64;
/// How many bytes detection reads, at most (unless the first line is longer).
const PREFIX_BYTES: usize = 64 * 1024;
/// How much of the first line is read before asking whether it is text: a longer first
/// line is then read on to its end (detection needs one whole line), a binary one is not.
const FIRST_LINE_BYTES: usize = 16 << 20;

/// The first lines of an input.
#[derive(Debug)]
pub struct Prefix {
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// The read error that ended the prefix early, if any.
    pub error: Option<io::Error>,
    /// The input ended within the prefix: nothing more is to be read (a terminal or a
    /// pipe must not be read again after its end).
    pub ended: bool,
}

/// Reads the first lines of the input (up to a line or byte limit). A read error ends
/// the prefix early; it is returned beside what was read.
///
/// The first line is read whole even past `FIRST_LINE_BYTES` when what came of it so
/// far has no NUL byte (text, not a binary file): a folded line's count is at its end, and
/// the parser holds that one line whole anyway, so no more memory than parsing is used.
pub fn read_prefix<R: BufRead>(reader: &mut R) -> Prefix {
    let mut prefix = Prefix {
        bytes: Vec::new(),
        error: None,
        ended: false,
    };
    for i in 0..PREFIX_LINES {
        // The first line is read whole (up to a cap): detection needs one complete line.
        let budget = if i == 0 {
            FIRST_LINE_BYTES
        } else {
            PREFIX_BYTES
        };
        if prefix.bytes.len() >= budget {
            break;
        }
        let mut line = Vec::new();
        let limit = (budget - prefix.bytes.len()) as u64;
        match io::Read::take(&mut *reader, limit).read_until(b'\n', &mut line) {
            Ok(n) => {
                prefix.bytes.extend_from_slice(&line);
                let cut = !line.ends_with(b"\n") && n as u64 == limit;
                if i == 0 && cut && memchr::memchr(0, &line).is_none() {
                    read_rest_of_line(reader, &mut prefix);
                    if prefix.ended || prefix.error.is_some() {
                        break;
                    }
                    continue;
                }
                // Short of the limit and of a newline, read_until met the end.
                if n == 0 || (!line.ends_with(b"\n") && (n as u64) < limit) {
                    prefix.ended = true;
                    break;
                }
            }
            // A line cut by a read error is dropped (`b 2` may have been `b 25`), as the
            // line reader and the chunk splitter do.
            Err(e) => {
                prefix.error = Some(e);
                break;
            }
        }
    }
    prefix
}

/// Reads the rest of a first line longer than [`FIRST_LINE_BYTES`] into the prefix. A
/// read error drops the line (its count may be cut), as for any line.
fn read_rest_of_line<R: BufRead>(reader: &mut R, prefix: &mut Prefix) {
    match reader.read_until(b'\n', &mut prefix.bytes) {
        Ok(_) => prefix.ended = !prefix.bytes.ends_with(b"\n"),
        Err(e) => {
            prefix.bytes.clear();
            prefix.error = Some(e);
        }
    }
}

/// The format of an input, judged from its first lines; `None` when nothing fits.
pub fn detect(prefix: &[u8]) -> Option<Format> {
    let text = String::from_utf8_lossy(prefix);
    let mut lines: Vec<&str> = text.lines().collect();
    // The last line may be cut by the byte limit; judge it only when it is the only one.
    if lines.len() > 1 && !prefix.ends_with(b"\n") {
        lines.pop();
    }
    // A line too long to read tells nothing.
    lines.retain(|l| *l != super::capped::LONG_LINE);
    if stap::sniff(&lines) == Some(true) {
        return Some(Format::Stap);
    }
    if bpftrace::sniff(&lines) == Some(true) {
        return Some(Format::Bpftrace);
    }
    if perf::sniff(&lines) == Some(true) {
        return Some(Format::Perf);
    }
    let verdict = lines.iter().find_map(|l| folded::sniff(l))?;
    verdict.then_some(Format::Folded)
}

/// Whether the input is a JSON document (speedscope, `.cpuprofile`), judged from its first
/// bytes: a JSON object opens it ([`super::json::looks_like_json`]). Which of the JSON
/// formats it is follows from its keys once it is read whole, since they may come in any
/// order (`.cpuprofile` has `samples` and `timeDeltas` after all its nodes).
pub fn json(head: &[u8]) -> bool {
    super::json::looks_like_json(head)
}

/// The first few lines, for an error message: at most 5, each cut to 100 characters, with
/// control characters escaped; binary data is described rather than shown.
pub fn head(prefix: &[u8]) -> String {
    let text = String::from_utf8_lossy(prefix);
    let odd = text
        .chars()
        .filter(|&c| c == char::REPLACEMENT_CHARACTER || (c.is_control() && !c.is_whitespace()))
        .count();
    if prefix.contains(&0) || odd * 4 > text.chars().count() {
        return format!("  | (binary data, not text: {} bytes read)", prefix.len());
    }
    text.lines()
        .take(5)
        .map(|l| {
            let cut = l.chars().count() > 100;
            let shown: String = l
                .chars()
                .take(100)
                .collect::<String>()
                .escape_debug()
                .to_string();
            format!("  | {shown}{}", if cut { "…" } else { "" })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_format() {
        let cases: [(&str, Option<Format>); 11] = [
            ("a;b;c 12\na;b 3\n", Some(Format::Folded)),
            ("a;b 1 2\n", Some(Format::Folded)),
            (
                "dd 29776 666709.771979:   10101010 cpu-clock: \n\tffffffff81 read+0x1 ([kernel.kallsyms])\n",
                Some(Format::Perf),
            ),
            (
                "# header\n\njava 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n",
                Some(Format::Perf),
            ),
            (
                " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n\t2404\n",
                Some(Format::Stap),
            ),
            (
                "---\n 0xffffffff8103ce3b : schedule+0xb/0x10 [kernel]\n\t1\n",
                Some(Format::Stap),
            ),
            (
                "Attaching 1 probe...\n\n\n@[\n    vfs_read+570\n]: 3\n",
                Some(Format::Bpftrace),
            ),
            (
                "@[, \n    0x7f43fd49c340\n, python3]: 1\n",
                Some(Format::Bpftrace),
            ),
            ("hello world\n", None),
            // Read by inferno's collapsers (`super::inferno::guess`), not by flametui's own.
            (
                "\tTue Dec  1 16:40 2026 Time and Allocation Profiling Report  (Final)\n\n\t   kvbench +RTS -p -RTS\n",
                None,
            ),
            (
                "CPU     ID                    FUNCTION:NAME\n  1  81231   :tick-30s \n\n\n              kvd`main+0x88\n                3\n",
                None,
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(detect(input.as_bytes()), expected, "{input:?}");
        }
    }

    /// A reader that fails.
    struct Broken;

    impl io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("gone"))
        }
    }

    #[test]
    fn a_first_line_past_the_cap_is_read_whole_unless_binary() {
        let mut text = vec![b'x'; FIRST_LINE_BYTES + 10];
        text.extend_from_slice(b" 5\nb 3\n");
        let prefix = read_prefix(&mut io::Cursor::new(&text));
        // The first line, whole (the byte budget of the next lines is spent).
        assert!(prefix.bytes == text[..text.len() - 4]);
        assert!(!prefix.ended && prefix.error.is_none());
        assert_eq!(detect(&prefix.bytes), Some(Format::Folded));
        // Unterminated: read to the end of the input.
        let cut = &text[..FIRST_LINE_BYTES + 5];
        let prefix = read_prefix(&mut io::Cursor::new(cut));
        assert!(prefix.ended && prefix.bytes == cut);
        // A read error in the rest of the line drops it (its count may be cut).
        let mut failing = io::BufReader::new(io::Read::chain(cut, Broken));
        let prefix = read_prefix(&mut failing);
        assert!(prefix.bytes.is_empty() && prefix.error.is_some());
        // A NUL byte: binary, not read past the cap.
        text[7] = 0;
        let prefix = read_prefix(&mut io::Cursor::new(&text));
        assert_eq!(prefix.bytes.len(), FIRST_LINE_BYTES);
        assert!(!prefix.ended);
    }

    #[test]
    fn head_escapes_control_characters() {
        assert_eq!(head(b"a\x1b[2Jb\n"), "  | a\\u{1b}[2Jb");
        assert_eq!(head(b"one\ntwo\n"), "  | one\n  | two");
        let long = "x".repeat(300);
        assert_eq!(head(long.as_bytes()), format!("  | {}…", "x".repeat(100)));
        assert_eq!(
            head(b"\x7fELF\x02\x01\x01\0\0"),
            "  | (binary data, not text: 9 bytes read)"
        );
        let noise: Vec<u8> = (0..=255u8).cycle().take(600).collect();
        assert!(head(&noise).contains("binary data"));
    }

    /// `perf script --show-switch-events` of a recording that began with a switch: its
    /// first line is a record, not a sample, and the event kept is the first sample's.
    #[test]
    fn a_perf_script_may_begin_with_a_switch_record() {
        let text = "acceptor  8941 74607.555451: PERF_RECORD_SWITCH IN         \n\
            acceptor  8938 [000] 74607.555507: sched:sched_switch: prev_comm=acceptor \
            prev_pid=8938 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 \
            next_prio=120\n\
            \tffffffff82248208 __schedule+0x628 ([kernel.kallsyms])\n\n";
        assert_eq!(detect(text.as_bytes()), Some(Format::Perf));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            crate::input::perf::first_event(&lines).as_deref(),
            Some("sched:sched_switch")
        );
    }
}
