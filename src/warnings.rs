//! The binary's warnings on stderr about its inputs: what was skipped or left out while
//! reading, and flags the input cannot answer. (A module of the binary, declared by
//! `main.rs`; not part of the library.)

use flametui::cli::{self, Args};
use flametui::profile::{Profile, Stats};
use flametui::report;
use flametui::text::sanitize;

/// Says so on stderr when a library flag meets an input that names no libraries.
pub(crate) fn warn_no_libraries(args: &Args, p: &Profile) {
    if p.tree.names().library_count() == 0
        && (!args.collapse_lib.is_empty() || args.top_by == cli::TopBy::Library)
    {
        eprintln!(
            "flametui: {}: names no libraries (perf script and SystemTap stacks do; {} does not)",
            sanitize(&p.source),
            p.stats
                .format
                .map_or("this input".to_owned(), |f| f.to_string()),
        );
    }
}

/// Tells on stderr what was skipped while reading, naming file and line; true when the
/// input ended early (what was read is partial).
pub(crate) fn warn_about(p: &Profile) -> bool {
    let s: &Stats = &p.stats;
    let src = sanitize(&p.source);
    if s.events.len() > 1 {
        let mut others: Vec<String> = s
            .events
            .iter()
            .filter(|(e, _)| Some(*e) != s.event.as_ref())
            .map(|(e, n)| format!("{} ({n} samples)", sanitize(e)))
            .collect();
        if others.len() > 10 {
            let more = others.len() - 10;
            others.truncate(10);
            others.push(format!("and {more} more"));
        }
        eprintln!(
            "flametui: {src}: shows event {}; other events, kept as metrics: {} (choose with \
             --metric, or m in the viewer){}",
            sanitize(s.event.as_deref().unwrap_or("?")),
            others.join(", "),
            if s.filtered_samples > 0 {
                format!(
                    "; {} samples of events past the first {} left out",
                    s.filtered_samples,
                    flametui::input::MAX_OTHER_EVENTS + 1
                )
            } else {
                String::new()
            }
        );
    }
    for b in &s.bad_lines {
        // Line 0: a note about the whole input (a perf.data recording's missing binary).
        let at = if b.line == 0 {
            String::new()
        } else {
            format!(":{}", b.line)
        };
        eprintln!("flametui: {src}{at}: {}: {}", b.reason, sanitize(&b.text));
    }
    let more = s.skipped_lines().saturating_sub(s.bad_lines.len() as u64);
    if more > 0 {
        eprintln!("flametui: {src}: {more} more lines skipped");
    }
    if s.fractional {
        eprintln!("flametui: {src}: fractional counts kept exactly");
    }
    if let Some(e) = &s.read_error {
        eprintln!(
            "flametui: {src}: the input ended early ({}); showing what was read before",
            sanitize(e)
        );
    }
    if p.tree.saturated() {
        eprintln!("flametui: {src}: weights overflowed 64 bits and were clamped");
    }
    if s.lost_records > 0 {
        eprintln!(
            "flametui: {src}: {} PERF_RECORD_LOST records: events were lost, so times between them (off-CPU blocks) are unreliable",
            s.lost_records
        );
    }
    if s.unread_switches > 0 {
        let how = if s.format == Some(flametui::profile::Format::PerfData) {
            "the recording has no tracing data giving sched_switch's format, or samples too short for it"
        } else {
            "perf script prints them by default; with -F, add them: -F +time,+trace"
        };
        eprintln!(
            "flametui: {src}: {} sched:sched_switch samples have no time or no prev_state and next_pid, so no off-CPU time: {how}",
            s.unread_switches
        );
    }
    if s.dummy_timed > 0 {
        eprintln!(
            "flametui: {src}: {} samples carry perf's dummy timestamp (perf record --off-cpu writes the blocks it gathered when the recording ends): they are in the graph, not in the heat map nor in time ranges",
            s.dummy_timed
        );
    }
    if let Some(text) = s.off_cpu.as_ref().and_then(report::off_cpu_notes) {
        eprintln!("flametui: {src}: {text}");
    }
    s.read_error.is_some()
}
