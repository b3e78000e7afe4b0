//! The arguments of `flametui record` and `flametui top` (clap derive). Flag names follow
//! `perf record` and `perf top` where they mean the same (`-F`, `-p`, `-a`, `-o`, `-d`).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// A prime near 1 kHz: samples do not beat with work done on a round period (a 1 ms
/// timer, a 100 Hz tick), as perf's own default of 4000 Hz may, and 1 kHz costs little.
pub const DEFAULT_FREQ: u32 = 997;

/// `flametui record` and `flametui top`.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Run a command under `perf record` and show its profile live, then the final one.
    #[command(after_help = RECORD_HELP)]
    Record(RecordArgs),
    /// A live profile of the whole system (or of some processes), refreshed every second.
    #[command(after_help = TOP_HELP)]
    Top(TopArgs),
}

const RECORD_HELP: &str = "\
Examples:
  flametui record -- ./app --input big.txt     profile a command (its output goes to a log file)
  flametui record -p 4242                      attach to a running process until Ctrl-C
  flametui record -a -o sys.data -- sleep 10   the whole system for 10 s, kept in sys.data
  flametui record --off-cpu -- ./server        on- and off-CPU time (m switches metric)

In the viewer, Ctrl-C stops the command and perf and keeps what was recorded; q quits (and
stops them). Without a terminal the command's output passes through and a summary is
printed at the end. The exit status is the command's.";

const TOP_HELP: &str = "\
Keys beyond the viewer's (in the graph): 1 accumulate, 2 window, 3 decay, 4 diff (last window
against the one before), < > window length, z freezes the screen (reading goes on), q quits.";

/// How the call stacks are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CallGraphArg {
    /// DWARF when the main binary lacks frame pointers, else frame pointers.
    #[default]
    Auto,
    /// Frame pointers: cheap, exact where every function keeps them.
    Fp,
    /// A copy of each sample's stack, unwound with DWARF CFI: works without frame
    /// pointers, at 8 KB per sample.
    Dwarf,
    /// The CPU's last branch record (Intel only): user-space call chains of limited depth.
    Lbr,
}

/// `flametui record`'s options.
#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// Samples per second per CPU.
    #[arg(short = 'F', long = "freq", value_name = "HZ", default_value_t = DEFAULT_FREQ,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub freq: u32,

    /// How call stacks are recorded.
    #[arg(short = 'g', long, value_enum, value_name = "MODE", default_value_t = CallGraphArg::Auto)]
    pub call_graph: CallGraphArg,

    /// Attach to these running processes (comma-separated ids) instead of starting one;
    /// recording stops with Ctrl-C, or when they all end.
    #[arg(short = 'p', long = "pid", value_name = "PID[,PID…]", value_delimiter = ',',
          conflicts_with_all = ["all_cpus", "command"])]
    pub pids: Vec<u32>,

    /// Every CPU of the system (for as long as the command runs, or until Ctrl-C).
    #[arg(short = 'a', long = "all-cpus")]
    pub all_cpus: bool,

    /// Also record the scheduler's switches, for off-CPU time (`m` shows it; see the
    /// README's off-CPU section).
    #[arg(long)]
    pub off_cpu: bool,

    /// Keep the recording in FILE (perf.data format: `flametui FILE` and `perf report -i
    /// FILE` read it). An existing FILE is replaced only once the new one is complete.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Where the command's output goes while the viewer runs (default: a file in the
    /// temporary directory, named on the status line and at exit).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// More options for `perf record`, split at spaces; may be repeated
    /// (`--perf='-e cycles' --perf=--no-inherit`).
    #[arg(long = "perf", value_name = "OPTIONS", allow_hyphen_values = true)]
    pub perf: Vec<String>,

    /// The command to run, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// What `top` shows at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ModeArg {
    /// Everything since start.
    #[default]
    Accumulate,
    /// The last `--window` seconds.
    Window,
    /// perf top's decay: each refresh weighs the past by 7/8.
    Decay,
    /// The last `--window` seconds against the `--window` seconds before.
    Diff,
}

/// `flametui top`'s options.
#[derive(Debug, Clone, Args)]
pub struct TopArgs {
    /// Samples per second per CPU.
    #[arg(short = 'F', long = "freq", value_name = "HZ", default_value_t = DEFAULT_FREQ,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub freq: u32,

    /// Seconds between refreshes.
    #[arg(short = 'd', long = "delay", value_name = "SECONDS", default_value_t = 1.0,
          value_parser = parse_delay)]
    pub delay: f64,

    /// What is shown at start (1, 2, 3, 4 switch it live).
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ModeArg::Accumulate)]
    pub mode: ModeArg,

    /// The window of `--mode window` and `--mode diff`, in refreshes.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub window: u32,

    /// Only these processes (comma-separated ids) instead of the whole system.
    #[arg(
        short = 'p',
        long = "pid",
        value_name = "PID[,PID…]",
        value_delimiter = ','
    )]
    pub pids: Vec<u32>,

    /// Only the tasks with these command names (comma-separated).
    #[arg(long, value_name = "COMM[,COMM…]", value_delimiter = ',')]
    pub comms: Vec<String>,

    /// How call stacks are recorded (auto: frame pointers, as perf top).
    #[arg(short = 'g', long, value_enum, value_name = "MODE", default_value_t = CallGraphArg::Auto)]
    pub call_graph: CallGraphArg,

    /// More options for `perf record`, split at spaces; may be repeated.
    #[arg(long = "perf", value_name = "OPTIONS", allow_hyphen_values = true)]
    pub perf: Vec<String>,
}

/// `-d`: from a tenth of a second to an hour.
fn parse_delay(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is no number of seconds"))?;
    if (0.1..=3600.0).contains(&v) {
        Ok(v)
    } else {
        Err("the delay is from 0.1 to 3600 seconds".to_owned())
    }
}
