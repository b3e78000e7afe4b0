//! `flametui record` without a terminal: perf writes the file, the command's output passes
//! through, and a summary follows on stderr.

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::args::RecordArgs;
use super::plan::{Choice, Plan, Sink, Wake};
use super::process::{self, Perf, PrivateDir, Stderr, Streams};
use super::{ERROR, Failure, Outcome, PERF, diagnose, is_root, load_options, shown_path};

/// Records into a file (the `-o` one, written under a temporary name and renamed once
/// complete, else a temporary one), with the command's output passing through; then a
/// summary of the profile on stderr.
pub(super) fn record_to_file(a: &RecordArgs, choice: &Choice) -> Result<Outcome, Failure> {
    let dir = PrivateDir::new("record").map_err(|e| Failure::io("temporary directory", &e))?;
    // perf writes the `-o` file's temporary twin, renamed over it once complete; a target
    // that is no regular file (a device) gets a copy of a file in the private directory.
    let mut keep = match &a.output {
        Some(out) => Some(
            crate::output::Replacement::create(out)
                .map_err(|e| Failure::io(&format!("cannot create {}", shown_path(out)), &e))?,
        ),
        None => None,
    };
    let file = match keep
        .as_ref()
        .and_then(crate::output::Replacement::temp_path)
    {
        Some(temp) => temp.to_owned(),
        None => dir.path().join("perf.data"),
    };
    let plan = Plan::record(a, choice.graph, Sink::File(&file), Wake::None);
    let streams = Streams {
        stdin_null: false,
        stdout_piped: false,
        stderr: Stderr::Piped,
    };
    // Ctrl-C goes to the whole foreground group: perf and the command stop, flametui stays
    // to report what was recorded.
    let interrupted = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted));
    let mut perf = Perf::spawn(
        OsStr::new(PERF),
        &plan.perf_args(a.all_cpus),
        streams,
        false,
        None,
    )
    .map_err(|e| Failure::io("cannot start perf", &e))?;
    let said = perf
        .take_stderr()
        .map(pass_through)
        .transpose()
        .map_err(|e| Failure::io("passing on perf's messages", &e))?;
    let status = perf
        .wait(None)
        .map_err(|e| Failure::io("waiting for perf", &e))?;
    let said = said.and_then(|h| h.join().ok()).unwrap_or_default();
    let recorded = std::fs::metadata(&file).is_ok_and(|m| m.len() > 0);
    let loaded =
        recorded.then(|| crate::input::load_path(&file.to_string_lossy(), &load_options()));
    let mut notes = match loaded {
        Some(Ok(l)) => vec![crate::report::top_table(
            l.main(),
            10,
            crate::report::Figures::Human,
        )],
        _ if perf_recorded(&said) => vec![no_samples(a.freq)],
        _ => {
            let message = diagnose::message(&said, status.code(), is_root(), a.all_cpus);
            return Err(Failure::new(message, ERROR));
        }
    };
    match (keep.take(), &a.output) {
        (Some(mut k), Some(out)) => {
            let copied = if k.temp_path().is_some() {
                Ok(0)
            } else {
                std::fs::File::open(&file).and_then(|mut f| io::copy(&mut f, &mut k))
            };
            copied
                .and_then(|_| k.commit())
                .map_err(|e| Failure::io(&format!("cannot write {}", shown_path(out)), &e))?;
            notes.push(format!("the recording is in {}", shown_path(out)));
        }
        _ => notes.push("the recording was not kept (-o FILE keeps it)".to_owned()),
    }
    Ok(Outcome {
        status: process::shell_status(status),
        notes,
    })
}

/// perf said it wrote its data (`[ perf record: Captured and wrote …`): it ran, whatever
/// the command's exit status.
pub(super) fn perf_recorded(said: &str) -> bool {
    said.contains("[ perf record: Captured and wrote")
}

/// The note when perf ran but took no sample.
pub(super) fn no_samples(freq: u32) -> String {
    format!(
        "no samples were recorded: the command ended before perf took one (at {freq} per \
         second, a command needs about {} ms of CPU)",
        1000 / freq.max(1)
    )
}

/// Copies perf's stderr to flametui's as it comes; returns its first 64 KB.
fn pass_through(
    mut from: std::process::ChildStderr,
) -> io::Result<std::thread::JoinHandle<String>> {
    crate::profile::threads::start(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        let mut err = io::stderr();
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let _ = err.write_all(&buf[..n]);
            if kept.len() < 64 << 10 {
                kept.extend_from_slice(&buf[..n]);
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}
