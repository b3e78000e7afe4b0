//! Stage: bytes → call tree, for Chrome / V8 `.cpuprofile` files (`node --cpu-prof`,
//! Chrome DevTools "Save profile", the `Profiler.stop` result of the DevTools protocol):
//!
//! ```text
//! { "nodes": [ { "id": I, "callFrame": { "functionName": F, "url": U,
//!                "lineNumber": L (0-based), "columnNumber": C },
//!                "hitCount": H, "children": [ id, … ], "parent": id? }, … ],
//!   "startTime": µs, "endTime": µs,
//!   "samples": [ leaf node id, … ], "timeDeltas": [ µs from the previous sample, … ] }
//! ```
//!
//! The nodes are a call tree: a node's stack is its parent's plus its own frame. They are
//! linked by `children` (and by `parent`, which older files give instead); a link to a node
//! that does not exist, a node with two parents, a repeated id or a cycle is an error, as
//! is a `timeDeltas` of another length than `samples`. The synthetic `(root)` node is not
//! shown (its children are the roots); `(program)`, `(idle)` and `(garbage collector)` are
//! frames as DevTools shows them. A function without a name is `(anonymous)`, as in
//! DevTools; a frame is named `function (file:line)`, the line 1-based as DevTools shows
//! it, the file the last part of a `file://` or `http(s)://` URL or path (`node:internal/…`
//! whole), which is also the frame's library.
//!
//! Weights: each sample weighs its own time delta, the time since the sample before it
//! (the first: since `startTime`), in nanoseconds. That is the time the sampler measured
//! before taking it, so the total is the time from `startTime` to the last sample, and
//! uneven intervals (a stalled sampler, a long pause) weigh what they lasted. DevTools'
//! call tree charges each sample the average interval instead (`(endTime - startTime) /
//! samples`); the two agree when the sampler keeps its interval. A negative delta (V8 can
//! write samples slightly out of order) weighs nothing, as does one past `u64::MAX` ns. Sample times are `startTime` plus
//! the deltas so far, so the heat map and time ranges work; the task is one, `main`. A file
//! without `samples` counts each node's `hitCount` as samples, without a timeline.
//!
//! Source lines: each node's `positionTicks` share out its own weight over its lines
//! ([`lines`]).

mod lines;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use super::{Document, file_name, to_ns};
use crate::input::Collector;
use crate::profile::{ForestEntry, NodeId, Unit};

/// A node of `nodes`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Node {
    id: u64,
    #[serde(default)]
    call_frame: CallFrame,
    #[serde(default)]
    hit_count: Option<f64>,
    #[serde(default)]
    children: Option<Vec<u64>>,
    #[serde(default)]
    parent: Option<u64>,
    #[serde(default)]
    position_ticks: Option<Vec<lines::PositionTick>>,
}

/// A node's function and where it is.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallFrame {
    #[serde(default)]
    function_name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    line_number: Option<f64>,
}

/// The task every sample of a `.cpuprofile` belongs to (the file names no thread).
pub const TASK: &str = "main";

/// The file part of a script URL: the last part of a URL with a scheme of `//` or of a
/// path, else all of it (`node:internal/main/run_main_module`).
fn script_name(url: &str) -> &str {
    if url.contains("://") || url.starts_with('/') {
        file_name(url)
    } else {
        url
    }
}

/// The name a node is shown with, as DevTools shows it.
fn frame_name(f: &CallFrame) -> String {
    let name = if f.function_name.is_empty() {
        "(anonymous)"
    } else {
        &f.function_name
    };
    let file = script_name(&f.url);
    let line = f.line_number.filter(|&l| l >= 0.0).map(|l| l + 1.0);
    match (file.is_empty(), line) {
        (true, _) => name.to_owned(),
        (false, Some(line)) => format!("{name} ({file}:{line})"),
        (false, None) => format!("{name} ({file})"),
    }
}

/// Each node's parent (an index into `nodes`), checked: every link names a node, no node
/// has two parents, no id repeats.
fn parents(nodes: &[Node]) -> Result<Vec<Option<usize>>, String> {
    let mut index: FxHashMap<u64, usize> = FxHashMap::default();
    index.reserve(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        if index.insert(n.id, i).is_some() {
            return Err(format!("node id {} appears twice", n.id));
        }
    }
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    let link = |p: usize, c: usize, parent: &mut Vec<Option<usize>>| match parent[c] {
        Some(q) if q != p => Err(format!(
            "node {} has two parents, {} and {}",
            nodes[c].id, nodes[q].id, nodes[p].id
        )),
        _ => {
            parent[c] = Some(p);
            Ok(())
        }
    };
    for (i, n) in nodes.iter().enumerate() {
        for c in n.children.iter().flatten() {
            let &c = index
                .get(c)
                .ok_or_else(|| format!("node {} lists child {c}, which is not a node", n.id))?;
            link(i, c, &mut parent)?;
        }
        if let Some(p) = n.parent {
            let &p = index
                .get(&p)
                .ok_or_else(|| format!("node {} names parent {p}, which is not a node", n.id))?;
            link(p, i, &mut parent)?;
        }
    }
    Ok(parent)
}

/// The nodes in an order that puts every parent before its children.
///
/// # Errors
/// The parent links form a cycle (a node is its own ancestor).
fn parents_first(nodes: &[Node], parent: &[Option<usize>]) -> Result<Vec<usize>, String> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut order: Vec<usize> = Vec::with_capacity(nodes.len());
    for (c, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(c),
            None => order.push(c),
        }
    }
    let mut at = 0;
    while let Some(&n) = order.get(at) {
        order.extend_from_slice(&children[n]);
        at += 1;
    }
    if order.len() < nodes.len() {
        let mut seen = vec![false; nodes.len()];
        for &n in &order {
            seen[n] = true;
        }
        let first = seen.iter().position(|s| !s).unwrap_or(0);
        return Err(format!(
            "the nodes' parent links form a cycle (node {} is its own ancestor)",
            nodes.get(first).map_or(0, |n| n.id)
        ));
    }
    Ok(order)
}

/// Loads a `.cpuprofile` document into `out`, with a record per sample when `records`.
///
/// # Errors
/// No `nodes`, inconsistent links or lengths (see the module doc).
pub(crate) fn build(doc: Document, records: bool, out: &mut Collector) -> Result<(), String> {
    let nodes = doc
        .nodes
        .ok_or("a .cpuprofile needs `nodes`, and this one has none")?;
    let samples = doc.samples.unwrap_or_default();
    if let Some(d) = &doc.time_deltas
        && d.len() != samples.len()
    {
        return Err(format!(
            "{} samples but {} timeDeltas: each sample needs its time delta",
            samples.len(),
            d.len()
        ));
    }
    let (entry, mut entries) = forest(&nodes, out)?;
    let index: FxHashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    if samples.is_empty() {
        hit_counts(&nodes, &entry, &mut entries, out);
        return Ok(());
    }
    // Each sample's node index in place of its id (`u64::MAX`: no such node), its weight
    // into its entry's own; then the forest, then the records (weights and times again).
    let mut samples = samples;
    let deltas = doc.time_deltas.as_deref();
    let weight_of =
        |j: usize| deltas.map_or(Some(1), |d| to_ns(d.get(j).copied().unwrap_or(0.0), 1e3));
    for (j, id) in samples.iter_mut().enumerate() {
        out.stats.lines += 1;
        let weight = weight_of(j);
        if weight.is_none() {
            let delta = deltas.and_then(|d| d.get(j)).copied().unwrap_or(0.0);
            let why = format!("sample {j} has time delta {delta:?} µs");
            let reason = "negative or unreadable time delta, weighs nothing";
            out.stats.note(j as u64 + 1, reason, &why);
        }
        let Some(&i) = index.get(id) else {
            let why = format!("sample {j} names node {id}");
            out.stats
                .skip(j as u64 + 1, "sample skipped: not a node", &why);
            *id = u64::MAX;
            continue;
        };
        *id = i as u64;
        if entry[i].is_none() {
            // A sample of the synthetic root: no frame.
            out.tree.insert_ids(std::iter::empty(), weight.unwrap_or(0));
        }
        if let Some(e) = entry[i].and_then(|e| entries.get_mut(e as usize)) {
            e.own = e.own.checked_add(weight.unwrap_or(0)).unwrap_or_else(|| {
                out.tree.mark_saturated();
                u64::MAX
            });
            e.own_samples += 1;
        }
        out.stats.samples += 1;
        out.stats.line_counts.in_samples += 1;
    }
    drop(index);
    let leaves = out.tree.insert_forest(&entries);
    lines::record(&nodes, &entry, &entries, &leaves, out);
    out.stats.unit = if doc.time_deltas.is_some() {
        Unit::Nanoseconds
    } else {
        Unit::Samples
    };
    if records {
        let start = doc.start_time.unwrap_or(0.0);
        push_records(&samples, deltas, start, &entry, &leaves, out);
    }
    Ok(())
}

/// The forest entry of each node (`None` for the synthetic root), and the entries,
/// parents first.
///
/// # Errors
/// Links that are not a tree (see [`parents`] and [`parents_first`]).
fn forest(
    nodes: &[Node],
    out: &mut Collector,
) -> Result<(Vec<Option<u32>>, Vec<ForestEntry>), String> {
    let parent = parents(nodes)?;
    let order = parents_first(nodes, &parent)?;
    let mut entry: Vec<Option<u32>> = vec![None; nodes.len()];
    let mut entries: Vec<ForestEntry> = Vec::with_capacity(nodes.len());
    for &i in &order {
        let f = &nodes[i].call_frame;
        if parent[i].is_none() && f.function_name == "(root)" {
            continue;
        }
        let lib = Some(script_name(&f.url)).filter(|l| !l.is_empty());
        let id = out.tree.names_mut().intern_in(&frame_name(f), lib);
        entry[i] = Some(u32::try_from(entries.len()).unwrap_or(u32::MAX));
        entries.push(ForestEntry {
            parent: parent[i].and_then(|p| entry[p]),
            name: id,
            own: 0,
            own_samples: 0,
        });
    }
    Ok((entry, entries))
}

/// One record per sample (`samples` holds node indices, `u64::MAX` for a skipped one), at
/// `start` plus the deltas so far, weighing its delta.
fn push_records(
    samples: &[u64],
    deltas: Option<&[f64]>,
    start: f64,
    entry: &[Option<u32>],
    leaves: &[NodeId],
    out: &mut Collector,
) {
    let task = out.samples.task(TASK, None, None);
    let mut elapsed = 0.0f64;
    for (j, &i) in samples.iter().enumerate() {
        let delta = deltas.map(|d| d.get(j).copied().unwrap_or(0.0));
        let weight = delta.map_or(Some(1), |d| to_ns(d, 1e3)).unwrap_or(0);
        let time = delta.map(|d| {
            elapsed += d;
            start + elapsed
        });
        let Some(&e) = usize::try_from(i).ok().and_then(|i| entry.get(i)) else {
            continue;
        };
        let leaf = match e {
            Some(e) => leaves.get(e as usize).copied(),
            None => Some(NodeId::ROOT),
        };
        if let Some(leaf) = leaf {
            out.samples
                .push(time.and_then(|t| to_ns(t, 1e3)), task, leaf, weight);
        }
    }
}

/// A file without samples: each node's `hitCount` counts as its samples.
fn hit_counts(
    nodes: &[Node],
    entry: &[Option<u32>],
    entries: &mut [ForestEntry],
    out: &mut Collector,
) {
    for (i, n) in nodes.iter().enumerate() {
        let hits = n.hit_count.and_then(|h| to_ns(h, 1.0)).unwrap_or(0);
        out.stats.lines += 1;
        let Some(e) = entry[i].and_then(|e| entries.get_mut(e as usize)) else {
            out.stats.line_counts.dropped += 1;
            continue;
        };
        e.own = hits;
        e.own_samples = hits;
        if hits > 0 {
            out.stats.samples = out.stats.samples.saturating_add(hits);
            out.stats.line_counts.in_samples += 1;
        } else {
            out.stats.line_counts.dropped += 1;
        }
    }
    let leaves = out.tree.insert_forest(entries);
    lines::record(nodes, entry, entries, &leaves, out);
    out.stats.unit = Unit::Samples;
}
