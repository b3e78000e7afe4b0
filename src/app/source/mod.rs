//! Stage: application state — the Source screen: the lines of the selected frame's
//! function with the weight of that frame's samples at each (`a`, as perf report's
//! annotate key), from the lines the input gave (`profile::source`) and the files on disk
//! (`source_files`). Opened on the hottest line; `n`/`N` walk the lines with samples.

use super::explorer::Explorer;
use super::mode::Mode;
use super::state::Screen;
use crate::profile::diff::{find_path, path_names};
use crate::profile::functions::table_label;
use crate::profile::source::Of;
use crate::profile::{Format, NameId, NodeId};
use crate::source_files::{SourceCache, SourceText};
use crate::view::Target;
use crate::view::listings::listings_read;

pub use state::*;

pub(crate) mod keys;
pub mod state;

/// Opens the Source screen on the selected frame (or says why it cannot), or closes it.
pub(crate) fn toggle(ex: &mut Explorer, mode: &mut Mode, sources: &mut SourceCache) {
    if ex.tools.screen == Screen::Source {
        close(ex, mode);
        return;
    }
    match build(ex, sources) {
        Ok(view) => {
            ex.tools.source = Some(Box::new(view));
            ex.tools.enter(Screen::Source);
            *mode = Mode::Source;
        }
        Err(why) => ex.tools.message = Some(why),
    }
}

/// A key of the screen.
pub(crate) fn key(ex: &mut Explorer, mode: &mut Mode, k: SourceKey) {
    let Some(view) = ex.tools.source.as_mut() else {
        // Closed under the keys (a new view or metric): they go back to the graph.
        close(ex, mode);
        return;
    };
    if view.key(k) {
        close(ex, mode);
    }
}

/// What the status area says on this screen: the function, the file read (or where it
/// was looked for), what the figures are of.
pub(crate) fn status_tip(v: &SourceView) -> crate::view::tooltip::Tooltip {
    let mut facts = Vec::new();
    if let Some(note) = &v.note {
        facts.push(note.clone());
    }
    let clean = |s: &str| crate::text::sanitize(s).into_owned();
    for (path, missing) in &v.files {
        facts.push(match missing {
            None => clean(path),
            Some(tried) => format!(
                "{} not found (looked at {}); --source-path DIR tells where",
                clean(path),
                clean(&tried.join(", "))
            ),
        });
    }
    let of = if v.note.is_some() {
        "see below"
    } else {
        "self and total of this frame's samples"
    };
    crate::view::tooltip::Tooltip {
        title: format!("Source lines of {}: {of}", clean(&v.title)),
        facts,
    }
}

fn close(ex: &mut Explorer, mode: &mut Mode) {
    *mode = ex.tools.go_back();
    ex.tools.source = None;
}

/// The source lines of the selected frame, in the profile as read.
///
/// # Errors
/// Why there are none to show: no frame selected, no lines in the input, none for it.
fn build(ex: &Explorer, sources: &mut SourceCache) -> Result<SourceView, String> {
    let id = match ex.selected {
        Target::Frame(id) if id != NodeId::ROOT => id,
        _ => return Err("Select a frame to see its source lines".to_owned()),
    };
    let original = ex.original();
    let lines = original.samples.lines();
    if lines.is_empty() {
        // In a line that fits 80 columns, as every key's word (the longest format name
        // is 19 characters).
        let format = original.stats.format;
        let has_lines = matches!(
            format,
            Some(
                Format::Perf
                    | Format::PerfData
                    | Format::Pprof
                    | Format::Cpuprofile
                    | Format::Speedscope
            )
        );
        if let (true, Some(metric)) = (has_lines, original.metric_name()) {
            return Err(format!(
                "No source lines for {metric}, a metric computed: m shows another"
            ));
        }
        // A format that can have lines says what this input lacks; another, which do.
        let how = match format {
            Some(Format::Perf) => "record with perf script -F +srcline",
            Some(Format::PerfData) => "its binaries need -g (DWARF)",
            Some(Format::Pprof) => "its locations have no Line records",
            Some(Format::Cpuprofile) => "its nodes have no positionTicks",
            Some(Format::Speedscope) => "its frames have no file and line",
            _ => "use pprof, perf, cpuprofile, speedscope",
        };
        let format = format.map_or_else(|| "this input".to_owned(), |f| f.to_string());
        return Err(format!("No source lines in {format}: {how}"));
    }
    let (f, of, whole_function) = what_of(ex, id)?;
    let tree = &original.tree;
    // A time range or task set: the lines of its samples, summed again from each
    // sample's stack of lines (the whole recording's when the input kept none).
    let slice = &ex.tools.applied.slice;
    let sliced = if slice.is_everything() {
        None
    } else {
        slice.source_lines(tree, &original.samples, of)
    };
    let exact = slice.is_everything() || sliced.is_some();
    let (costs, total) = sliced.unwrap_or_else(|| match of {
        Of::Node(node) => (lines.of_node(node), tree.node(node).total),
        Of::Function(f) => {
            let totals = crate::profile::functions::function_totals_in(tree, NodeId::ROOT);
            (
                lines.of_function(f),
                totals.get(f.0 as usize).map_or(0, |t| t.total),
            )
        }
    });
    let title = ex
        .names
        .style()
        .full(&table_label(
            tree.names(),
            f,
            tree.names().resolve(f),
            |_| true,
        ))
        .into_owned();
    if costs.is_empty() {
        let why = if slice.is_everything() {
            "the input gave none for its frames"
        } else {
            "none in the samples shown"
        };
        return Err(format!("No source lines for {title}: {why}"));
    }
    let listed = listings_read(lines, &costs, lines.start(f), sources);
    let read = &*sources;
    let files = listed
        .iter()
        .map(|l| {
            let path = lines.path(l.file);
            let missing = match read.peek(path) {
                _ if l.code => None,
                SourceText::Found { .. } => None,
                SourceText::Missing(tried) => {
                    Some(tried.iter().map(|p| p.display().to_string()).collect())
                }
            };
            (path.to_owned(), missing)
        })
        .collect();
    let mut view = SourceView::new(title, total, listed, files);
    if whole_function {
        view.note = Some(
            "every frame of the function in the profile as read: the view changed its frames"
                .to_owned(),
        );
    } else if !exact {
        view.note = Some(
            "lines of the whole recording: the time range and tasks shown do not apply to them"
                .to_owned(),
        );
    }
    Ok(view)
}

/// What the Source screen of frame `id` of the view shows the lines of: its node in the
/// tree as read, or, for a frame the view made (an inverted or focused tree's, which has
/// no one frame as read), its function's over every frame of it (`true`: said so).
///
/// # Errors
/// The frame's function is not in the tree as read.
fn what_of(ex: &Explorer, id: NodeId) -> Result<(NameId, Of, bool), String> {
    // Lines are kept for the tree as read: a view that only slices it keeps the frame's
    // path there; one that changes frames (hide, merge, invert, group…) would find
    // another frame, or a part of it, by the same path.
    let applied = &ex.tools.applied;
    let tree = &ex.original().tree;
    let node = if ex.tools.original.is_none() {
        Some(id)
    } else if applied.transforms.is_empty()
        && !applied.inverted
        && applied.group == crate::profile::group::Group::ThreadName
    {
        find_path(tree, &path_names(&ex.profile.tree, id))
    } else {
        None
    };
    if let Some(node) = node {
        return Ok((tree.node(node).name, Of::Node(node), false));
    }
    let shown = ex.profile.tree.node(id).name;
    let names = ex.profile.tree.names();
    let kind = names.kind(shown);
    let f = tree
        .names()
        .lookup_all(names.resolve(shown))
        .find(|&o| tree.names().kind(o) == kind)
        .ok_or_else(|| "This frame's function is not in the profile as read".to_owned())?;
    Ok((f, Of::Function(f), true))
}
