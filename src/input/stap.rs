//! Stage: `SystemTap` stack output → samples. Blocks of frame lines, leaf first, each
//! ended by a count line, as `print_stack(s); print_ustack(u); printf("\t%d\n", n)` prints:
//!
//! ```text
//! block       := marker? frame_line+ count_line
//! marker      := "---" EOL  |  "---" glued before the first frame line   (off-CPU)
//! frame_line  := WS* ( "Returning from:" | "Returning to  :" )? WS* addr ( " : " symbol )?
//!                ( " [" module "]" )? ( " (inexact)" )?
//! symbol      := name ( "+0x" off "/0x" size )?
//! count_line  := WS* [0-9]+ WS*
//! ```
//!
//! Frame names follow stackcollapse-stap.pl: offset, size and module are stripped; a frame
//! with no symbol keeps its address. When any block is off-CPU, every stack gets a leading
//! `[on-cpu]` or `[off-cpu]` frame.

use super::common::{full, hex, uint};
use super::{Collector, ParseState};
use nom::IResult;
use nom::Parser;
use nom::bytes::complete::tag;
use nom::character::complete::space0;
use nom::sequence::{delimited, preceded};

pub use crate::profile::scope::{OFF_CPU, ON_CPU};
/// The off-CPU marker.
const MARKER: &str = "---";

/// `count_line := WS* [0-9]+ WS*`
fn count_line(line: &str) -> Option<u64> {
    full(delimited(space0, uint, space0), line).and_then(|n| n.parse().ok())
}

/// `addr := "0x" hex`
fn addr(i: &str) -> IResult<&str, &str> {
    preceded(tag("0x"), hex).parse(i)
}

/// True when `line` has the shape of a frame line (used by detection).
pub fn is_frame_line(line: &str) -> bool {
    let line = line.trim_start();
    let line = line.strip_prefix(MARKER).unwrap_or(line).trim_start();
    let line = line
        .strip_prefix("Returning from:")
        .or_else(|| line.strip_prefix("Returning to  :"))
        .map_or(line, str::trim_start);
    match addr(line) {
        Ok((rest, _)) => {
            rest.is_empty()
                || rest.starts_with(" : ")
                || rest.starts_with(" [")
                || rest == " (inexact)"
        }
        Err(_) => false,
    }
}

/// The frame name of a frame line, as stackcollapse-stap.pl makes it: cut from the last
/// `+` (offset/size, module, ` (inexact)`), then everything up to the last ` : `.
/// One deliberate difference: `0xADDR [module+0x…]` keeps its bracket closed
/// (`0xADDR [module]`) instead of the Perl script's `0xADDR [module`.
pub fn frame_name(line: &str) -> String {
    let mut s = line.trim_start();
    s = s.strip_suffix(" (inexact)").unwrap_or(s);
    if let Some(at) = s.rfind('+') {
        s = &s[..at];
    }
    if let Some(at) = s.rfind(" : ") {
        s = &s[at + 3..];
    }
    if s.is_empty() {
        return "-".to_owned();
    }
    let mut name = s.to_owned();
    if name.matches('[').count() > name.matches(']').count() {
        name.push(']');
    }
    name
}

/// The module of a frame line (`[/usr/sbin/mysqld]` → `mysqld`, `[kernel]` → `kernel`),
/// as the library tables and the collapse-library transform show it.
pub fn frame_module(line: &str) -> Option<&str> {
    let s = line.trim();
    let s = s.strip_suffix(" (inexact)").unwrap_or(s);
    let inner = s.strip_suffix(']')?;
    let at = inner.rfind(" [")?;
    let module = &inner[at + 2..];
    // `[module+0x…]` for an address without a symbol.
    let module = module.find("+0x").map_or(module, |i| &module[..i]);
    let base = &module[module.rfind('/').map_or(0, |i| i + 1)..];
    (!base.is_empty()).then_some(base)
}

/// Line-at-a-time `SystemTap` parser.
#[derive(Debug, Default)]
pub struct StapParser {
    /// Frames of the current block, leaf first.
    frames: Vec<String>,
    /// The module of each frame, when its line names one.
    modules: Vec<Option<String>>,
    offcpu: bool,
    /// Lines of the current block so far.
    block_lines: u64,
    /// Off-CPU blocks seen: every stack carries the on/off pseudo-frame from then on.
    split: bool,
}

impl StapParser {
    /// Feeds one line.
    pub fn line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            out.stats.line_counts.blank += 1;
            return;
        }
        if let Some(count) = count_line(line) {
            self.end_block(count, state, out, line);
            return;
        }
        let mut frame = line;
        if let Some(rest) = trimmed.strip_prefix(MARKER) {
            if !self.frames.is_empty() {
                state.skip(out, "off-CPU marker inside a stack", line);
                return;
            }
            self.offcpu = true;
            self.block_lines += 1;
            if rest.trim().is_empty() {
                return;
            }
            self.block_lines -= 1;
            frame = rest;
        }
        if trimmed.starts_with("<no ") && trimmed.ends_with('>') {
            state.skip(out, "SystemTap backtrace failure", line);
            return;
        }
        self.block_lines += 1;
        self.frames.push(frame_name(frame));
        self.modules.push(frame_module(frame).map(str::to_owned));
    }

    fn end_block(&mut self, count: u64, state: &mut ParseState, out: &mut Collector, line: &str) {
        if self.frames.is_empty() {
            self.modules.clear();
            state.skip(out, "count line without frames", line);
            out.stats.line_counts.dropped += self.block_lines;
            self.block_lines = 0;
            self.offcpu = false;
            return;
        }
        if self.offcpu && !self.split {
            // From now on on- and off-CPU time sit side by side under the root.
            out.tree = out.tree.nest_under(ON_CPU);
            self.split = true;
            out.stats.unit = crate::profile::Unit::OnOffCpu;
        }
        let marker = match (self.split, self.offcpu) {
            (false, _) => None,
            (true, false) => Some(ON_CPU),
            (true, true) => Some(OFF_CPU),
        };
        // Each frame is a function of its own module (the kernel's, or a user binary's).
        let ids: Vec<_> = marker
            .map(|m| out.tree.intern(m))
            .into_iter()
            .chain(
                self.frames
                    .iter()
                    .zip(&self.modules)
                    .rev()
                    .map(|(name, module)| out.tree.names_mut().intern_in(name, module.as_deref())),
            )
            .collect();
        out.tree.insert_ids(ids, count);
        self.modules.clear();
        out.stats.samples += 1;
        out.stats.line_counts.in_samples += self.block_lines + 1;
        self.block_lines = 0;
        if self.offcpu {
            out.stats.offcpu_samples += 1;
        }
        self.frames.clear();
        self.offcpu = false;
    }

    /// Call at the end of the input.
    pub fn finish(&mut self, state: &mut ParseState, out: &mut Collector) {
        if !self.frames.is_empty() {
            let n = self.frames.len();
            out.stats.note(
                state.line_no,
                "stack without a count at the end of the input, dropped",
                &format!("({n} frames)"),
            );
            self.frames.clear();
            self.modules.clear();
        }
        if self.block_lines > 0 {
            out.stats.line_counts.dropped += self.block_lines;
            self.block_lines = 0;
        }
        if self.split {
            out.stats.unit = crate::profile::Unit::OnOffCpu;
        }
    }
}

/// Detection: `Some(true)` when the first meaningful line is a frame line.
pub fn sniff(lines: &[&str]) -> Option<bool> {
    let first = lines
        .iter()
        .find(|l| !l.trim().is_empty() && l.trim() != MARKER)?;
    Some(is_frame_line(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_module_table() {
        for (input, expected) in [
            (
                " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]",
                Some("kernel"),
            ),
            (
                " 0xb61a6d : _Z4funcv+0x147/0x400 [/usr/sbin/mysqld]",
                Some("mysqld"),
            ),
            (" 0x4005d0 : main+0x10/0x20 [/bin/a] (inexact)", Some("a")),
            (" 0x7f00 [/lib/libc.so.6+0x1f00]", Some("libc.so.6")),
            (" 0x7f00", None),
            (" 0x4005d0 : main+0x10/0x20", None),
            (" 0x4005d0 : a[b]+0x10/0x20", None),
        ] {
            assert_eq!(frame_module(input), expected, "{input}");
        }
    }

    #[test]
    fn frame_name_table() {
        for (input, expected) in [
            (
                " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]",
                "native_safe_halt",
            ),
            (
                " 0xf6dc1d : my_sync+0x7d/0x180 [/usr/sbin/mysqld]",
                "my_sync",
            ),
            (" 0x7f3c5d8f44a8 : 0x7f3c5d8f44a8", "0x7f3c5d8f44a8"),
            (" 0x7f3c5d8f44a8", "0x7f3c5d8f44a8"),
            (
                " 0x7f3c5d8e5e2c : 0x7f3c5d8e5e2c [/usr/lib64/x.so+0x3bd1/0x21000]",
                "0x7f3c5d8e5e2c [/usr/lib64/x.so]",
            ),
            (
                " 0x7f3c5d8e5e2c [/usr/lib64/x.so+0x3bd1/0x21000]",
                "0x7f3c5d8e5e2c [/usr/lib64/x.so]",
            ),
            (
                " 0xffffffff81586334 : __schedule+0x3c4/0x860 [kernel] (inexact)",
                "__schedule",
            ),
            (
                "Returning from:  0xffffffff8110 : vfs_read+0x0/0x10 [kernel]",
                "vfs_read",
            ),
            (" 0x1 : operator+=(int)+0x1/0x2 [/bin/x]", "operator+=(int)"),
            (" 0x1 : +0x1/0x2", "-"),
        ] {
            assert_eq!(frame_name(input), expected, "{input}");
        }
    }

    #[test]
    fn detection_lines() {
        assert!(is_frame_line(
            " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]"
        ));
        assert!(is_frame_line(
            "--- 0xffffffff810d7b40 : finish_task_switch+0x0/0x1a0 [kernel]"
        ));
        assert!(is_frame_line(" 0x7f3a12"));
        assert!(!is_frame_line("a;b;c 12"));
        assert!(!is_frame_line(
            "\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])"
        ));
        assert_eq!(count_line("\t2404"), Some(2404));
        assert_eq!(count_line("  46  "), Some(46));
        assert_eq!(count_line(" 0x12"), None);
    }
}
