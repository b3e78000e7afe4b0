//! Stage: bpftrace map output → samples. The maps a bpftrace script prints at its end
//! (`@[kstack, ustack, comm] = count()`), one entry per key, a stack key's frames on
//! lines of their own, leaf first:
//!
//! ```text
//! entry      := open ( frame_line* close_part )* | one_line
//! open       := "@" name? "[" ( key ", " )*                     (a stack follows)
//! one_line   := "@" name? "[" keys? "]:" SP count               (no stack key: `@[]: 1624`)
//! frame_line := WS* frame                                      (4 spaces, 8, a tab, or none)
//! frame      := addr                                           (`0x7f2659c6eaab`)
//!             | symbol ( "+" offset )? ( SP "(" module ")" )?  (`do_sys_open+112 (/lib/x.so)`)
//!             | hex SP symbol ( "+" offset )? SP "(" module ")"  (`kstack(perf)`, `ustack(perf)`)
//! close_part := ( "]" | "," SP? ( key ", " )* ( key "]" )? ) ( ":" SP count )?
//! keys       := key ( ", " key )*                              (comm, pid, strings: root frames)
//! ```
//!
//! A key's values become the stack: its non-stack keys as root frames, in key order, then
//! the user stack, then the kernel stack, each root first; an entry whose key holds no frame
//! at all is the frame `[empty stack]`, so every count is accounted for. Frames are named as
//! `stackcollapse-bpftrace.pl` names them, except that `+offset` is stripped so that frames
//! merge (`--addrs` keeps it) and the perf form's leading address and module are dropped;
//! a module is kept as the frame's library. Only the first map's entries are kept (as perf
//! keeps the first event): two maps rarely count the same unit. Histogram values are
//! skipped with a reason, as are frame and key lines outside an entry; `Attaching 2
//! probes...` and other messages between entries are noise (counted as comments).
//!
//! This file holds the line grammar and the detection; the parser that turns entries into
//! samples is [`BpftraceParser`] (in `parser`).

mod parser;

use super::common::{full, hex, uint};
use nom::IResult;
use nom::Parser;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while};
use nom::character::complete::{char, space1};
use nom::combinator::recognize;
use nom::sequence::{preceded, terminated};
pub use parser::BpftraceParser;

/// The frame of an entry whose key holds no frame at all (`@[]: 1624`).
pub const EMPTY_STACK: &str = "[empty stack]";
/// The library given to kernel frames (the viewer colours them as the kernel).
const KERNEL_LIBRARY: &str = "kernel";

/// How frames are named.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BpftraceOptions {
    /// Suffix `_[k]` on kernel frames (`--kernel`).
    pub annotate_kernel: bool,
    /// Keep `+offset` suffixes (`--addrs`).
    pub include_addrs: bool,
}

/// A frame line, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The address printed before the symbol (perf form), or the frame itself (`0x…`).
    pub addr: Option<&'a str>,
    /// The symbol with its offset (`vfs_read+570`), or the address.
    pub symbol: &'a str,
    /// The module in parentheses, if printed.
    pub module: Option<&'a str>,
}

/// `"@" name? "["` — the start of an entry; returns the map's name (`@` alone: empty).
fn open(i: &str) -> IResult<&str, &str> {
    terminated(
        recognize(preceded(
            char('@'),
            take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
        )),
        char('['),
    )
    .parse(i)
}

/// `"@" name ":" SP count` — a map without a key (`@total: 12`).
fn scalar(i: &str) -> IResult<&str, &str> {
    preceded(
        (
            char('@'),
            take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
            tag(": "),
        ),
        uint,
    )
    .parse(i)
}

/// `"]:" ( SP count )?` at the end of a line: the key's end and its value. `Some(None)`
/// for a value printed on the next lines (a histogram).
fn close(line: &str) -> Option<(&str, Option<u64>)> {
    if let Some(keys) = line.strip_suffix("]:") {
        return Some((keys, None));
    }
    let at = line.rfind("]: ")?;
    let n = full(uint, &line[at + 3..])?.parse().ok()?;
    Some((&line[..at], Some(n)))
}

/// `addr := "0x" hex`
fn addr(i: &str) -> IResult<&str, &str> {
    recognize(preceded(tag("0x"), hex)).parse(i)
}

/// `" (" module ")"` at the end of a frame.
fn module(i: &str) -> Option<(&str, &str)> {
    let inner = i.strip_suffix(')')?;
    let at = inner.rfind(" (")?;
    let m = &inner[at + 2..];
    (!m.is_empty()).then_some((&i[..at], m))
}

/// `frame := addr | symbol ( "+" offset )? ( SP "(" module ")" )? | hex SP symbol …`
pub fn frame(line: &str) -> Option<Frame<'_>> {
    let s = line.trim();
    if s.is_empty() {
        return None;
    }
    let (rest, module) = module(s).map_or((s, None), |(r, m)| (r, Some(m)));
    // The perf form: `ffffffff81000c82 asm_exc_page_fault+34 ([kernel.kallsyms])`.
    let perf: IResult<&str, &str> = terminated(hex, space1).parse(rest);
    if let Ok((symbol, pc)) = perf
        && !symbol.is_empty()
        && !symbol.contains(' ')
    {
        return Some(Frame {
            addr: Some(pc),
            symbol,
            module,
        });
    }
    let address = full(addr, rest).map(|a| &a[2..]);
    Some(Frame {
        addr: address,
        symbol: rest,
        module,
    })
}

/// `symbol "+" offset` → `symbol` (a decimal offset, or `0x` hex); anything else as is.
pub fn strip_offset(symbol: &str) -> &str {
    let Some(at) = symbol.rfind('+') else {
        return symbol;
    };
    let off = &symbol[at + 1..];
    let number: IResult<&str, &str> = alt((recognize(preceded(tag("0x"), hex)), uint)).parse(off);
    match number {
        Ok(("", _)) if at > 0 => &symbol[..at],
        _ => symbol,
    }
}

/// Whether a stack is the kernel's, as far as its frames tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Kernel,
    User,
}

/// What one frame says of its stack: a high-half address is the kernel's, a low one or
/// a module other than the kernel's the user's.
fn side_of(f: &Frame<'_>) -> Option<Side> {
    if let Some(m) = f.module {
        if super::perf::is_kernel(m) {
            return Some(Side::Kernel);
        }
        if m != "[unknown]" {
            return Some(Side::User);
        }
    }
    let a = u64::from_str_radix(f.addr?, 16).ok()?;
    Some(if a >= 0xffff_8000_0000_0000 {
        Side::Kernel
    } else {
        Side::User
    })
}

/// The library of a module path: its file name (`/usr/lib/libc.so.6` → `libc.so.6`).
fn library(module: &str) -> String {
    super::perf::library_name(module)
        .unwrap_or(module)
        .to_owned()
}

/// Detection: `Some(true)` when the first line that opens a bpftrace map entry comes
/// after noise only (`Attaching 2 probes...`, a tool's `Tracing... Hit Ctrl-C to end.`),
/// `Some(false)` at an indented line (another format's frame) or a folded line before it,
/// `None` when only noise was seen.
pub fn sniff(lines: &[&str]) -> Option<bool> {
    for line in lines {
        if line.trim().is_empty() || scalar(line).is_ok() {
            continue;
        }
        if let Ok((rest, _)) = open(line) {
            return Some(close(rest).is_some() || rest.is_empty() || rest.ends_with(", "));
        }
        if line.starts_with([' ', '\t']) || super::folded::sniff(line) == Some(true) {
            return Some(false);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_table() {
        for (input, expected) in [
            ("@[", Some(("", "@"))),
            ("@offcpu_us[", Some(("", "@offcpu_us"))),
            ("@[, ", Some((", ", "@"))),
            ("@[python3, 12]: 4", Some(("python3, 12]: 4", "@"))),
            ("@total: 4", None),
            ("[", None),
        ] {
            assert_eq!(open(input).ok(), expected, "{input}");
        }
    }

    #[test]
    fn close_and_scalar_table() {
        assert_eq!(close("]: 24"), Some(("", Some(24))));
        assert_eq!(close("python3.11]: 7"), Some(("python3.11", Some(7))));
        assert_eq!(close("]:"), Some(("", None)));
        assert_eq!(close("]: 7x"), None);
        assert_eq!(close("python3.11"), None);
        assert_eq!(scalar("@writes: 12").ok(), Some(("", "12")));
        assert!(scalar("@[a]: 1").is_err());
    }

    #[test]
    fn frame_table() {
        let f = |addr, symbol, module| {
            Some(Frame {
                addr,
                symbol,
                module,
            })
        };
        for (input, expected) in [
            ("    vfs_read+570", f(None, "vfs_read+570", None)),
            ("vfs_read+570", f(None, "vfs_read+570", None)),
            (
                "    0x7f2659c6eaab",
                f(Some("7f2659c6eaab"), "0x7f2659c6eaab", None),
            ),
            (
                "        do_sys_open+112 (/usr/lib/libc.so.6)",
                f(None, "do_sys_open+112", Some("/usr/lib/libc.so.6")),
            ),
            (
                "\tffffffff81000c82 asm_exc_page_fault+34",
                f(Some("ffffffff81000c82"), "asm_exc_page_fault+34", None),
            ),
            (
                "\t7f1a83d7f8aa 0x7f1a83d7f8aa ([unknown])",
                f(Some("7f1a83d7f8aa"), "0x7f1a83d7f8aa", Some("[unknown]")),
            ),
            (
                "    (anonymous namespace)::f(int)+12",
                f(None, "(anonymous namespace)::f(int)+12", None),
            ),
            ("   ", None),
        ] {
            assert_eq!(frame(input), expected, "{input:?}");
        }
    }

    #[test]
    fn strip_offset_table() {
        for (input, expected) in [
            ("vfs_read+570", "vfs_read"),
            ("sem_post@@GLIBC_2.34+49", "sem_post@@GLIBC_2.34"),
            ("f+0x1a", "f"),
            ("0x7f2659c6eaab", "0x7f2659c6eaab"),
            ("operator+", "operator+"),
            ("operator+(int)+4", "operator+(int)"),
            ("+12", "+12"),
            ("a+b", "a+b"),
        ] {
            assert_eq!(strip_offset(input), expected, "{input}");
        }
    }

    #[test]
    fn side_table() {
        let side = |l| side_of(&frame(l).unwrap());
        assert_eq!(side("\tffffffff81000c82 x+3"), Some(Side::Kernel));
        assert_eq!(side("    0xffffffff81000c82"), Some(Side::Kernel));
        assert_eq!(side("    0x7f2659c6eaab"), Some(Side::User));
        assert_eq!(side("    f+1 (/lib/x.so)"), Some(Side::User));
        assert_eq!(side("    f+1 ([kernel.kallsyms])"), Some(Side::Kernel));
        assert_eq!(side("    vfs_read+570"), None);
    }

    #[test]
    fn sniff_table() {
        assert_eq!(sniff(&["Attaching 1 probe...", "", "@["]), Some(true));
        assert_eq!(sniff(&["@[, "]), Some(true));
        assert_eq!(sniff(&["@x[python3, 1]: 5"]), Some(true));
        assert_eq!(sniff(&["Attaching 1 probe..."]), None);
        assert_eq!(sniff(&["a;b 1"]), Some(false));
        assert_eq!(
            sniff(&["Tracing... Hit Ctrl-C to end.", "^C", "@x["]),
            Some(true)
        );
        assert_eq!(
            sniff(&["dd 1 2.3: 10 cpu-clock: ", "\tffff read+0x1 (x)"]),
            Some(false)
        );
        assert_eq!(sniff(&["@[foo"]), Some(false));
    }
}
