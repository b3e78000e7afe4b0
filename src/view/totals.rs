//! Stage: profile → words of a total. A total of sampled time is not the recording's
//! length: `9.98 s CPU in 5.00 s on 2 CPUs` says what was summed, over how long and on
//! how many CPUs, leaving out whatever the input does not say. Counts keep their words.

use std::fmt::Write as _;

use crate::profile::{Profile, Unit};
use crate::text::sanitize;
use crate::view::tooltip::{time_text, weight_text};

/// What a total of time was measured over; `None` where the input does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// Nanoseconds from the first sample to the last (or of the range shown).
    pub duration: Option<u64>,
    /// CPUs the recording ran on.
    pub cpus: Option<u32>,
}

impl Span {
    /// The span of `profile`'s recording: the length of `range` (nanoseconds, a slice
    /// of the timeline) when given, else from its first sample to its last (of any
    /// event, read with the timeline or not); the CPU
    /// count its header gives, else the CPUs its samples were taken on.
    pub fn of(profile: &Profile, range: Option<(u64, u64)>) -> Self {
        let duration = match (range, profile.stats.sample_times) {
            (Some((start, end)), _) => end.saturating_sub(start),
            (None, Some((first, last))) => last - first,
            (None, None) => profile.samples.duration(),
        };
        Span {
            duration: Some(duration).filter(|&d| d > 0),
            cpus: profile.stats.cpu_count(),
        }
    }
}

/// What a profile's time measures, in a word: `CPU` for a CPU clock (`cpu-clock`,
/// `task-clock`, the on-CPU half), `off-CPU` for time off the CPU, `None` when the
/// input does not say (a speedscope or `.cpuprofile` time may include waiting).
pub fn time_kind(profile: &Profile) -> Option<&'static str> {
    use crate::profile::offcpu::METRIC;
    match profile.stats.event.as_deref() {
        Some("cpu-clock" | "task-clock" | "on-cpu") => Some("CPU"),
        Some(METRIC) => Some("off-CPU"),
        // Both halves summed (`on+off-cpu`), or a time the input does not qualify.
        _ => None,
    }
}

/// `time` (already written, e.g. `9.98 s`) with what it measures and its span:
/// `9.98 s CPU in 5.00 s on 2 CPUs`. Each unknown part is left out; the CPUs only
/// beside CPU time (off-CPU time is not spent on them).
pub fn time_total(time: &str, kind: Option<&str>, span: Span) -> String {
    let mut out = time.to_owned();
    if let Some(k) = kind {
        out.push(' ');
        out.push_str(k);
    }
    if let Some(d) = span.duration {
        out.push_str(" in ");
        out.push_str(&time_text(d, 0));
    }
    if kind == Some("CPU")
        && let Some(n) = span.cpus
    {
        let _ = write!(out, " on {n} CPU{}", if n == 1 { "" } else { "s" });
    }
    out
}

/// A total weight of `profile` for a header: for time, [`time_total`] over `span`;
/// else the weight with its unit, as [`weight_text`] writes it.
pub fn total_text(profile: &Profile, weight: u64, span: Span) -> String {
    if profile.stats.unit == Unit::Nanoseconds {
        time_total(
            &time_text(weight, profile.tree.scale()),
            time_kind(profile),
            span,
        )
    } else {
        weight_text(profile, weight, false)
    }
}

/// `total` followed by ` (event)`, unless `total` names the event already, in any case
/// (a count of an event's periods is written with its name, `18,110 sched:sched_switch`;
/// off-CPU time says `off-CPU`).
pub fn with_event(total: &str, event: Option<&str>) -> String {
    match event.map(sanitize) {
        Some(e) if !total.to_lowercase().contains(&e.to_lowercase()) => {
            format!("{total} ({e})")
        }
        _ => total.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIVE_S: u64 = 5_000_000_000;

    #[test]
    fn cpu_time_says_its_span_and_cpus() {
        let span = Span {
            duration: Some(FIVE_S),
            cpus: Some(2),
        };
        assert_eq!(
            time_total("9.98 s", Some("CPU"), span),
            "9.98 s CPU in 5.00 s on 2 CPUs"
        );
        let one = Span {
            cpus: Some(1),
            ..span
        };
        assert_eq!(
            time_total("4.99 s", Some("CPU"), one),
            "4.99 s CPU in 5.00 s on 1 CPU"
        );
    }

    #[test]
    fn unknown_parts_are_left_out() {
        let no_cpus = Span {
            duration: Some(FIVE_S),
            cpus: None,
        };
        assert_eq!(
            time_total("9.98 s", Some("CPU"), no_cpus),
            "9.98 s CPU in 5.00 s"
        );
        let no_time = Span {
            duration: None,
            cpus: Some(2),
        };
        assert_eq!(
            time_total("9.98 s", Some("CPU"), no_time),
            "9.98 s CPU on 2 CPUs"
        );
        assert_eq!(time_total("1.20 s", None, no_cpus), "1.20 s in 5.00 s");
        assert_eq!(time_total("1.20 s", None, Span::default()), "1.20 s");
    }

    #[test]
    fn off_cpu_time_is_not_on_the_cpus() {
        let span = Span {
            duration: Some(FIVE_S),
            cpus: Some(2),
        };
        assert_eq!(
            time_total("404 ms", Some("off-CPU"), span),
            "404 ms off-CPU in 5.00 s"
        );
    }

    #[test]
    fn an_event_already_named_is_not_repeated() {
        assert_eq!(
            with_event("18,110 sched:sched_switch", Some("sched:sched_switch")),
            "18,110 sched:sched_switch"
        );
        assert_eq!(
            with_event("30 samples", Some("sched:sched_switch")),
            "30 samples (sched:sched_switch)"
        );
        assert_eq!(with_event("30 samples", None), "30 samples");
        assert_eq!(
            with_event("6.01 s off-CPU in 1.05 s", Some("off-cpu")),
            "6.01 s off-CPU in 1.05 s"
        );
        assert_eq!(
            with_event("9.80 s CPU in 5.00 s on 2 CPUs", Some("cpu-clock")),
            "9.80 s CPU in 5.00 s on 2 CPUs (cpu-clock)"
        );
    }
}
