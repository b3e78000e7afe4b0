//! Stage: call tree → text. Folded stacks (single or differential), escaped when they go
//! to a terminal ([`for_terminal`]), and SVG through inferno's flamegraph module, its names
//! through the XML sink ([`for_xml`]).

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::profile::{CallTree, Profile};
use crate::text::{for_terminal, for_xml};

/// Folded lines `stack weight`, one per distinct stack, sorted bytewise.
pub fn folded_lines(tree: &CallTree) -> Vec<String> {
    let mut out = Vec::new();
    each_folded_line(tree, |line| out.push(line.to_owned()));
    out
}

/// Calls `f` with each folded line (without its newline), sorted bytewise, building one
/// line at a time: with many distinct stacks, all the lines at once would weigh more than
/// the tree.
fn each_folded_line(tree: &CallTree, mut f: impl FnMut(&str)) {
    let mut line = String::new();
    tree.for_each_stack_sorted(|path, weight| {
        line.clear();
        for (i, &name) in path.iter().enumerate() {
            if i > 0 {
                line.push(';');
            }
            line.push_str(tree.names().resolve(name));
        }
        line.push(' ');
        line.push_str(&tree.format_weight(weight));
        f(&line);
    });
}

/// Writes the folded lines of `tree` as [`write_lines`] does, streaming them.
///
/// # Errors
/// Writing failed.
pub fn write_folded<W: Write>(mut out: W, tree: &CallTree, to: Destination) -> io::Result<()> {
    let mut result = Ok(());
    each_folded_line(tree, |line| {
        if result.is_ok() {
            result = write_line(&mut out, line, to);
        }
    });
    result?;
    out.flush()
}

/// Differential folded lines `stack before after` over the union of both trees' stacks,
/// sorted bytewise (the format of difffolded.pl and inferno-diff-folded).
pub fn diff_folded_lines(before: &CallTree, after: &CallTree) -> Vec<String> {
    diff_folded(before, after, false)
}

/// As [`diff_folded_lines`]; with `normalize`, BEFORE's counts are scaled to AFTER's
/// total as difffolded.pl `-n` and inferno-diff-folded `-n` do (each count multiplied by
/// total(after)/total(before) and truncated).
pub fn diff_folded(before: &CallTree, after: &CallTree, normalize: bool) -> Vec<String> {
    let pow = |s: u32| 10u128.saturating_pow(s);
    // Totals compared exactly across different fixed-point scales.
    let (b_total, a_total) = (
        u128::from(before.total()) * pow(after.scale()),
        u128::from(after.total()) * pow(before.scale()),
    );
    let factor =
        (normalize && b_total > 0 && b_total != a_total).then(|| a_total as f64 / b_total as f64);
    let mut all: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (s, w) in before.stacks() {
        // Truncation, as the peers do.
        #[allow(clippy::cast_sign_loss)] // both factors are non-negative
        let w = factor.map_or(w, |f| (w as f64 * f) as u64);
        all.entry(s).or_default().0 = w;
    }
    for (s, w) in after.stacks() {
        all.entry(s).or_default().1 = w;
    }
    all.into_iter()
        .map(|(s, (b, a))| format!("{s} {} {}", before.format_weight(b), after.format_weight(a)))
        .collect()
}

/// Where written text goes, which decides whether names in it are escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// A file or a pipe: the bytes are data and stay as they are.
    Data,
    /// A terminal, which would obey control characters in a name (retitle the window,
    /// clear the screen): they are escaped as on the screen ([`for_terminal`]).
    Terminal,
}

/// Writes lines with `\n` endings, escaped for a terminal when they go to one.
///
/// # Errors
/// Errors of the writer.
pub fn write_lines<W: Write>(out: &mut W, lines: &[String], to: Destination) -> io::Result<()> {
    for l in lines {
        write_line(out, l, to)?;
    }
    out.flush()
}

/// One line and its newline, escaped for a terminal when it goes to one.
fn write_line<W: Write>(out: &mut W, line: &str, to: Destination) -> io::Result<()> {
    let line = match to {
        Destination::Data => line.into(),
        Destination::Terminal => for_terminal(line),
    };
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")
}

/// Renders an interactive SVG flame graph of `profile` with inferno.
///
/// # Errors
/// Errors of the writer, or inferno's own.
pub fn svg<W: Write>(profile: &Profile, title: &str, out: W) -> io::Result<()> {
    let tree = &profile.tree;
    // inferno escapes `<&"'` but passes controls through, which XML forbids: every name,
    // the title and the unit (an event name) go through the XML sink first. It leaves the
    // `;` between frames alone, so escaping a whole stack escapes each name in it.
    // inferno reads integer counts; fractional weights are scaled up consistently.
    let lines: Vec<String> = {
        let mut stacks: Vec<(String, u64)> = tree
            .stacks()
            .into_iter()
            .map(|(s, w)| (not_a_comment(for_xml(&s).into_owned()), w))
            .collect();
        stacks.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        stacks
            .into_iter()
            .map(|(s, w)| format!("{s} {w}"))
            .collect()
    };
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = for_xml(title).into_owned();
    opts.count_name = for_xml(&profile.stats.unit.to_string()).into_owned();
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)
        .map_err(|e| io::Error::other(e.to_string()))
}

/// inferno skips a line that starts with `#` as a comment: a first frame named `#…` is
/// written with its `#` escaped, as the XML sink writes other characters it cannot keep.
fn not_a_comment(stack: String) -> String {
    match stack.strip_prefix('#') {
        Some(rest) => format!("\\x23{rest}"),
        None => stack,
    }
}

/// A writer whose errors name where it writes (`<stdout>` or the path), as
/// [`crate::Error::Write`], keeping their kind so that a broken pipe is still recognised.
pub struct Named<W> {
    target: String,
    inner: W,
}

impl<W: Write> Named<W> {
    /// Wraps `inner`, which writes to `target`.
    pub fn new(target: impl Into<String>, inner: W) -> Self {
        Self {
            target: target.into(),
            inner,
        }
    }

    fn name(&self, error: io::Error) -> io::Error {
        let kind = error.kind();
        let target = self.target.clone();
        io::Error::new(kind, crate::Error::Write { target, error })
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.name(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.name(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        CallTree::from_stacks(stacks)
    }

    /// A reader that has closed the pipe.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_errors_name_the_target_and_keep_their_kind() {
        let e = Named::new("<stdout>", Closed)
            .write_all(b"abc")
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(e.to_string(), "<stdout>: broken pipe");
    }

    #[test]
    fn folded_is_sorted_and_summed() {
        let t = tree(&[("b;x", 1), ("a;y", 2), ("b;x", 4), ("a", 0)]);
        assert_eq!(folded_lines(&t), ["a 0", "a;y 2", "b;x 5"]);
    }

    #[test]
    fn lines_are_escaped_for_a_terminal_only() {
        let lines = [
            "main;\x1b]0;pwned\x07;\x1b[2J 3".to_owned(),
            "a;b 1".to_owned(),
        ];
        let written = |to| {
            let mut out = Vec::new();
            write_lines(&mut out, &lines, to).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            written(Destination::Terminal),
            "main;\\x1b]0;pwned\\x07;\\x1b[2J 3\na;b 1\n"
        );
        assert_eq!(written(Destination::Data), lines.join("\n") + "\n");
    }

    #[test]
    fn diff_is_union() {
        let b = tree(&[("a;b", 3), ("gone", 1)]);
        let a = tree(&[("a;b", 5), ("new", 2)]);
        assert_eq!(
            diff_folded_lines(&b, &a),
            ["a;b 3 5", "gone 1 0", "new 0 2"]
        );
    }
}
