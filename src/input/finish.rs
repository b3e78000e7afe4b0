//! Turning parsed samples into profiles: the events and metrics of an input, `--metric`.

use std::io;

use super::collector::Collector;
use super::loaded::Loaded;
use super::perf;
use crate::error::{Error, Result};
use crate::profile::{Format, Profile};

/// Finishes a parsed input into a profile, with the metric `metric` shown (`--metric`).
pub(super) fn finish(
    out: Collector,
    name: &str,
    format: Format,
    metric: Option<&str>,
) -> Result<Loaded> {
    select_metric(finish_all(out, name, format)?, metric)
}

/// The profile of a parsed input, every metric kept, the default one shown.
pub(super) fn finish_all(mut out: Collector, name: &str, format: Format) -> Result<Loaded> {
    if out.stats.samples == 0 {
        if let Some(e) = out.stats.read_error.take() {
            return Err(Error::Read {
                source_name: name.to_owned(),
                error: io::Error::other(e),
            });
        }
        let detail = if out.stats.skipped.is_empty() {
            String::new()
        } else {
            let reasons: Vec<String> = out
                .stats
                .skipped
                .iter()
                .map(|(r, n)| format!("{n} × {r}"))
                .collect();
            format!(" (skipped: {})", reasons.join(", "))
        };
        return Err(Error::NoSamples {
            source_name: name.to_owned(),
            format: out.stats.format.unwrap_or(format).to_string(),
            detail,
        });
    }
    out.own_names();
    let others = std::mem::take(&mut out.others);
    let after = out.after.take();
    // Finishing the sample table orders its records, whose number stays.
    let switches = out.samples.switches().is_some();
    // Only a profile handed on as it was read (the match's plain `None` below) may keep
    // the parse's order of families: the metrics, halves and sides are made from ordered
    // trees.
    let as_read = others.is_empty() && !switches && format != Format::Stap && after.is_none();
    out.in_parse_order &= as_read;
    let before = out.into_profile(name);
    let loaded = match after {
        None if !others.is_empty() || switches => {
            Loaded::Single(with_event_metrics(before, others))
        }
        None if format == Format::Stap => {
            Loaded::Single(crate::profile::metrics::split_halves(before))
        }
        None => Loaded::Single(before),
        Some(mut after) => {
            after.finish();
            Loaded::Diff {
                after: Profile {
                    metrics: crate::profile::metrics::Metrics::default(),
                    samples: std::sync::Arc::default(),
                    source: name.to_owned(),
                    tree: after,
                    stats: before.stats.clone(),
                },
                before,
            }
        }
    };
    Ok(loaded)
}

/// A perf profile of one event with the other events of its input as metrics, each its
/// own profile (same stats but for its samples and unit). Metrics are in name order.
pub(super) fn with_event_metrics(mut main: Profile, others: Vec<Collector>) -> Profile {
    // What is said of the input as a whole (events seen, lines skipped) stays with the
    // profile shown: copied to every metric it would grow with their number squared.
    let events = std::mem::take(&mut main.stats.events);
    let bad_lines = std::mem::take(&mut main.stats.bad_lines);
    let mut all: Vec<Profile> = others
        .into_iter()
        .map(|o| {
            let mut p = o.into_profile(&main.source);
            let own = std::mem::replace(&mut p.stats, main.stats.clone());
            p.stats.samples = own.samples;
            p.stats.unit = own.unit;
            p.stats.event = own.event;
            p
        })
        .collect();
    main.stats.events = events;
    main.stats.bad_lines = bad_lines;
    let mut main_event = main.stats.event.clone();
    // perf.data with no event asked for: the header's first event with samples, as
    // `perf report` shows first (the first seen may be another: page faults come before
    // the first clock tick).
    let first_listed = main.stats.event_order.iter().find(|e| {
        std::iter::once(&main)
            .chain(&all)
            .any(|p| p.stats.event.as_ref() == Some(*e) && p.stats.samples > 0)
    });
    if let Some(e) = first_listed {
        main_event = Some(e.clone());
    }
    let read_first = main.stats.event.clone();
    all.push(main);
    // Off-CPU time, from the scheduler's switches: shown when the recording holds only
    // scheduler events (a count of switches answers no question about time).
    if let Some((off, notes)) = crate::profile::offcpu::off_cpu(&all) {
        if all.iter().all(|p| {
            p.stats
                .event
                .as_deref()
                .is_some_and(|e| e.starts_with("sched:"))
        }) {
            main_event.clone_from(&off.stats.event);
        }
        all.push(off);
        for p in &mut all {
            p.stats.off_cpu = Some(notes.clone());
        }
    }
    // With a clock event beside off-CPU time (made from the switches, or measured by
    // `perf record --off-cpu`): on- and off-CPU time side by side, in ns.
    let off = all
        .iter()
        .find(|p| p.stats.event.as_deref() == Some(crate::profile::offcpu::METRIC))
        .or_else(|| {
            all.iter()
                .find(|p| p.stats.event.as_deref() == Some(perf::OFFCPU_TIME))
        });
    let wall = off.and_then(|off| {
        all.iter()
            .filter(|p| crate::profile::blocks::is_clock(p))
            .find_map(|on| crate::profile::offcpu::wall(on, off))
    });
    all.extend(wall);
    // One origin for every metric of the recording: its first time of any event, so
    // that `--time`, ranges and heat-map columns mean the same instants in each.
    let origin = all
        .iter()
        .filter_map(|p| p.samples.first_sample_time())
        .min();
    if let Some(origin) = origin {
        for p in &mut all {
            if !p.samples.is_empty() {
                std::sync::Arc::make_mut(&mut p.samples).set_origin(origin);
            }
        }
    }
    all.sort_by(|a, b| a.stats.event.cmp(&b.stats.event));
    let names: Vec<String> = all
        .iter()
        .map(|p| p.stats.event.clone().unwrap_or_default())
        .collect();
    let shown = all
        .iter()
        .position(|p| p.stats.event == main_event)
        .unwrap_or(0);
    // What is said of the whole input goes with the profile shown.
    if all[shown].stats.event != read_first
        && let Some(i) = all.iter().position(|p| p.stats.event == read_first)
    {
        let events = std::mem::take(&mut all[i].stats.events);
        let bad_lines = std::mem::take(&mut all[i].stats.bad_lines);
        if !events.is_empty() {
            all[shown].stats.events = events;
        }
        if !bad_lines.is_empty() {
            all[shown].stats.bad_lines = bad_lines;
        }
    }
    let main = all.remove(shown);
    main.with_metrics(names, shown, all)
}

/// The metric asked for with `--metric` (every format: perf events, pprof sample types,
/// SystemTap's halves).
///
/// # Errors
/// [`Error::UnknownMetric`] naming the metrics there are.
pub(super) fn select_metric(loaded: Loaded, metric: Option<&str>) -> Result<Loaded> {
    let Some(wanted) = metric else {
        return Ok(loaded);
    };
    let p = match loaded {
        Loaded::Single(p) => p,
        diff @ Loaded::Diff { .. } => {
            return Err(Error::UnknownMetric {
                source_name: diff.main().source.clone(),
                metric: wanted.to_owned(),
                metrics: "(none: a differential folded file has one metric per column)".to_owned(),
            });
        }
    };
    if p.metric_name() == Some(wanted)
        || (p.metric_names().is_empty() && p.stats.event.as_deref() == Some(wanted))
    {
        return Ok(Loaded::Single(p));
    }
    match p.into_metric_named(wanted) {
        Ok(p) => Ok(Loaded::Single(p)),
        Err(p) => Err(Error::UnknownMetric {
            source_name: p.source.clone(),
            metric: wanted.to_owned(),
            metrics: if p.metric_names().is_empty() {
                format!(
                    "(none: {} has one metric, {})",
                    p.stats
                        .format
                        .map_or("this input".to_owned(), |f| f.to_string()),
                    p.stats.unit
                )
            } else {
                p.metric_names().join(", ")
            },
        }),
    }
}
