//! Command-line arguments (clap derive). Flag names are stable: scripts and tests use them.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::{Parser, ValueEnum};

use regex::Regex;

use crate::input::{self, FormatChoice, LoadOptions, PerfOptions};
use crate::profile::FORMATS;
use crate::profile::order::Order;
use crate::profile::slice::{TaskFilter, TimeRange};
use crate::profile::transform::Transform;
use crate::timeline::SliceArgs;
use crate::view::color::ColorChoice;

/// `--format`'s value that leaves the format to detection.
const AUTO: &str = "auto";

/// `--format`'s values: `auto`, then every format of [`FORMATS`] with a command-line name,
/// in the table's order.
static FORMAT_VALUES: LazyLock<Vec<FormatChoice>> = LazyLock::new(|| {
    std::iter::once(FormatChoice::Auto)
        .chain(
            FORMATS
                .iter()
                .filter_map(|f| f.cli.and(FormatChoice::forcing(f.format))),
        )
        .collect()
});

/// `--format NAME`: the names and help of [`FORMATS`].
impl ValueEnum for FormatChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &FORMAT_VALUES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.forced() {
            None => PossibleValue::new(AUTO).help("Detect from the content"),
            Some(format) => {
                let info = format.info();
                PossibleValue::new(info.cli?).help(info.help)
            }
        })
    }
}

/// When the viewer uses colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorArg {
    /// Detect the depth (`COLORTERM`, `TERM`); none with `NO_COLOR` or `TERM=dumb`.
    #[default]
    Auto,
    /// Colours even with `NO_COLOR`.
    Always,
    /// No colours: reverse video and bold instead.
    Never,
    /// 24-bit colour.
    Truecolor,
    /// 256 colours.
    #[value(name = "256")]
    Ansi256,
    /// 16 colours.
    #[value(name = "16")]
    Ansi16,
}

impl From<ColorArg> for ColorChoice {
    fn from(c: ColorArg) -> Self {
        match c {
            ColorArg::Auto => ColorChoice::Auto,
            ColorArg::Always => ColorChoice::Always,
            ColorArg::Never => ColorChoice::Never,
            ColorArg::Truecolor => ColorChoice::TrueColor,
            ColorArg::Ansi256 => ColorChoice::Ansi256,
            ColorArg::Ansi16 => ColorChoice::Ansi16,
        }
    }
}

/// What `--top` ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum TopBy {
    /// Functions.
    #[default]
    Function,
    /// Libraries: the DSO (perf) or module (SystemTap) of each frame.
    Library,
}

/// Sibling order on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OrderArg {
    /// Alphabetical, as FlameGraph (stable when comparing profiles).
    #[default]
    Alpha,
    /// Heaviest first.
    Weight,
}

impl From<OrderArg> for Order {
    fn from(o: OrderArg) -> Self {
        match o {
            OrderArg::Alpha => Order::Alpha,
            OrderArg::Weight => Order::Weight,
        }
    }
}

/// What `--export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportArg {
    /// Collapsed stacks, sorted (differential `stack BEFORE AFTER` for two inputs).
    Folded,
    /// An interactive SVG flame graph (rendered by inferno).
    Svg,
}

/// What `--heatmap` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HeatmapArg {
    /// `second,offset_ms,samples` lines: 1 s columns, 20 ms rows, empty cells left out.
    Csv,
}

/// The exit statuses, as `--help` and the README list them.
pub mod exit {
    /// An error: an input could not be read or holds no profile, or the output could not
    /// be written (a full disk, an I/O error; a reader that closed the pipe early is no
    /// error: the output ends quietly with status 0).
    pub const ERROR: u8 = 1;
    /// A usage error (a bad flag or value), as clap reports it.
    pub const USAGE: u8 = 2;
    /// An input ended early (a truncated gzip, a read error): the output was written from
    /// what was read before, so it is partial.
    pub const PARTIAL: u8 = 3;
}

/// The exit statuses at the end of `--help`.
const EXIT_STATUS: &str = "Exit status:
  0  done (also when a reader such as `head` closes the pipe early)
  1  error: an input could not be read or holds no profile, or the output could not be written
  2  usage error: a bad flag or value, or a time or task flag the input cannot answer
  3  an input ended early (truncated gzip, read error): the output holds what was read before";

/// What `--help` says flametui is, with every format it reads.
const ABOUT: &str = "A terminal flame graph explorer. Reads perf.data recordings, perf script, SystemTap, \
bpftrace, pprof, speedscope, Chrome .cpuprofile and folded stacks, and through inferno's collapsers DTrace, \
macOS sample, VTune, xctrace, Visual Studio and GHC .prof profiles; the format is detected from the content \
(--format overrides it)";

/// A terminal flame graph explorer for perf script, `SystemTap`, bpftrace, pprof, speedscope,
/// Chrome `.cpuprofile`, folded stacks and the formats inferno's collapsers read.
#[derive(Debug, Parser)]
#[command(version, about = ABOUT, long_about = None, after_help = EXIT_STATUS)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// `record` or `top`: perf run for you, its profile shown live.
    #[command(subcommand)]
    pub command: Option<crate::record::args::Command>,

    /// Profile(s) to read: a path, or `-` for standard input; gzip is read directly.
    /// Two profiles are compared (BEFORE AFTER).
    #[arg(value_name = "PROFILE", num_args = 0..=2)]
    pub profiles: Vec<String>,

    /// Input format.
    #[arg(long, value_enum, default_value_t = FormatChoice::Auto)]
    pub format: FormatChoice,

    /// With two profiles: scale BEFORE's counts to AFTER's total (as difffolded.pl -n).
    #[arg(short = 'n', long)]
    pub normalize: bool,

    /// Write the profile in this format instead of opening the viewer.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub export: Option<ExportArg>,

    /// Output file for --export (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Print the N heaviest functions (self and total weight) and exit.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// What --top ranks: functions, or the libraries (DSOs, modules) the frames live in.
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = TopBy::Function, requires = "top")]
    pub top_by: TopBy,

    /// Print a plain-text report (header, top functions, call tree) and exit.
    #[arg(long)]
    pub print: bool,

    /// Print the source lines of every function matching REGEX with their self and
    /// total weight, as `go tool pprof -list` (inputs with lines: pprof, `perf script -F
    /// +srcline`, perf.data of binaries built with -g, .cpuprofile, speedscope with files
    /// and lines), and exit. It counts the samples of `--time` and `--comms/--pids/--tids`
    /// (not for .cpuprofile, whose lines are per node); the transforms, which change
    /// frames, do not apply to lines.
    #[arg(
        long,
        value_name = "REGEX",
        conflicts_with_all = [
            "export", "top", "print", "exclude", "focus", "hide", "collapse_lib",
            "collapse_recursion", "merge_inlined", "invert", "compare_time", "heatmap",
        ]
    )]
    pub annotate: Option<String>,

    /// Look for source files under DIR first (several allowed): the path the profile
    /// names below it, then its file name.
    #[arg(long, value_name = "DIR")]
    pub source_path: Vec<PathBuf>,

    /// Rewrite source paths that start with OLD to start with NEW (several allowed; the
    /// first that matches), as pprof's `-trim_path`.
    #[arg(long, value_name = "OLD=NEW", value_parser = crate::source_files::SourceSearch::prefix)]
    pub source_prefix: Vec<(String, String)>,

    /// --top, --print: write every weight as an exact integer in the profile's unit
    /// (nanoseconds, events) for scripts, rather than times in human units (`9.75 s`).
    #[arg(long)]
    pub exact: bool,

    /// Print where every input line went (samples, dropped, comments, blank, skipped).
    #[arg(long)]
    pub stats: bool,

    /// Leave frames under this share of the total out of the printed call tree.
    #[arg(long, value_name = "PERCENT", default_value_t = 1.0)]
    pub min_percent: f64,

    /// Drop stacks that contain a frame matching this regex (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub exclude: Vec<String>,

    /// Keep only stacks through a frame matching this regex, re-rooted at it.
    #[arg(long, value_name = "REGEX")]
    pub focus: Option<String>,

    /// Remove frames matching this regex; their callees attach to their caller (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub hide: Vec<String>,

    /// Merge each run of consecutive frames in a library (DSO, module) whose name matches
    /// this regex into one frame named after the library (repeatable; '.' for all).
    #[arg(long, value_name = "REGEX")]
    pub collapse_lib: Vec<String>,

    /// Merge directly repeated frames of one function (recursion) into one.
    #[arg(long)]
    pub collapse_recursion: bool,

    /// Merge inlined frames (perf's '(inlined)') into the function they are inlined into,
    /// which then gets their self time, as 'perf report --no-children --sort sym' counts it.
    #[arg(long)]
    pub merge_inlined: bool,

    /// What the counts of folded stacks are, as flamegraph.pl's and inferno's --countname:
    /// 'ns' (or 'nanoseconds') shows them as times (1.23 s), as a folded export of a
    /// cpu-clock or off-CPU profile holds; another name labels them ('bytes'). Without it
    /// they are samples. Other formats say what their weights are.
    #[arg(long, value_name = "NAME")]
    pub countname: Option<String>,

    /// Bottom-up view: leaves become roots.
    #[arg(long)]
    pub invert: bool,

    /// Order of sibling frames in the viewer and the printed call tree.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = OrderArg::Alpha)]
    pub order: OrderArg,

    /// Viewer: show mangled C++ and Rust names as the input spells them (`d` toggles).
    #[arg(long, conflicts_with = "demangle")]
    pub no_demangle: bool,

    /// --export, --top, --print: demangle C++ and Rust names (the viewer does by default;
    /// text outputs keep the input's names without this).
    #[arg(long)]
    pub demangle: bool,

    /// Viewer: fold template and argument lists of long names into `<…>` and `(…)` (`S`
    /// toggles; `y` still copies the whole name).
    #[arg(long)]
    pub short_names: bool,

    /// Print a shell completion script and exit.
    #[arg(long, value_enum, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,

    /// Print the man page (roff) and exit.
    #[arg(long, exclusive = true)]
    pub man: bool,

    /// Open a small real profile compiled into flametui (no file, no perf needed): a web
    /// service's named threads on and off the CPU, kernel and user frames, and a change of
    /// phase halfway for the heat map. Shown as on+off-CPU time unless --metric says
    /// otherwise.
    #[arg(long, conflicts_with = "profiles")]
    pub demo: bool,

    /// Parser threads, 1 to 4 × the cores (default: one per core, at most 8, for perf
    /// script; one for the other formats, whose merging costs more than it saves).
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// Colours of the viewer.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    pub color: ColorArg,

    /// perf: show this event (default: the first event seen; the others are metrics).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,

    /// Show this metric: a perf event (`cpu-clock`, `sched:sched_switch`), a pprof sample
    /// type as `go tool pprof -sample_index` names it (`cpu`, `samples`, `alloc_space`, …),
    /// or a SystemTap half (`on-cpu`, `off-cpu`, `on+off-cpu`). Default: the first event,
    /// pprof's default, both halves. `m` switches in the viewer.
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,

    /// perf.data: look for the recording's binaries under this directory first (as
    /// `DIR/path` and `DIR/file-name`; perf's `--symfs`).
    #[arg(long, value_name = "DIR")]
    pub symfs: Option<std::path::PathBuf>,

    /// perf.data: name kernel frames from this kallsyms file instead of `/proc/kallsyms`.
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<std::path::PathBuf>,

    /// perf.data: perf's build-id cache, where `perf record` keeps a copy of each binary
    /// (found there when rebuilt or deleted since). Default: `$PERF_BUILDID_DIR`, else
    /// `~/.debug`, as perf.
    #[arg(long, value_name = "DIR")]
    pub buildid_dir: Option<std::path::PathBuf>,

    /// perf: include the PID in the process frame (`comm-PID`).
    #[arg(long)]
    pub pid: bool,

    /// perf: include PID and TID in the process frame (`comm-PID/TID`).
    #[arg(long)]
    pub tid: bool,

    /// perf, bpftrace: annotate kernel frames with `_[k]`.
    #[arg(long)]
    pub kernel: bool,

    /// perf: annotate JIT frames with `_[j]`.
    #[arg(long)]
    pub jit: bool,

    /// perf: all annotations (--kernel --jit).
    #[arg(long)]
    pub all: bool,

    /// perf: keep addresses of unresolved frames (`[unknown <addr>]`); bpftrace: keep
    /// `+offset` suffixes.
    #[arg(long)]
    pub addrs: bool,

    /// perf: keep the samples taken in [START, END): seconds from the first sample
    /// (`37.2,37.4`) or shares of the recording (`10%,20%`).
    #[arg(long, value_name = "START,END")]
    pub time: Option<TimeRange>,

    /// perf: with --time, compare this range (BEFORE) with the --time range (AFTER); with
    /// --export folded, write the differential file `stack BEFORE AFTER`.
    #[arg(long, value_name = "START,END", requires = "time")]
    pub compare_time: Option<TimeRange>,

    /// perf: keep only the samples of these commands (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub comms: Option<Vec<String>>,

    /// perf: keep only the samples of these process ids (comma-separated; perf script
    /// prints them with `-F +pid`).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub pids: Option<Vec<i64>>,

    /// perf: keep only the samples of these thread ids (comma-separated).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub tids: Option<Vec<i64>>,

    /// perf: print the heat map of the samples (after --time and the task filters): one
    /// line per 20 ms cell with samples, by second from the first sample.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        conflicts_with_all = ["export", "top", "print", "compare_time"]
    )]
    pub heatmap: Option<HeatmapArg>,
}

/// `--threads N`: from 1 to [`input::max_threads`] (more only costs memory: see there).
/// 0 is refused rather than read as "one per core": leaving the flag out already means that.
fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|e| format!("{e}: give a whole number of threads"))?;
    let max = input::max_threads();
    match n {
        0 => Err("at least 1 thread is needed (leave --threads out for the default)".to_owned()),
        n if n > max => Err(format!(
            "at most {max} threads (4 × the cores here): more cannot parse faster"
        )),
        n => Ok(n),
    }
}

/// Refuses a profile that is perf script's `--pid LIST` or `--tid LIST` filter: a list of
/// ids right after `--pid` or `--tid` in `raw` (the command line as given), which clap
/// takes for a path since these flags take no value here. A path for which `exists`
/// holds is a file and is read as one.
///
/// # Errors
/// [`crate::Error::IdsAsProfile`] for the first such profile that does not exist.
pub fn check_id_lists(
    raw: &[OsString],
    profiles: &[String],
    exists: impl Fn(&str) -> bool,
) -> Result<(), crate::Error> {
    let is_ids = |s: &str| {
        s.split(',')
            .all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
    };
    let options = raw.iter().take_while(|a| *a != "--");
    for (flag, value) in options.clone().zip(options.skip(1)) {
        let threads = match flag.to_str() {
            Some("--pid") => false,
            Some("--tid") => true,
            _ => continue,
        };
        let Some(ids) = value.to_str().filter(|v| is_ids(v)) else {
            continue;
        };
        if profiles.iter().any(|p| p == ids) && !exists(ids) {
            return Err(crate::Error::IdsAsProfile {
                ids: ids.to_owned(),
                threads,
            });
        }
    }
    Ok(())
}

impl Args {
    /// Where source files are looked for (`--source-path`, `--source-prefix`).
    pub fn source_search(&self) -> crate::source_files::SourceSearch {
        crate::source_files::SourceSearch {
            dirs: self.source_path.clone(),
            prefixes: self.source_prefix.clone(),
        }
    }

    /// How the viewer shows names at start.
    pub fn name_style(&self) -> crate::view::names::NameStyle {
        crate::view::names::NameStyle {
            demangle: !self.no_demangle,
            short: self.short_names,
        }
    }

    /// The transforms these arguments ask for, in the order they apply:
    /// exclude, focus, hide, collapse library, collapse recursion, invert.
    ///
    /// # Errors
    /// An invalid regex, named with the flag it came from.
    pub fn transforms(&self) -> Result<Vec<Transform>, crate::Error> {
        let re = |flag: &str, s: &str| {
            Regex::new(s).map_err(|e| {
                crate::Error::Usage(format!("--{flag} {}: {e}", crate::error::quoted(s)))
            })
        };
        let mut out = Vec::new();
        for e in &self.exclude {
            out.push(Transform::Exclude(re("exclude", e)?));
        }
        if let Some(f) = &self.focus {
            out.push(Transform::Focus(re("focus", f)?));
        }
        for h in &self.hide {
            out.push(Transform::Hide(re("hide", h)?));
        }
        for l in &self.collapse_lib {
            out.push(Transform::CollapseLibrary(re("collapse-lib", l)?));
        }
        if self.collapse_recursion {
            out.push(Transform::CollapseRecursion);
        }
        if self.merge_inlined {
            out.push(Transform::MergeInlined);
        }
        if self.invert {
            out.push(Transform::Invert);
        }
        Ok(out)
    }

    /// The slicing flags (`--time`, `--compare-time`, task lists, `--heatmap`).
    pub fn slice_args(&self) -> SliceArgs {
        SliceArgs {
            time: self.time,
            compare_time: self.compare_time,
            tasks: TaskFilter {
                comms: self.comms.clone(),
                pids: self.pids.clone(),
                tids: self.tids.clone(),
            },
            heatmap: self.heatmap.is_some(),
        }
    }

    /// The loading options these arguments ask for.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            format: self.format,
            perf: PerfOptions {
                include_pid: self.pid || self.tid,
                include_tid: self.tid,
                annotate_kernel: self.kernel || self.all,
                annotate_jit: self.jit || self.all,
                include_addrs: self.addrs,
                event: self.event.clone(),
                event_from_metric: false,
                no_timeline: false,
                names_only: false,
            },
            threads: self.threads,
            snapshots: None,
            chunk_size: None,
            metric: self.metric.clone().or_else(|| {
                self.demo
                    .then(|| crate::profile::metrics::BOTH_HALVES.to_owned())
            }),
            perf_data: crate::input::PerfDataOptions {
                symfs: self.symfs.iter().cloned().collect(),
                kallsyms: self.kallsyms.clone(),
                buildid_dir: self.buildid_dir.clone().or_else(default_buildid_dir),
                // Set by the binary for the viewer and `--annotate`.
                lines: false,
            },
            count_name: self.countname.clone(),
        }
    }
}

/// perf's build-id cache: `$PERF_BUILDID_DIR`, else `$HOME/.debug`.
fn default_buildid_dir() -> Option<std::path::PathBuf> {
    match std::env::var_os("PERF_BUILDID_DIR") {
        Some(dir) if !dir.is_empty() => Some(dir.into()),
        _ => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| std::path::PathBuf::from(h).join(".debug")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_after_pid_or_tid_are_perfs_filters() {
        let raw = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        let profiles = |args: &[&str]| Args::try_parse_from(args).unwrap().profiles;
        let check = |args: &[&str], exists: bool| {
            check_id_lists(&raw(args), &profiles(args), |_| exists).map_err(|e| e.to_string())
        };
        let err = check(&["flametui", "--pid", "17346", "f"], false).unwrap_err();
        assert!(err.starts_with("17346: no such file; "), "{err}");
        assert!(err.contains("use --pids 17346 "), "{err}");
        let err = check(&["flametui", "f", "--tid", "1,2"], false).unwrap_err();
        assert!(err.contains("use --tids 1,2 "), "{err}");
        let usage = check_id_lists(&raw(&["x", "--pid", "7"]), &["7".into()], |_| false);
        assert!(usage.is_err_and(|e| e.is_usage()));
        for ok in [
            &["flametui", "--pid", "17346", "f"][..],
            &["flametui", "--pid", "f", "17346"][..],
            &["flametui", "--pid", "1,,2", "f"][..],
            &["flametui", "--pid", "--", "17346"][..],
        ] {
            let exists = ok[2] == "17346";
            assert_eq!(check(ok, exists), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn help_lists_every_exit_status() {
        for code in [0, exit::ERROR, exit::USAGE, exit::PARTIAL] {
            assert!(EXIT_STATUS.contains(&format!("\n  {code}  ")), "{code}");
        }
        let usage = Args::try_parse_from(["flametui", "--threads", "0"]).unwrap_err();
        assert_eq!(usage.exit_code(), i32::from(exit::USAGE));
    }
}
