//! `flametui record` and `flametui top`: perf started for the user, its output read live
//! by the pipe reader the viewer already has (`perf record -o - | flametui -`).
//!
//! ```text
//! args ─▶ plan (call graph: frames::check of the binary; perf's argv) ─▶ process::Perf
//!   perf stdout ─▶ process::tee (─▶ -o file) ─▶ terminal::explore_live ─▶ viewer
//!   perf stderr (+ the command's output) ─▶ log file ─▶ diagnose when nothing was recorded
//! ```
//!
//! Without a terminal, perf writes a file, the command's output passes through, and a
//! summary follows. The exit status is the command's, as a shell gives it.

pub mod args;
pub mod diagnose;
pub mod frames;
pub mod plan;
pub mod process;
mod text;
pub mod top;

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use self::args::RecordArgs;
use self::plan::{Choice, Plan, Sink, Target, Wake};
use self::process::{Perf, PrivateDir, Stderr, Streams};
use crate::input::LoadOptions;
use crate::text::sanitize;
use crate::view::color::ColorMode;

/// The program run as perf.
pub const PERF: &str = "perf";

/// How long a command may take to end after Ctrl-C before it is killed.
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

/// Exit status of an error (as `cli::exit::ERROR`).
pub(crate) const ERROR: u8 = 1;
/// Exit status of a usage error (as `cli::exit::USAGE`).
pub(crate) const USAGE: u8 = 2;

/// How a recording ended.
#[derive(Debug)]
pub struct Outcome {
    /// The exit status to give: the command's.
    pub status: u8,
    /// What to tell once the terminal is back (where the recording and the log are).
    pub notes: Vec<String>,
}

/// Why nothing was recorded.
#[derive(Debug)]
pub struct Failure {
    /// What to say.
    pub message: String,
    /// The exit status to give.
    pub status: u8,
}

impl Failure {
    pub(crate) fn new(message: impl Into<String>, status: u8) -> Self {
        Self {
            message: message.into(),
            status,
        }
    }

    pub(crate) fn io(what: &str, e: &io::Error) -> Self {
        Self::new(format!("{what}: {e}"), ERROR)
    }
}

/// What perf is asked to profile, checked: a command that exists, processes, or the system.
fn target(a: &RecordArgs) -> Result<Target<'_>, Failure> {
    if !a.pids.is_empty() {
        return Ok(Target::Pids(&a.pids));
    }
    if let Some(program) = plan::program(&a.command) {
        if frames::find(program, std::env::var_os("PATH").as_deref()).is_none() {
            return Err(Failure::new(
                format!(
                    "cannot run `{}`: no such command",
                    sanitize(&program.to_string_lossy())
                ),
                127,
            ));
        }
        return Ok(Target::Command(&a.command));
    }
    if a.all_cpus {
        return Ok(Target::System);
    }
    Err(Failure::new(
        "nothing to record: give a command after `--` (flametui record -- ./app), -p PID, or -a",
        USAGE,
    ))
}

/// `flametui record` and `flametui top` from the command line: the viewer on a terminal
/// that can run it, else text; what to tell afterwards on stderr. Returns the exit
/// status: the command's, 128 + the signal that ended the viewer, or the failure's.
pub fn run(command: &args::Command) -> u8 {
    use std::io::IsTerminal;
    let viewer = io::stdout().is_terminal()
        && crate::terminal::unusable_reason(std::env::var_os("TERM").as_deref()).is_none();
    let env = crate::view::color::ColorEnv::from_env();
    let colors = crate::view::color::detect(crate::view::color::ColorChoice::Auto, &env);
    let result = match command {
        args::Command::Record(a) => record(a, viewer, colors),
        args::Command::Top(a) => top::top(a, viewer, colors),
    };
    match result {
        Ok(outcome) => {
            for note in &outcome.notes {
                if note.contains('\n') {
                    eprint!("{note}");
                } else {
                    eprintln!("flametui: {note}");
                }
            }
            match crate::terminal::ended_by_signal() {
                Some(signal) => u8::try_from(128 + signal).unwrap_or(ERROR),
                None => outcome.status,
            }
        }
        Err(failure) => {
            eprintln!("flametui: {}", failure.message);
            failure.status
        }
    }
}

/// The call-graph mode for `target`, whose main binary is `binary`
/// ([`plan::main_binary`]).
pub fn choose_graph(
    asked: args::CallGraphArg,
    target: Target<'_>,
    binary: Option<&Path>,
) -> Choice {
    plan::choose(asked, binary, matches!(target, Target::System), |p| {
        frames::check(&std::fs::read(p).ok()?)
    })
}

/// Whether perf runs here, and has `--control`: `perf --version`, or why not.
///
/// # Errors
/// perf is missing, or is a wrapper that says its build for this kernel is.
pub fn perf_version() -> Result<bool, Failure> {
    let out = std::process::Command::new(PERF)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
                Failure::new(diagnose::not_installed(PERF), ERROR)
            }
            _ => Failure::io("cannot run perf", &e),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let all = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
        return Err(Failure::new(
            diagnose::message(&all, out.status.code(), is_root(), false),
            ERROR,
        ));
    }
    Ok(plan::has_control(&text))
}

/// flametui runs as root.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The command as one line, for the badge and the source name.
fn shown(command: &[OsString], target: Target<'_>) -> String {
    match target {
        Target::Command(_) => command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        Target::Pids(p) => format!(
            "pid {}",
            p.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ),
        Target::System => "all CPUs".to_owned(),
    }
}

/// The options the recording's stream is read with: lines for the Source screen.
fn load_options() -> LoadOptions {
    let mut opts = LoadOptions::default();
    opts.perf_data.lines = true;
    opts
}

/// `flametui record`: records in the viewer when `viewer`, else in a file with the
/// command's output passing through and a summary on stderr at the end.
///
/// # Errors
/// Nothing was recorded: perf is missing or refused, the command does not exist, or the
/// output cannot be written; the message says what to do.
pub fn record(a: &RecordArgs, viewer: bool, colors: ColorMode) -> Result<Outcome, Failure> {
    let target = target(a)?;
    let binary = plan::main_binary(target);
    if let Some(out) = &a.output {
        // The command's own file (a script) and the binary that runs it (its interpreter).
        let script = plan::program(&a.command)
            .and_then(|p| frames::find(p, std::env::var_os("PATH").as_deref()));
        let program: Vec<String> = script
            .iter()
            .chain(&binary)
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        crate::output::refuse_input(out, &program)
            .map_err(|e| Failure::new(e.to_string(), USAGE))?;
    }
    let control = perf_version()?;
    let choice = choose_graph(a.call_graph, target, binary.as_deref());
    let what = shown(&a.command, target);
    if viewer {
        record_live(a, &choice, control, (what, colors))
    } else {
        eprintln!(
            "flametui: recording {} with call graph {} ({})",
            sanitize(&what),
            choice.graph.perf_name(),
            sanitize(&choice.why)
        );
        text::record_to_file(a, &choice)
    }
}

/// A private directory and, when perf has `--control`, the FIFO in it that wakes perf.
///
/// # Errors
/// Neither can be made.
pub(crate) fn wake_dir(
    what: &str,
    control: bool,
) -> Result<(PrivateDir, Option<PathBuf>), Failure> {
    let dir = PrivateDir::new(what).map_err(|e| Failure::io("temporary directory", &e))?;
    let fifo = if control {
        Some(
            dir.fifo("control")
                .map_err(|e| Failure::io("control FIFO", &e))?,
        )
    } else {
        None
    };
    Ok((dir, fifo))
}

/// Starts perf for the viewer: its own process group, no standard input, its output
/// piped, its messages (and the command's output) to `log`, woken through `fifo`.
///
/// # Errors
/// perf cannot be started.
pub(crate) fn spawn_live(
    args: &[OsString],
    log: std::fs::File,
    fifo: Option<&Path>,
) -> Result<(Perf, std::process::ChildStdout), Failure> {
    let streams = Streams {
        stdin_null: true,
        stdout_piped: true,
        stderr: Stderr::File(log),
    };
    let mut perf = Perf::spawn(OsStr::new(PERF), args, streams, true, fifo)
        .map_err(|e| Failure::io("cannot start perf", &e))?;
    let stdout = perf
        .take_stdout()
        .ok_or_else(|| Failure::new("perf's output was not piped", ERROR))?;
    Ok((perf, stdout))
}

/// Records into the viewer, live.
fn record_live(
    a: &RecordArgs,
    choice: &Choice,
    control: bool,
    (what, colors): (String, ColorMode),
) -> Result<Outcome, Failure> {
    let (_dir, fifo) = wake_dir("record", control)?;
    let wake = fifo.as_deref().map_or(Wake::NoBuffering, Wake::Control);
    let plan = Plan::record(a, choice.graph, Sink::Pipe, wake);
    let (log_path, log) =
        process::new_log(a.log.as_deref()).map_err(|e| Failure::io("the command's log", &e))?;
    let keep = match &a.output {
        Some(out) => Some(
            crate::output::Replacement::create(out)
                .map_err(|e| Failure::io(&format!("cannot create {}", shown_path(out)), &e))?,
        ),
        None => None,
    };
    let (perf, stdout) = spawn_live(&plan.perf_args(a.all_cpus), log, fifo.as_deref())?;
    let (reader, tee) =
        process::tee(stdout, keep).map_err(|e| Failure::io("reading perf's output", &e))?;
    let perf = Arc::new(Mutex::new(perf));
    let stopper = Arc::clone(&perf);
    let stop = Box::new(move || {
        if let Ok(p) = stopper.lock() {
            p.interrupt();
        }
        "Stopping the command and perf… (the profile so far stays; q quits)".to_owned()
    });
    // The log's path first: at 80 columns the reason may be cut, the path must not be.
    let note = format!(
        "output: {} · call graph {} ({})",
        shown_path(&log_path),
        choice.graph.perf_name(),
        choice.why
    );
    let source = crate::terminal::LiveSource {
        reader: Box::new(reader),
        name: format!("perf record: {what}"),
        what,
        note,
        stop,
    };
    let look = (colors, crate::view::names::NameStyle::default());
    let app = crate::terminal::explore_live(source, &load_options(), look);
    after_live(a, app, &perf, tee, &log_path)
}

/// Once the viewer is done: perf stopped (quitting while it records stops it, as Ctrl-C
/// would) and waited for, the `-o` file committed, the log kept when it says something;
/// or why nothing was recorded.
fn after_live(
    a: &RecordArgs,
    app: io::Result<crate::app::App>,
    perf: &Mutex<Perf>,
    tee: std::thread::JoinHandle<io::Result<Option<crate::output::Replacement>>>,
    log_path: &Path,
) -> Result<Outcome, Failure> {
    let log_shown = shown_path(log_path);
    let status = {
        let mut p = perf
            .lock()
            .map_err(|_| Failure::new("perf's handle was lost", ERROR))?;
        if !p.ended() {
            p.interrupt();
        }
        p.wait(Some(PATIENCE))
            .map_err(|e| Failure::io("waiting for perf", &e))?
    };
    let kept = tee
        .join()
        .map_err(|_| Failure::new("perf's output reader failed", ERROR))?
        .map_err(|e| Failure::io("reading perf's output", &e))?;
    let app = app.map_err(|e| Failure::io("terminal", &e))?;
    let log_text = read_head(log_path, 64 << 10);
    let recorded = app.profile().is_some_and(|p| p.tree.total() > 0);
    let mut notes = Vec::new();
    if !recorded && (!status.success() || app.failure.is_some()) {
        if !text::perf_recorded(&log_text) {
            if a.log.is_none() {
                let _ = std::fs::remove_file(log_path);
            }
            let message = diagnose::message(&log_text, status.code(), is_root(), a.all_cpus);
            return Err(Failure::new(message, ERROR));
        }
        notes.push(text::no_samples(a.freq));
    }
    if let (Some(file), Some(out)) = (kept, &a.output) {
        file.commit()
            .map_err(|e| Failure::io(&format!("cannot write {}", shown_path(out)), &e))?;
        notes.push(format!(
            "the recording is in {0} (flametui {0}; perf report -i {0})",
            shown_path(out)
        ));
    }
    if log_text.trim().is_empty() && a.log.is_none() {
        let _ = std::fs::remove_file(log_path);
    } else {
        notes.push(format!(
            "the command's output and perf's messages are in {log_shown}"
        ));
    }
    Ok(Outcome {
        status: process::shell_status(status),
        notes,
    })
}

/// The first `most` bytes of a file, as text.
fn read_head(path: &Path, most: u64) -> String {
    let mut text = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(most).read_to_end(&mut text);
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// A path as the user may read it.
pub(crate) fn shown_path(path: &Path) -> String {
    sanitize(&path.display().to_string()).into_owned()
}
