//! Which profiles the command line names, and what opens when it names none. (A module of
//! the binary, declared by `main.rs`; not part of the library.)

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::Path;

use anyhow::{Result, bail};
use flametui::cli::{self, Args};
use flametui::input;

/// What `flametui` opens without arguments on a terminal, as `perf report` does.
const DEFAULT_RECORDING: &str = "perf.data";

/// The profiles to open: those named; else standard input when it is not a terminal, else
/// `./perf.data` when it exists, as `perf report` opens it.
///
/// # Errors
/// A usage error when there is none of those, or when `-` reads a terminal.
pub(crate) fn profile_paths(args: &Args) -> Result<Vec<String>> {
    if args.demo {
        return Ok(vec![input::DEMO_PATH.to_owned()]);
    }
    let mut paths = args.profiles.clone();
    // `--pid 17346` as perf script spells its filter: the ids were read as a path.
    let raw: Vec<OsString> = std::env::args_os().collect();
    cli::check_id_lists(&raw, &paths, |p| Path::new(p).exists())?;
    if paths.iter().any(|p| p == "-") && io::stdin().is_terminal() {
        bail!(
            "`-` reads the profile from standard input, which is a terminal here: pipe one in (`perf script | flametui -`) or name a file"
        );
    }
    if paths.is_empty() {
        if !io::stdin().is_terminal() {
            paths.push("-".to_owned());
        } else if Path::new(DEFAULT_RECORDING).exists() {
            // As `perf report` does: the recording `perf record` just wrote here.
            paths.push(DEFAULT_RECORDING.to_owned());
        } else {
            return Err(flametui::Error::Usage(format!(
                "no profile given, and no ./{DEFAULT_RECORDING} here: run `flametui PROFILE`, \
                 pipe one in (`perf script | flametui -`), record one (`flametui record -- \
                 COMMAND`), or look at the demo (`flametui --demo`); see --help"
            ))
            .into());
        }
    }
    Ok(paths)
}
