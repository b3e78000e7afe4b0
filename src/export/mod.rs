//! Stage: call tree → text. Folded stacks (single or differential, or the union of the
//! trees a parse left apart: [`write_folded_parts`]), escaped when they go to a terminal
//! ([`for_terminal`]), and SVG through inferno's flamegraph module, its names through the
//! XML sink ([`for_xml`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::profile::{CallTree, NameId, Profile, Rank, TextRanks};
use crate::text::{for_terminal, for_xml};

mod diff_svg;
pub mod stream;
mod union;

pub use diff_svg::diff_svg;
use union::sorted_by_text;
pub use union::write_folded_parts;

/// Folded lines `stack weight`, one per distinct stack, sorted bytewise.
pub fn folded_lines(tree: &CallTree) -> Vec<String> {
    let mut out = Vec::new();
    each_folded_line(&text_tree(tree), |line| out.push(line.to_owned()));
    out
}

/// `tree` as its text reads, for the formats that have only names: a function's frames
/// in two libraries under one caller (two nodes) are one stack there
/// ([`CallTree::merged_by_text`]).
fn text_tree(tree: &CallTree) -> Cow<'_, CallTree> {
    tree.merged_by_text()
        .map_or(Cow::Borrowed(tree), Cow::Owned)
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

/// Writes the folded lines of `tree` as [`write_lines`] does, streaming them: memory is
/// the longest line plus a constant ([`stream`]). Big trees are formatted on
/// [`crate::profile::worker_threads`] threads, a few runs of stacks ahead of the writer,
/// and written in order. Stacks of weight 0 are left out (they have no width to draw).
///
/// # Errors
/// Writing failed.
pub fn write_folded<W: Write>(out: W, tree: &CallTree, to: Destination) -> io::Result<()> {
    let threads = crate::profile::worker_threads();
    write_folded_with(out, &text_tree(tree), to, threads, PARALLEL_NODES)
}

/// [`write_folded`] on `threads` threads for trees of at least `parallel_nodes` nodes
/// (smaller ones on one): for tests of both ways on small trees.
///
/// # Errors
/// Writing failed.
#[doc(hidden)]
pub fn write_folded_with<W: Write>(
    mut out: W,
    tree: &CallTree,
    to: Destination,
    threads: usize,
    parallel_nodes: usize,
) -> io::Result<()> {
    // Families are ordered by comparing two integers per name, not two texts.
    let all = sorted_by_text(tree).then(|| TextRanks::new(&[tree]));
    if threads < 2 || tree.len() < parallel_nodes {
        let names = Names::of(tree, all.as_ref());
        let ranks = all.as_ref().map(|r| r.of(0));
        stream::write_serial(&mut out, |sink| {
            let mut walk = match ranks {
                Some(r) => tree.sorted_walk_ranked(r),
                None => tree.sorted_walk(),
            };
            while let Some(weight) = walk.advance() {
                if sink.stopped() {
                    break;
                }
                if weight > 0 {
                    push_line(sink.buf(), names, walk.path(), weight, tree.scale(), to);
                    sink.line_done();
                }
            }
        })?;
        return out.flush();
    }
    write_folded_parallel(&mut out, tree, all.as_ref(), to, threads)?;
    out.flush()
}

/// Trees smaller than this are formatted on one thread.
const PARALLEL_NODES: usize = 50_000;

fn write_folded_parallel<W: Write>(
    out: &mut W,
    tree: &CallTree,
    all: Option<&TextRanks>,
    to: Destination,
    threads: usize,
) -> io::Result<()> {
    let names = Names::of(tree, all);
    let ranks = all.map(|r| r.of(0));
    let samples = tree.node(crate::profile::NodeId::ROOT).samples;
    let per_run = stream::samples_per_run(samples, threads);
    let runs = tree.sorted_runs(per_run);
    stream::write_runs(
        out,
        &runs,
        |run| tree.run_samples(run),
        per_run,
        threads,
        |batch, sink| {
            let mut walk = tree.idle_walk(ranks);
            for run in batch {
                walk.restart_run(run);
                while let Some(weight) = walk.advance() {
                    if sink.stopped() {
                        return;
                    }
                    if weight > 0 {
                        push_line(sink.buf(), names, walk.path(), weight, tree.scale(), to);
                        sink.line_done();
                    }
                }
            }
        },
    )
}

/// Appends ` weight` (with `scale` decimals) and a newline.
fn push_weight(buf: &mut Vec<u8>, weight: u64, scale: u32) {
    buf.push(b' ');
    if scale == 0 {
        let _ = write!(buf, "{weight}");
    } else {
        buf.extend_from_slice(crate::profile::tree::format_scaled(weight, scale).as_bytes());
    }
    buf.push(b'\n');
}

/// Appends one folded line and its newline to `buf`, its weight with `scale` decimals,
/// escaped for a terminal when it goes to one.
fn push_line(
    buf: &mut Vec<u8>,
    names: Names<'_>,
    path: &[NameId],
    weight: u64,
    scale: u32,
    to: Destination,
) {
    let start = buf.len();
    push_path(buf, names, path);
    push_weight(buf, weight, scale);
    escape_line(buf, start, to);
}

/// Where the text of a tree's names is read when its stacks are written.
#[derive(Clone, Copy)]
enum Names<'a> {
    /// The tree's own names.
    Tree(&'a CallTree),
    /// The texts of a [`TextRanks`] of the tree, by the tree's ranks in it: the same
    /// texts, in one buffer.
    Ranked(&'a TextRanks, &'a [Rank]),
}

impl<'a> Names<'a> {
    /// `tree`'s names, from `all` (the ranks of `tree` alone) when given.
    fn of(tree: &'a CallTree, all: Option<&'a TextRanks>) -> Self {
        match all {
            Some(all) => Names::Ranked(all, all.of(0)),
            None => Names::Tree(tree),
        }
    }

    fn text(self, id: NameId) -> &'a [u8] {
        match self {
            Names::Tree(tree) => tree.names().resolve(id).as_bytes(),
            Names::Ranked(all, ranks) => {
                ranks.get(id.0 as usize).map_or(&[][..], |r| all.text(r[0]))
            }
        }
    }
}

/// Appends the folded text of `path` (`a;b;c`).
fn push_path(buf: &mut Vec<u8>, names: Names<'_>, path: &[NameId]) {
    for (i, &name) in path.iter().enumerate() {
        if i > 0 {
            buf.push(b';');
        }
        buf.extend_from_slice(names.text(name));
    }
}

/// Escapes for a terminal ([`for_terminal`]), when it goes to one, the line that starts
/// at `start` and ends `buf` with its newline.
fn escape_line(buf: &mut Vec<u8>, start: usize, to: Destination) {
    if to == Destination::Data {
        return;
    }
    // Names are UTF-8, so the line is too.
    let line = String::from_utf8_lossy(&buf[start..buf.len() - 1]).into_owned();
    buf.truncate(start);
    buf.extend_from_slice(for_terminal(&line).as_bytes());
    buf.push(b'\n');
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
    let factor = normalize_factor(before, after, normalize);
    let mut all: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    // Stacks of one text (a task and a function of one name side by side) add up.
    for (s, w) in text_tree(before).stacks() {
        let b = &mut all.entry(s).or_default().0;
        *b = b.saturating_add(w);
    }
    for (s, w) in text_tree(after).stacks() {
        let a = &mut all.entry(s).or_default().1;
        *a = a.saturating_add(w);
    }
    for (b, _) in all.values_mut() {
        *b = normalized(*b, factor);
    }
    all.into_iter()
        .filter(|&(_, (b, a))| b > 0 || a > 0)
        .map(|(s, (b, a))| format!("{s} {} {}", before.format_weight(b), after.format_weight(a)))
        .collect()
}

/// Writes the differential folded lines of [`diff_folded`] (`stack before after`, sorted
/// bytewise, BEFORE normalised to AFTER's total with `normalize`), streaming them: the
/// two trees' sorted walks are merged line by line, so memory is the longest line plus a
/// constant. A stack of weight 0 on both sides is left out. Trees whose walk is not in
/// the order of the text (a name with a `;`) take [`diff_folded`]'s way, in memory.
///
/// # Errors
/// Writing failed.
pub fn write_diff_folded<W: Write>(
    out: &mut W,
    before: &CallTree,
    after: &CallTree,
    normalize: bool,
    to: Destination,
) -> io::Result<()> {
    if [before, after]
        .iter()
        .any(|t| !sorted_by_text(t) || t.has_same_text_siblings())
    {
        return write_lines(out, &diff_folded(before, after, normalize), to);
    }
    let factor = normalize_factor(before, after, normalize);
    let ranks = TextRanks::new(&[before, after]);
    stream::write_serial(out, |sink| {
        let mut merge = stream::Merge::new([
            (before.sorted_walk_ranked(ranks.of(0)), ranks.of(0), 1),
            (after.sorted_walk_ranked(ranks.of(1)), ranks.of(1), 1),
        ]);
        let mut w = [0u64; 2];
        while let Some((t, path)) = merge.next(&mut w) {
            if sink.stopped() {
                return;
            }
            let b = normalized(w[0], factor);
            if b == 0 && w[1] == 0 {
                continue;
            }
            let buf = sink.buf();
            let start = buf.len();
            push_path(buf, Names::Ranked(&ranks, ranks.of(t)), path);
            let _ = writeln!(
                buf,
                " {} {}",
                before.format_weight(b),
                after.format_weight(w[1])
            );
            escape_line(buf, start, to);
            sink.line_done();
        }
    })?;
    out.flush()
}

/// A BEFORE weight normalised by `factor` ([`normalize_factor`]), truncated as the
/// peers do.
fn normalized(weight: u64, factor: Option<f64>) -> u64 {
    #[allow(clippy::cast_sign_loss)] // both factors are non-negative
    factor.map_or(weight, |f| (weight as f64 * f) as u64)
}

/// The factor BEFORE's weights are multiplied by to be normalised to AFTER's total, when
/// asked and the totals differ (compared exactly across fixed-point scales).
fn normalize_factor(before: &CallTree, after: &CallTree, normalize: bool) -> Option<f64> {
    let pow = |s: u32| 10u128.saturating_pow(s);
    let (b_total, a_total) = (
        u128::from(before.total()) * pow(after.scale()),
        u128::from(after.total()) * pow(before.scale()),
    );
    (normalize && b_total > 0 && b_total != a_total).then(|| a_total as f64 / b_total as f64)
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
    // inferno reads every folded line into memory before it draws: frames it would not
    // draw (narrower than its 0.1 px of 1,180) are left out first, their weight kept in
    // their callers, whose width is the same. The SVG is the same; its input is bounded by
    // what it shows, not by the profile's distinct stacks.
    let pruned;
    let whole = text_tree(&profile.tree);
    let tree = match whole.total() / SVG_UNSEEN {
        0 => &*whole,
        min => {
            pruned = whole.pruned(min).0;
            &pruned
        }
    };
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
    render_svg(&lines, title, &profile.stats.unit.to_string(), out)
}

/// A frame lighter than the total over this is too thin for inferno to draw (its
/// default: 0.1 px of an image 1,200 px wide with 10 px margins, 1/11,800 of the
/// total): half that is left out safely.
const SVG_UNSEEN: u64 = 23_600;

/// inferno's flamegraph over folded lines whose names are already XML-safe.
fn render_svg<W: Write>(lines: &[String], title: &str, unit: &str, out: W) -> io::Result<()> {
    render_svg_scaled(lines, title, unit, 1.0, out)
}

/// [`render_svg`] of counts `factor` times the weights its titles show.
fn render_svg_scaled<W: Write>(
    lines: &[String],
    title: &str,
    unit: &str,
    factor: f64,
    out: W,
) -> io::Result<()> {
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = for_xml(title).into_owned();
    opts.count_name = for_xml(unit).into_owned();
    opts.factor = factor;
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)
        .map_err(|e| io::Error::new(io_kind(&e), e.to_string()))
}

/// The kind of the I/O error under one of inferno's (a closed pipe stays a closed pipe,
/// which ends the output quietly), else `Other`.
fn io_kind(e: &(dyn std::error::Error + 'static)) -> io::ErrorKind {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            return io.kind();
        }
        cause = c.source();
    }
    io::ErrorKind::Other
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

    /// The target's name and the writer.
    pub fn into_parts(self) -> (String, W) {
        (self.target, self.inner)
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

    /// A profile of 5,000 light stacks under one heavy one: the SVG of the tree with the
    /// frames too thin to draw left out is the SVG of every line.
    #[test]
    fn the_svg_leaves_out_only_frames_too_thin_to_draw() {
        let mut t = CallTree::new();
        t.insert(["main", "hot", "loop"], 200_000_000);
        for i in 0..5_000 {
            t.insert(
                ["main".to_owned(), format!("cold{i}"), "leaf".to_owned()],
                1 + i % 3,
            );
        }
        t.insert(["main", "thin", "but", "visible"], 100_000);
        t.finish();
        let p = Profile {
            source: "t".into(),
            tree: t,
            stats: crate::profile::Stats::default(),
            samples: std::sync::Arc::default(),
            metrics: crate::profile::metrics::Metrics::default(),
        };
        let mut pruned = Vec::new();
        svg(&p, "t", &mut pruned).unwrap();
        let lines: Vec<String> = folded_lines(&p.tree);
        let mut whole = Vec::new();
        render_svg(&lines, "t", &p.stats.unit.to_string(), &mut whole).unwrap();
        // inferno picks colours at random within a palette: compared without them.
        let colourless = |svg: Vec<u8>| {
            let text = String::from_utf8(svg).unwrap();
            regex::Regex::new(r#"fill="rgb\([0-9,]+\)""#)
                .unwrap()
                .replace_all(&text, "")
                .into_owned()
        };
        let text = colourless(pruned);
        assert!(text == colourless(whole), "the SVGs differ");
        assert!(text.contains("visible") && !text.contains("cold17"));
    }

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

    /// A tree of many distinct stacks (above [`PARALLEL_NODES`]), with hostile names.
    fn big_tree() -> CallTree {
        let mut t = CallTree::new();
        let mut x: u64 = 7;
        for i in 0..30_000u64 {
            let depth = 2 + (i % 5) as usize;
            let frames: Vec<String> = (0..depth)
                .map(|d| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    match (x >> 40) % 300 {
                        0 => "evil\u{1b}[2Jtitle\u{7}".to_owned(),
                        n => format!("f{d}_{n}"),
                    }
                })
                .collect();
            t.insert(frames, 1 + i % 3);
        }
        t.finish();
        t
    }

    #[test]
    fn parallel_folded_equals_the_serial_walk_and_escapes_for_terminals() {
        let t = big_tree();
        assert!(t.len() > PARALLEL_NODES, "{} nodes", t.len());
        let mut want = folded_lines(&t).join("\n");
        want.push('\n');
        // Families ordered by comparing texts, or by the names' ranks (no name holds a
        // `;`), serially and in parallel.
        assert!(sorted_by_text(&t));
        let ranks = TextRanks::new(&[&t]);
        let mut serial = Vec::new();
        write_folded_with(&mut serial, &t, Destination::Data, 1, 0).unwrap();
        assert_eq!(String::from_utf8(serial).unwrap(), want);
        for threads in [2, 3, 8] {
            for r in [None, Some(&ranks)] {
                let mut got = Vec::new();
                write_folded_parallel(&mut got, &t, r, Destination::Data, threads).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), want, "{threads} threads");
            }
        }
        let mut term = Vec::new();
        write_folded_parallel(&mut term, &t, None, Destination::Terminal, 2).unwrap();
        let term = String::from_utf8(term).unwrap();
        assert!(!term.contains('\u{1b}') && term.contains("evil"));
        assert_eq!(term.lines().count(), want.lines().count());
        // A closed pipe stops the writer and its workers.
        let e = write_folded_parallel(&mut Closed, &t, None, Destination::Data, 2).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    /// The folded export of `trees` merged into one, as [`write_folded`] writes it.
    fn merged_folded(trees: &[CallTree], to: Destination) -> Vec<u8> {
        let mut whole = trees[0].clone();
        for t in &trees[1..] {
            whole.merge_from(t);
        }
        whole.finish();
        let mut out = Vec::new();
        write_folded(&mut out, &whole, to).unwrap();
        out
    }

    fn parts_folded(trees: &[CallTree], to: Destination) -> Vec<u8> {
        let mut out = Vec::new();
        write_folded_parts(&mut out, &trees[0], &trees[1..], to).unwrap();
        out
    }

    proptest::proptest! {
        /// Stacks dealt to several trees (some with decimals, some unsorted, as parser
        /// threads leave them) give the same folded text as the tree they merge into.
        #[test]
        fn folded_parts_equal_their_merged_tree(
            stacks in proptest::collection::vec(
                (proptest::collection::vec(0u8..6, 0..6), 0u64..4, 0usize..3), 1..60),
            scales in proptest::collection::vec(0u32..3, 3),
        ) {
            let name = |n: u8| match n {
                0 => "a".to_owned(),
                1 => "a b".to_owned(),
                2 => "a2".to_owned(),
                3 => "esc\u{1b}[2J".to_owned(),
                4 => "\u{e9}t\u{e9}".to_owned(),
                _ => "b".to_owned(),
            };
            let mut trees: Vec<CallTree> = scales.iter().map(|&s| {
                let mut t = CallTree::new();
                t.rescale(s);
                t
            }).collect();
            for (frames, weight, part) in &stacks {
                let t = &mut trees[*part];
                let w = weight * 10u64.pow(t.scale());
                t.insert(frames.iter().map(|&n| name(n)), w);
            }
            trees[0].finish();
            for to in [Destination::Data, Destination::Terminal] {
                proptest::prop_assert_eq!(parts_folded(&trees, to), merged_folded(&trees, to));
            }
        }
    }

    #[test]
    fn folded_parts_of_big_trees_stream_and_stop_on_a_closed_pipe() {
        let mut a = big_tree();
        let b = big_tree();
        // Part of the same stacks and part new ones.
        a.insert(["only", "in", "a"], 5);
        let trees = [a, b, CallTree::new()];
        let got = parts_folded(&trees, Destination::Data);
        assert!(got.len() > 1 << 19, "{} bytes", got.len());
        assert_eq!(got, merged_folded(&trees, Destination::Data));
        let e =
            write_folded_parts(&mut Closed, &trees[0], &trees[1..], Destination::Data).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn folded_parts_with_semicolons_or_tasks_named_as_functions_are_merged_first() {
        // Joined, `a;` + `b` and `a` + `;b` read alike, as do a task and a function of
        // one name: their lines are those of the merged tree.
        let mut a = CallTree::new();
        a.insert(["a;"], 1);
        a.insert(["a", "b"], 2);
        let mut b = CallTree::new();
        b.insert(["a", ";b"], 3);
        b.insert(["a;"], 4);
        let mut c = CallTree::new();
        c.insert(["a"], 1);
        let mut d = CallTree::new();
        let task = d.names_mut().intern_task("x");
        d.insert_ids([task], 5);
        d.insert(["x"], 6);
        assert!(!sorted_by_text(&a) && !sorted_by_text(&d) && sorted_by_text(&c));
        for trees in [[a, b, c.clone()], [c.clone(), d, c]] {
            let got = parts_folded(&trees, Destination::Data);
            assert_eq!(got, merged_folded(&trees, Destination::Data));
        }
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
