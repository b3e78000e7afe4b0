//! Stage: bytes → call tree, for pprof's `profile.proto` (Go's `runtime/pprof`, `go tool
//! pprof`, and what continuous profilers such as Parca or Pyroscope export).
//!
//! The schema (see [`proto`]): a `Profile` holds `sample_type`s (one metric per value of a
//! sample, e.g. `samples/count` and `cpu/nanoseconds`), `sample`s (location ids, the leaf
//! first, and one value per metric), `location`s (an address in a `mapping`, with its
//! `line`s, the innermost inlined function first), `function`s and a `string_table` that
//! every name indexes (entry 0 is `""`).
//!
//! Stacks are built as `go tool pprof -traces` prints them: every line of every location
//! is a frame, the innermost inlined function nearest the leaf, the outermost function is
//! the root (no synthetic root frame). A location without lines (an address that was not
//! symbolised) is named after its mapping's file, `[libc.so.6]`, as perf's `[unknown]`
//! frames are named after their DSO; the mapping's file name is each frame's library.
//!
//! One metric is loaded: the one asked for by name (`-sample_index` of `go tool pprof`),
//! else the profile's `default_sample_type`, else the last. The loader takes the chosen
//! index ([`build`]), so that a later several-metrics core can load each.
//!
//! Sample labels (Go's `pprof.Do(ctx, pprof.Labels("worker", "3"), …)`) are tasks: when
//! any sample has a string label, every sample is recorded in the sample table with the
//! task named after its labels (`worker=3`, keys sorted, space-separated; `(no labels)`
//! for the others), so the task list and `--comms` select them as `go tool pprof
//! -tagfocus` does. pprof samples carry no time: the table's records are untimed, and
//! time ranges and the heat map are refused.
//!
//! Everything is checked before use: a truncated or corrupt message, a string, location,
//! function or mapping index out of range, a sample with more or fewer values than there
//! are metrics is an error that names the file. The input is read whole (at most
//! [`MAX_BYTES`], after gzip); its tables are counted and their decoded size checked
//! against the input's before any is decoded ([`budget`]: empty entries cannot blow a
//! small file up into gigabytes), then decoded entry by entry by `prost`, whose lengths are
//! checked against the bytes there are, so a huge declared size cannot allocate. The
//! string table borrows from the input; mappings, functions and locations go straight into
//! hash tables sized from their counts; the samples are decoded one at a time into the tree
//! ([`each_sample`]): memory is the input's bytes, those tables, and the tree, never every
//! sample decoded at once.

pub mod budget;
mod locations;
pub mod proto;
pub mod sniff;

use locations::location_frames;

use std::borrow::Cow;
use std::io::Read;

use prost::Message;
use rustc_hash::FxHashMap;

use super::Collector;
use crate::error::{Error, Result};
use crate::profile::source::Line;
use crate::profile::{Format, NameId, PprofInfo, SampleTable, TaskId, Unit};

/// The largest (decompressed) profile read: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

/// One sample type: the name `go tool pprof` gives it and its unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    /// `cpu`, `alloc_space`, `samples`, …
    pub name: String,
    /// `nanoseconds`, `bytes`, `count`, …
    pub unit: String,
}

/// A profile's header, sample types and string table decoded (the strings borrowed from
/// its bytes), its other tables counted and checked.
#[derive(Debug)]
pub struct Decoded<'a> {
    header: proto::Header,
    sample_types: Vec<proto::ValueType>,
    strings: Vec<Cow<'a, str>>,
    counts: budget::Counts,
    bytes: &'a [u8],
}

#[cfg(test)]
/// Reads a whole profile from `reader` and loads metric `metric` (by name, or the default).
///
/// # Errors
/// [`Error::Pprof`] for input that cannot be read or decoded, [`Error::UnknownMetric`] for
/// a metric the profile does not have.
pub fn load<R: Read>(reader: R, name: &str, metric: Option<&str>) -> Result<Collector> {
    let (mut all, index, _) = load_limited(reader, name, metric, MAX_BYTES, false)?;
    Ok(all.swap_remove(index))
}

/// Every metric of a whole profile read from `reader`: one collector per sample type in
/// the profile's order, the index of `metric` (by name, or the default) and the names.
///
/// # Errors
/// As [`load`].
pub fn load_every<R: Read>(
    reader: R,
    name: &str,
    metric: Option<&str>,
) -> Result<(Vec<Collector>, usize, Vec<String>)> {
    load_limited(reader, name, metric, MAX_BYTES, true)
}

/// [`load_every`] (or only the metric chosen, unless `every`), reading at most `limit`
/// bytes.
fn load_limited<R: Read>(
    reader: R,
    name: &str,
    metric: Option<&str>,
    limit: u64,
    every: bool,
) -> Result<(Vec<Collector>, usize, Vec<String>)> {
    let bad = |message: String| Error::Pprof {
        source_name: name.to_owned(),
        message,
    };
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| bad(format!("the input ended early ({e})")))?;
    if bytes.is_empty() {
        return Err(Error::Empty {
            source_name: name.to_owned(),
        });
    }
    if bytes.len() as u64 > limit {
        return Err(bad(format!(
            "larger than {limit} bytes (decompressed), the most read"
        )));
    }
    let decoded = decode(&bytes).map_err(bad)?;
    let metrics = decoded.metrics().map_err(bad)?;
    if metrics.is_empty() {
        return Err(bad(
            "a pprof profile with no sample types, so no metric".to_owned()
        ));
    }
    let index = choose(&decoded, &metrics, metric).map_err(|()| Error::UnknownMetric {
        source_name: name.to_owned(),
        metric: metric.unwrap_or_default().to_owned(),
        metrics: names(&metrics),
    })?;
    let wanted: Vec<usize> = if every {
        (0..metrics.len()).collect()
    } else {
        vec![index]
    };
    let mut all = Vec::with_capacity(wanted.len());
    for i in wanted {
        let mut out = Collector::default();
        build(&decoded, &metrics, i, &mut out).map_err(bad)?;
        all.push(out);
    }
    let at = if every { index } else { 0 };
    Ok((all, at, metrics.into_iter().map(|m| m.name).collect()))
}

/// The metrics' names, comma-separated.
fn names(metrics: &[Metric]) -> String {
    let v: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
    v.join(", ")
}

/// Calls `f` with each sample of the encoded profile `bytes`, decoded one at a time, in
/// order. (The other fields are walked over: [`decode`] has read them, and checked that no
/// sample decodes into more than its budget.)
///
/// # Errors
/// A field cut short or a sample that is no `Sample` message, or what `f` returns.
pub fn each_sample(
    bytes: &[u8],
    mut f: impl FnMut(proto::Sample) -> std::result::Result<(), String>,
) -> std::result::Result<(), String> {
    for field in budget::fields(bytes) {
        if let (2, budget::Value::Bytes(sample)) = field? {
            f(message(sample)?)?;
        }
    }
    Ok(())
}

/// One protobuf message decoded by prost.
fn message<M: Message + Default>(bytes: &[u8]) -> std::result::Result<M, String> {
    M::decode(bytes).map_err(|e| format!("not a readable pprof profile (protobuf: {e})"))
}

/// A count as a capacity (counts are at most the input's length, which is in memory).
fn capacity(n: u64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// A hash table for `n` entries.
fn map_for<V>(n: u64) -> FxHashMap<u64, V> {
    FxHashMap::with_capacity_and_hasher(capacity(n), rustc_hash::FxBuildHasher)
}

/// Counts the tables of the protobuf bytes and checks their decoded size
/// ([`budget::Counts::check`]), then decodes the header, the sample types and the string
/// table (all but the mappings, locations, functions and samples, decoded when used) and
/// checks that the table starts with `""`.
///
/// # Errors
/// A message that is truncated or malformed, tables too large for the input, or a string
/// table that does not start with `""`.
pub fn decode(bytes: &[u8]) -> std::result::Result<Decoded<'_>, String> {
    let counts = budget::scan(bytes)?;
    counts.check(bytes.len() as u64)?;
    let header: proto::Header = message(bytes)?;
    let mut sample_types = Vec::with_capacity(capacity(counts.sample_types));
    let mut strings = Vec::with_capacity(capacity(counts.strings));
    for field in budget::fields(bytes) {
        match field? {
            (1, budget::Value::Bytes(t)) => sample_types.push(message(t)?),
            (6, budget::Value::Bytes(s)) => strings.push(String::from_utf8_lossy(s)),
            _ => {}
        }
    }
    if strings.first().is_none_or(|s| !s.is_empty()) {
        return Err("not a pprof profile: its string table does not start with \"\"".to_owned());
    }
    Ok(Decoded {
        header,
        sample_types,
        strings,
        counts,
        bytes,
    })
}

impl Decoded<'_> {
    /// String `i` of the table.
    fn string(&self, i: i64, what: &str) -> std::result::Result<&str, String> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(|s| &**s)
            .ok_or_else(|| {
                format!(
                    "{what} names string {i}, but the string table has {} entries",
                    self.strings.len()
                )
            })
    }

    /// Every sample type, in order.
    ///
    /// # Errors
    /// A name out of the string table.
    pub fn metrics(&self) -> std::result::Result<Vec<Metric>, String> {
        self.sample_types
            .iter()
            .map(|t| {
                Ok(Metric {
                    name: self.string(t.r#type, "a sample type")?.to_owned(),
                    unit: self.string(t.unit, "a sample type's unit")?.to_owned(),
                })
            })
            .collect()
    }
}

/// The index of metric `wanted`, or the default: `default_sample_type`, else the last
/// (what `go tool pprof` shows).
fn choose(
    d: &Decoded<'_>,
    metrics: &[Metric],
    wanted: Option<&str>,
) -> std::result::Result<usize, ()> {
    let by_name = |n: &str| metrics.iter().position(|m| m.name == n);
    if let Some(w) = wanted {
        return by_name(w).ok_or(());
    }
    let default = d.header.default_sample_type;
    let named = (default != 0)
        .then(|| d.string(default, "").ok().and_then(by_name))
        .flatten();
    named.or(metrics.len().checked_sub(1)).ok_or(())
}

/// The task of a sample with no string label, in a profile where others have some.
pub const NO_LABELS: &str = "(no labels)";

/// Samples' string labels as tasks: `phase=sort worker=2` (keys sorted, as `go tool pprof
/// -tags` lists them), one task per distinct set, looked up by the labels' string indices.
/// Numeric labels (Go heap profiles' `bytes`, an allocation's size) are measures, not
/// tasks, and are left out.
#[derive(Default)]
struct LabelTasks {
    by_labels: FxHashMap<Vec<(i64, i64)>, TaskId>,
    key: Vec<(i64, i64)>,
    /// Some sample had a string label.
    labelled: bool,
}

impl LabelTasks {
    fn task(
        &mut self,
        d: &Decoded<'_>,
        labels: &[proto::Label],
        table: &mut SampleTable,
    ) -> std::result::Result<TaskId, String> {
        self.key.clear();
        self.key
            .extend(labels.iter().filter(|l| l.str != 0).map(|l| (l.key, l.str)));
        if let Some(&id) = self.by_labels.get(&self.key) {
            return Ok(id);
        }
        let mut pairs = Vec::with_capacity(self.key.len());
        for &(k, v) in &self.key {
            pairs.push((d.string(k, "a label")?, d.string(v, "a label")?));
        }
        pairs.sort_unstable();
        let name = if pairs.is_empty() {
            NO_LABELS.to_owned()
        } else {
            self.labelled = true;
            let parts: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            parts.join(" ")
        };
        let id = table.task(&name, None, None);
        self.by_labels.insert(self.key.clone(), id);
        Ok(id)
    }
}

/// Loads metric `index` of every sample into `out`.
///
/// Samples whose value is zero add nothing and are counted as dropped, as are negative
/// ones (a difference of profiles), which a flame graph cannot draw.
///
/// # Errors
/// A sample with the wrong number of values, or naming a location that does not exist.
pub fn build(
    d: &Decoded<'_>,
    metrics: &[Metric],
    index: usize,
    out: &mut Collector,
) -> std::result::Result<(), String> {
    let frames = location_frames(d, out)?;
    let with_lines = frames.lines.iter().any(Option::is_some);
    let mut stack: Vec<NameId> = Vec::new();
    let mut stack_lines: Vec<Option<Line>> = Vec::new();
    let mut n = 0u64;
    let mut tasks = LabelTasks::default();
    each_sample(d.bytes, |s| {
        if s.value.len() != metrics.len() {
            return Err(format!(
                "sample {n} has {} values for {} sample types",
                s.value.len(),
                metrics.len()
            ));
        }
        let value = s.value.get(index).copied().unwrap_or(0);
        stack.clear();
        stack_lines.clear();
        for id in s.location_id.iter().rev() {
            let (f, lines) = frames.get(*id).ok_or_else(|| {
                format!("sample {n} refers to location {id}, which is not in the profile")
            })?;
            stack.extend_from_slice(f);
            stack_lines.extend_from_slice(lines);
        }
        n += 1;
        out.stats.lines += 1;
        match u64::try_from(value) {
            Ok(w) if w > 0 => {
                let leaf = out.tree.insert_ids_counted(stack.iter().copied(), w, 1);
                let mut line_stack = 0;
                if with_lines {
                    // Every frame is a node (pprof stacks have no synthetic root).
                    let lines = stack_lines.iter().rev().copied();
                    line_stack = out.samples.lines_mut().record_from_leaf(
                        &out.tree,
                        leaf,
                        lines,
                        Some(stack.len()),
                        w,
                    );
                }
                // Samples are recorded only when some may be told apart by their labels.
                if d.counts.labelled {
                    let task = tasks.task(d, &s.label, &mut out.samples)?;
                    out.samples.push(None, task, leaf, w);
                    out.samples.set_line_stack(line_stack);
                }
                out.stats.samples += 1;
                out.stats.line_counts.in_samples += 1;
            }
            _ => out.stats.line_counts.dropped += 1,
        }
        Ok(())
    })?;
    if !tasks.labelled {
        // No sample has a label: no task to tell them apart, no sample records (as
        // folded); the source lines stay.
        let lines = std::mem::take(out.samples.lines_mut());
        out.samples = crate::profile::SampleTable::default();
        *out.samples.lines_mut() = lines;
    }
    let metric = metrics.get(index).cloned().unwrap_or(Metric {
        name: String::new(),
        unit: String::new(),
    });
    let period_type = match &d.header.period_type {
        Some(t) => Some((
            d.string(t.r#type, "the period type")?.to_owned(),
            d.string(t.unit, "the period unit")?.to_owned(),
        )),
        None => None,
    };
    out.stats.format = Some(Format::Pprof);
    out.stats.unit = Unit::Metric {
        name: metric.name,
        unit: metric.unit,
    };
    out.stats.pprof = Some(PprofInfo {
        metrics: metrics.iter().map(|m| m.name.clone()).collect(),
        period: d.header.period,
        period_type,
        duration_nanos: d.header.duration_nanos,
    });
    Ok(())
}

#[cfg(test)]
mod tests;
