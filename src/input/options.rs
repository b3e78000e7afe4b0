//! What `--format` and the other load options ask for, and how many threads parse.

use super::live::Snapshots;
use super::perf::PerfOptions;
use super::perf_data;
use crate::profile::Format;

/// Which parser to use: auto-detection, or a format forced by name (`--format`). Its
/// variants are the formats of [`FORMATS`](crate::profile::FORMATS) with a `cli` name, which
/// `--format` reads into one of them; [`FormatChoice::forced`] and [`FormatChoice::forcing`]
/// convert to and from [`Format`] (a test holds both to the table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FormatChoice {
    /// Sniff the content.
    #[default]
    Auto,
    /// Folded stacks (one or two counts per line).
    Folded,
    /// `perf script` output.
    Perf,
    /// `SystemTap` stack blocks.
    Stap,
    /// bpftrace map output.
    Bpftrace,
    /// pprof `profile.proto` (binary protobuf).
    Pprof,
    /// speedscope's JSON file format.
    Speedscope,
    /// Chrome / V8 `.cpuprofile` JSON.
    Cpuprofile,
    /// DTrace stack aggregations (inferno's collapser).
    Dtrace,
    /// macOS `sample` output (inferno's collapser).
    Sample,
    /// VTune top-down CSV (inferno's collapser).
    Vtune,
    /// `xctrace export` XML (inferno's collapser).
    Xctrace,
    /// Visual Studio call-tree CSV (inferno's collapser).
    Vsprof,
    /// GHC `.prof` report (inferno's collapser).
    Ghcprof,
}

impl FormatChoice {
    /// The format forced, or `None` for auto-detection.
    pub const fn forced(self) -> Option<Format> {
        Some(match self {
            FormatChoice::Auto => return None,
            FormatChoice::Folded => Format::Folded,
            FormatChoice::Perf => Format::Perf,
            FormatChoice::Stap => Format::Stap,
            FormatChoice::Bpftrace => Format::Bpftrace,
            FormatChoice::Pprof => Format::Pprof,
            FormatChoice::Speedscope => Format::Speedscope,
            FormatChoice::Cpuprofile => Format::Cpuprofile,
            FormatChoice::Dtrace => Format::Dtrace,
            FormatChoice::Sample => Format::Sample,
            FormatChoice::Vtune => Format::Vtune,
            FormatChoice::Xctrace => Format::Xctrace,
            FormatChoice::Vsprof => Format::Vsprof,
            FormatChoice::Ghcprof => Format::Ghcprof,
        })
    }

    /// The choice that forces `format`, if it can be forced (differential folded files are
    /// read as `Folded`, perf.data is known whatever the choice).
    pub const fn forcing(format: Format) -> Option<FormatChoice> {
        Some(match format {
            Format::Folded => FormatChoice::Folded,
            Format::Perf => FormatChoice::Perf,
            Format::Stap => FormatChoice::Stap,
            Format::Bpftrace => FormatChoice::Bpftrace,
            Format::Pprof => FormatChoice::Pprof,
            Format::Speedscope => FormatChoice::Speedscope,
            Format::Cpuprofile => FormatChoice::Cpuprofile,
            Format::Dtrace => FormatChoice::Dtrace,
            Format::Sample => FormatChoice::Sample,
            Format::Vtune => FormatChoice::Vtune,
            Format::Xctrace => FormatChoice::Xctrace,
            Format::Vsprof => FormatChoice::Vsprof,
            Format::Ghcprof => FormatChoice::Ghcprof,
            Format::DiffFolded | Format::PerfData => return None,
        })
    }
}

/// How to read an input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Forced format, or auto-detection.
    pub format: FormatChoice,
    /// perf-specific options.
    pub perf: PerfOptions,
    /// Parser threads (default: the machine's cores, at most 8, for perf script; one for
    /// the other formats; 1 parses in this thread). More than [`max_threads`] are cut to it.
    pub threads: Option<usize>,
    /// Bytes per chunk for parallel parsing (default 1 MiB).
    pub chunk_size: Option<usize>,
    /// Streaming: snapshots of the profile read so far (parsing is then sequential).
    pub snapshots: Option<Snapshots>,
    /// pprof: the metric (sample type) to load, by name (default: the profile's own).
    pub metric: Option<String>,
    /// perf.data: where its binaries and kernel symbols are found.
    pub perf_data: perf_data::PerfDataOptions,
    /// Folded stacks: what their counts are (`--countname`, as flamegraph.pl's): `ns` or
    /// `nanoseconds` makes them times; another name labels them. Without it they are
    /// samples, as flamegraph.pl and inferno call them.
    pub count_name: Option<String>,
}

/// The default number of parser threads.
pub(super) fn default_threads() -> usize {
    crate::profile::worker_threads()
}

/// The cores this process may run on (1 when unknown).
pub(super) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The most parser threads worth asking for: 4 × the cores.
///
/// Parsing is bound by the CPU, so threads beyond the cores cannot make it faster; each
/// one costs its own call tree, a stack and up to two 1 MiB chunks queued for it, so a
/// count far above the cores only costs memory (10⁸ threads never finished spawning,
/// 10¹¹ aborted on allocating the queue). 4 × leaves room to measure oversubscription
/// while keeping that memory proportional to the machine.
pub fn max_threads() -> usize {
    cores().saturating_mul(4)
}
