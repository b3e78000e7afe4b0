//! Stage: folded text → samples. Brendan Gregg's collapsed stacks, one per line:
//!
//! ```text
//! line      := stack WS+ count ( WS+ count )? WS*      (the second count: differential)
//!            | "#" any                                (comment, e.g. austin's header)
//! stack     := frame ( ";" frame )*                    (root first)
//! count     := [0-9]+ ( "." [0-9]* )?                  (fractions are kept exactly)
//! ```
//!
//! Leading frames that name a process or thread (py-spy's `process 123:"cmd"` and
//! `thread (123)`, async-profiler's `[main tid=123]`) are tasks, not functions.
//!
//! A file is differential (`stack BEFORE AFTER`, as difffolded.pl writes it) when its first
//! usable line has two counts; then every line must.

use super::common::{decimal, full};
use super::{Collector, ParseState};
use crate::profile::CallTree;

/// A parsed count: integer digits and fraction digits (trailing zeros removed).
type Count<'a> = (&'a str, &'a str);

/// `count := [0-9]+ ( "." [0-9]* )?` at the end of `line`, after white space.
/// Returns the text before it and the count.
fn trailing_count(line: &str) -> Option<(&str, Count<'_>)> {
    let line = line.trim_end();
    let at = line.rfind([' ', '\t'])?;
    let (int, frac) = full(decimal, &line[at + 1..])?;
    let frac = frac.unwrap_or("").trim_end_matches('0');
    // Exactly one separator, as FlameGraph's `(.*)\s+?(count)`: a frame named " " survives.
    Some((&line[..at], (int, frac)))
}

/// Converts a count to the tree's fixed-point units, widening the tree's scale
/// when this count has more decimals than any before it.
fn scaled(tree: &mut CallTree, (int, frac): Count<'_>) -> Option<u64> {
    let decimals = u32::try_from(frac.len()).ok()?;
    if decimals > 9 {
        return None;
    }
    if decimals > tree.scale() {
        tree.rescale(decimals - tree.scale());
    }
    let pad = tree.scale() - decimals;
    let int: u64 = int.parse().ok()?;
    let frac_v: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    // A count that fits but overflows once scaled for fractions is clamped, as counts
    // scaled later (by `rescale`) are: the result must not depend on the line order.
    let value = 10u64
        .checked_pow(tree.scale())
        .and_then(|unit| int.checked_mul(unit))
        .and_then(|v| v.checked_add(frac_v.checked_mul(10u64.pow(pad))?));
    Some(value.unwrap_or_else(|| {
        tree.mark_saturated();
        u64::MAX
    }))
}

/// Line-at-a-time folded parser.
#[derive(Debug, Default)]
pub struct FoldedParser {
    diff: Option<bool>,
}

impl FoldedParser {
    /// A parser that knows in advance whether the file is differential.
    pub fn with_diff(diff: bool) -> Self {
        Self { diff: Some(diff) }
    }

    /// Decides from the first lines whether a folded file is differential.
    /// The first line with a count decides; unusable lines before it are skipped.
    /// Parsing, sequential or in chunks, follows this decision so both agree.
    pub fn sniff_diff(lines: &[&str]) -> bool {
        lines
            .iter()
            .filter(|l| !l.trim().is_empty() && !is_comment(l))
            .find_map(|l| trailing_count(l))
            .and_then(|(rest, _)| trailing_count(rest))
            .is_some_and(|(stack, _)| !stack.is_empty())
    }

    /// True once the input is known to be differential.
    pub fn is_diff(&self) -> bool {
        self.diff == Some(true)
    }

    /// Feeds one line.
    pub fn line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        if line.trim().is_empty() {
            out.stats.line_counts.blank += 1;
            return;
        }
        if is_comment(line) {
            out.stats.line_counts.comments += 1;
            return;
        }
        let Some((rest, last)) = trailing_count(line) else {
            state.skip(out, "folded line without a trailing count", line);
            return;
        };
        let two = trailing_count(rest).filter(|(stack, _)| !stack.is_empty());
        let diff = *self.diff.get_or_insert(two.is_some());
        let (stack, first) = match (diff, two) {
            (true, Some((stack, first))) => (stack, first),
            (true, None) => {
                state.skip(out, "differential line without two counts", line);
                return;
            }
            (false, _) => (rest, last),
        };
        if stack.is_empty() {
            state.skip(out, "folded line without a stack", line);
            return;
        }
        if diff {
            if out.after.is_none() {
                out.after = Some(CallTree::new());
            }
            let Some(b) = scaled(&mut out.tree, first) else {
                state.skip(out, "count out of range", line);
                return;
            };
            let Some(after) = out.after.as_mut() else {
                return;
            };
            let Some(a) = scaled(after, last) else {
                state.skip(out, "count out of range", line);
                return;
            };
            insert_stack(&mut out.tree, stack, b);
            if let Some(after) = out.after.as_mut() {
                insert_stack(after, stack, a);
            }
        } else {
            let Some(w) = scaled(&mut out.tree, last) else {
                state.skip(out, "count out of range", line);
                return;
            };
            insert_stack(&mut out.tree, stack, w);
        }
        out.stats.fractional |= !last.1.is_empty() || (diff && !first.1.is_empty());
        out.stats.samples += 1;
        out.stats.line_counts.in_samples += 1;
    }
}

/// Inserts one folded stack. Leading frames that name a process or thread, as profilers
/// that write folded stacks print them, are interned as tasks (not functions, as perf's
/// root frames): py-spy's `process 123:"python x.py"` (`--subprocesses`) and
/// `thread (0x7f…)` / `thread (123): MainThread` (`--threads`), async-profiler's
/// `[main tid=123]` / `[tid=123]` (`-t`).
fn insert_stack(tree: &mut CallTree, stack: &str, weight: u64) {
    if !stack.starts_with(['p', 't', '[']) {
        tree.insert(stack.split(';'), weight);
        return;
    }
    let mut tasks = true;
    let ids: Vec<_> = stack
        .split(';')
        .map(|f| {
            tasks &= is_task_frame(f);
            if tasks {
                tree.intern_task(f)
            } else {
                tree.intern(f)
            }
        })
        .collect();
    tree.insert_ids(ids, weight);
}

/// `task := "process " [0-9]+ ":\"" cmd "\"" | "thread (" id ")" ( ": " name )?
///        | "[" ( name " " )? "tid=" [0-9]+ "]"`
pub fn is_task_frame(frame: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = frame.strip_prefix("process ") {
        return rest
            .split_once(":\"")
            .is_some_and(|(pid, cmd)| digits(pid) && cmd.ends_with('"'));
    }
    if let Some(rest) = frame.strip_prefix("thread (") {
        return rest.split_once(')').is_some_and(|(id, name)| {
            let id = id.strip_prefix("0x").unwrap_or(id);
            !id.is_empty()
                && id.bytes().all(|b| b.is_ascii_hexdigit())
                && (name.is_empty() || name.starts_with(": "))
        });
    }
    frame
        .strip_prefix('[')
        .and_then(|f| f.strip_suffix(']'))
        .and_then(|f| f.rsplit_once("tid="))
        .is_some_and(|(name, tid)| digits(tid) && (name.is_empty() || name.ends_with(' ')))
}

/// `comment := "#" ...` — metadata lines such as austin's `# interval: 100`.
fn is_comment(line: &str) -> bool {
    line.starts_with('#')
}

/// Detection: `Some(true)` when `line` looks like a folded line, `Some(false)` when it
/// cannot be one, `None` when it says nothing (blank).
pub fn sniff(line: &str) -> Option<bool> {
    if line.trim().is_empty() || is_comment(line) {
        return None;
    }
    Some(trailing_count(line).is_some_and(|(stack, _)| !stack.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_count_table() {
        for (input, expected) in [
            ("a;b 12", Some(("a;b", ("12", "")))),
            ("a;b\t12  ", Some(("a;b", ("12", "")))),
            ("a;  3", Some(("a; ", ("3", "")))),
            ("a b;c d 31.230", Some(("a b;c d", ("31", "23")))),
            ("a;b 6.", Some(("a;b", ("6", "")))),
            ("a;b 12V.43", None),
            ("THIS IS A BAD LINE", None),
            ("12", None),
        ] {
            assert_eq!(trailing_count(input), expected, "{input}");
        }
    }

    #[test]
    fn task_frame_table() {
        for (input, expected) in [
            ("process 27936:\"/usr/bin/python3 spy-sub.py\"", true),
            ("process 1:\"\"", true),
            ("process x:\"a\"", false),
            ("thread (27936)", true),
            ("thread (27936): MainThread", true),
            ("thread (0x7f5d2b2c5740)", true),
            ("thread (main)", false),
            ("[main tid=12345]", true),
            ("[tid=77]", true),
            ("[C2 CompilerThread0 tid=31]", true),
            ("[unknown]", false),
            ("[tid=]", false),
            ("[mytid=3]", false),
            ("main", false),
        ] {
            assert_eq!(is_task_frame(input), expected, "{input}");
        }
    }

    #[test]
    fn scaled_widens_scale() {
        let mut t = CallTree::new();
        assert_eq!(scaled(&mut t, ("3", "")), Some(3));
        t.insert(["a"], 3);
        assert_eq!(scaled(&mut t, ("1", "25")), Some(125));
        assert_eq!(t.scale(), 2);
        assert_eq!(t.total(), 300);
        assert_eq!(scaled(&mut t, ("2", "5")), Some(250));
        assert_eq!(scaled(&mut t, ("99999999999999999999", "")), None);
        assert_eq!(scaled(&mut t, ("18446744073709551615", "")), Some(u64::MAX));
        assert!(t.saturated());
    }
}
