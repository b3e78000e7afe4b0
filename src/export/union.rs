//! The folded export of one input parsed on several threads: the union of the parser
//! threads' trees, written without merging them ([`write_folded_parts`]).

use std::io::{self, Write};

use super::{Destination, Names, push_line, stream, write_folded};
use crate::profile::{CallTree, NameId, TextRanks, UnionRun, union_sorted_runs};

/// Writes the folded lines of the union of `tree` and `parts` (trees parsed from pieces of
/// one input, as [`crate::input::load_path_parts`] gives them) exactly as [`write_folded`]
/// writes the tree they merge into, without merging them: the union's sorted walk is cut
/// into runs ([`union_sorted_runs`]), formatted on all cores as [`write_folded`] does,
/// each run merging its trees' lines by text and adding the weights of a stack found in
/// several trees. Weights of trees with fewer decimals are scaled up to the most
/// decimals, as the merge does.
///
/// # Errors
/// Writing failed.
pub fn write_folded_parts<W: Write>(
    mut out: W,
    tree: &CallTree,
    parts: &[CallTree],
    to: Destination,
) -> io::Result<()> {
    if parts.is_empty() {
        return write_folded(out, tree, to);
    }
    let trees: Vec<&CallTree> = std::iter::once(tree).chain(parts).collect();
    if !trees
        .iter()
        .all(|t| sorted_by_text(t) && !t.has_same_text_siblings())
    {
        let mut whole = tree.clone();
        for p in parts {
            whole.merge_from(p);
        }
        whole.finish();
        return write_folded(out, &whole, to);
    }
    let scale = trees.iter().map(|t| t.scale()).max().unwrap_or(0);
    let threads = crate::profile::worker_threads();
    let samples = trees.iter().fold(0u64, |n, t| {
        n.saturating_add(t.node(crate::profile::NodeId::ROOT).samples)
    });
    let per_run = stream::samples_per_run(samples, threads);
    let ranks = TextRanks::new(&trees);
    let runs = union_sorted_runs(&trees, Some(&ranks), per_run);
    stream::write_runs(
        &mut out,
        &runs,
        |r| r.samples,
        per_run,
        threads,
        |batch, sink| union_run_lines(&trees, &ranks, batch, scale, to, sink),
    )?;
    out.flush()
}

/// Whether the sorted walk of `t` gives its stacks in the bytewise order of their text,
/// with no two stacks of the same text, so that streams of them merge by comparing text:
/// true unless a name holds a `;` (`a;` then `b` and `a` then `;b` would read alike) or
/// a task and a function have the same name (siblings of one text, which a tree keeps
/// apart). Neither happens in perf script, whose tasks are only the root frames.
pub(super) fn sorted_by_text(t: &CallTree) -> bool {
    let names = t.names();
    (0..names.len()).all(|i| {
        let id = NameId(u32::try_from(i).unwrap_or(u32::MAX));
        let text = names.resolve(id);
        !text.contains(';') && (!names.is_task(id) || names.lookup(text) == Some(id))
    })
}

/// Appends the lines of some consecutive runs of the union to `sink`: each tree's lines
/// of a run, merged by text one line at a time, weights scaled to `scale` decimals; a
/// stack of weight 0 is left out. One walk per tree goes from run to run (most runs are
/// a few stacks).
fn union_run_lines(
    trees: &[&CallTree],
    ranks: &TextRanks,
    batch: &[UnionRun],
    scale: u32,
    to: Destination,
    sink: &mut stream::Sink,
) {
    let factor = |t: &CallTree| 10u64.saturating_pow(scale - t.scale().min(scale));
    let mut merge = stream::Merge::new(trees.iter().enumerate().map(|(i, &t)| {
        let r = ranks.of(i);
        (t.idle_walk(Some(r)), r, factor(t))
    }));
    let mut weights = vec![0u64; trees.len()];
    for run in batch {
        merge.restart(|i, walk| {
            if let Some(Some(r)) = run.runs.get(i) {
                walk.restart_run(r);
                true
            } else {
                walk.stop();
                false
            }
        });
        while let Some((t, path)) = merge.next(&mut weights) {
            if sink.stopped() {
                return;
            }
            let weight = weights.iter().fold(0u64, |w, &x| w.saturating_add(x));
            if weight == 0 {
                continue;
            }
            push_line(
                sink.buf(),
                Names::Ranked(ranks, ranks.of(t)),
                path,
                weight,
                scale,
                to,
            );
            sink.line_done();
        }
    }
}
