//! Errors of the library, each naming the input it is about (sanitized: a file name with
//! a newline or an escape sequence cannot fake or garble the message).

use std::io;

use crate::text::sanitize;

/// Everything that can go wrong while loading or exporting a profile.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input could not be opened or read.
    #[error("{}: {error}", sanitize(.source_name))]
    Read {
        /// Path or `<stdin>`.
        source_name: String,
        /// The I/O error.
        #[source]
        error: io::Error,
    },
    /// The input holds nothing.
    #[error("{}: the input is empty", sanitize(.source_name))]
    Empty {
        /// Path or `<stdin>`.
        source_name: String,
    },
    /// The content matches none of the known formats.
    #[error(
        "{}: not a known profile format (perf script, SystemTap print_stack, bpftrace maps, pprof, speedscope or .cpuprofile JSON, folded stacks `a;b;c COUNT`, or through inferno DTrace, macOS sample, VTune CSV, xctrace XML, Visual Studio CSV, GHC .prof); it starts with:\n{head}",
        sanitize(.source_name)
    )]
    UnknownFormat {
        /// Path or `<stdin>`.
        source_name: String,
        /// The first lines, for the user to see what was read.
        head: String,
    },
    /// The input was read but no sample could be used.
    #[error("{}: no usable samples in {format} input{detail}", sanitize(.source_name))]
    NoSamples {
        /// Path or `<stdin>`.
        source_name: String,
        /// The format it was read as.
        format: String,
        /// What was skipped, if anything.
        detail: String,
    },
    /// A differential folded file was given as one side of a comparison of two inputs: it
    /// is a comparison already, and taking one of its columns would be a silent guess.
    #[error(
        "{}: a differential folded file (`stack BEFORE AFTER`) is a comparison already and cannot be one side of another; open it alone to compare its two columns",
        sanitize(.source_name)
    )]
    DiffAsSide {
        /// Path or `<stdin>`.
        source_name: String,
    },
    /// A perf.data recording that cannot be read (the message says why).
    #[error("{}: cannot read this perf.data recording: {}", sanitize(.source_name), sanitize(.message))]
    PerfData {
        /// Path or `<stdin>`.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A pprof profile that cannot be decoded or refers to what it does not hold.
    #[error("{}: {}", sanitize(.source_name), sanitize(.message))]
    Pprof {
        /// Path or `<stdin>`.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A JSON profile (speedscope, `.cpuprofile`) that cannot be decoded or is inconsistent.
    #[error("{}: {}", sanitize(.source_name), sanitize(.message))]
    Json {
        /// Path or `<stdin>`.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// One of inferno's collapsers could not read the input (DTrace, macOS sample, …).
    #[error(
        "{}: not readable as {format} input: {}",
        sanitize(.source_name),
        sanitize(.message)
    )]
    Collapse {
        /// Path or `<stdin>`.
        source_name: String,
        /// The format the collapser reads.
        format: String,
        /// What inferno said.
        message: String,
    },
    /// `--metric` names a metric the profile does not have.
    #[error(
        "{}: no metric {} in this profile; --metric takes one of: {}",
        sanitize(.source_name),
        crate::error::quoted(.metric),
        sanitize(.metrics)
    )]
    UnknownMetric {
        /// Path or `<stdin>`.
        source_name: String,
        /// The name asked for.
        metric: String,
        /// The metrics there are, comma-separated.
        metrics: String,
    },
    /// Writing output failed.
    #[error("{}: {error}", sanitize(.target))]
    Write {
        /// Output path or `<stdout>`.
        target: String,
        /// The I/O error.
        #[source]
        error: io::Error,
    },
    /// A command-line value is unusable, or no profile was named (a usage error, exit
    /// status 2).
    #[error("{0}")]
    Usage(String),
    /// A time or task flag was given for an input that cannot answer it: no timestamps
    /// (no timeline), no tasks, or no process ids. A usage error (exit status 2).
    #[error("{}: {flag}: {why}", sanitize(.source_name))]
    NoTimeline {
        /// Path or `<stdin>`.
        source_name: String,
        /// The flag that needs what is missing (`--time`).
        flag: String,
        /// What is missing and how to get it.
        why: String,
    },
    /// A profile path that does not exist and is a list of ids given after `--pid` or
    /// `--tid`: perf script's spelling of flametui's `--pids`/`--tids` (flametui's `--pid`
    /// and `--tid` are inferno's naming options and take no value). A usage error.
    #[error("{}", ids_as_profile(.ids, *.threads))]
    IdsAsProfile {
        /// The path as given: ids, comma-separated.
        ids: String,
        /// It followed `--tid` (thread ids), not `--pid`.
        threads: bool,
    },
    /// The output named with `-o` (or in the viewer) is one of the inputs: writing it
    /// would destroy the input. A usage error (exit status 2).
    #[error(
        "refusing to write {}: it is the input {} (the same file); choose another output",
        sanitize(.output),
        sanitize(.input)
    )]
    OutputIsInput {
        /// The output as given.
        output: String,
        /// The input as given.
        input: String,
    },
    /// A time or task flag is unusable as given (an empty range, a combination not
    /// supported). A usage error (exit status 2).
    #[error("{0}")]
    SliceUsage(String),
    /// A time range or task set selects no sample of the input.
    #[error("{}: {what} selects no sample ({detail})", sanitize(.source_name))]
    EmptySlice {
        /// Path or `<stdin>`.
        source_name: String,
        /// The flags, as given.
        what: String,
        /// What the input has instead (how long it lasts, its tasks).
        detail: String,
    },
}

impl Error {
    /// True for the errors of a bad flag or value that the command line reports with
    /// exit status 2 (the others are 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Usage(_)
                | Error::NoTimeline { .. }
                | Error::SliceUsage(_)
                | Error::IdsAsProfile { .. }
                | Error::UnknownMetric { .. }
                | Error::OutputIsInput { .. }
        )
    }
}

/// The message of [`Error::IdsAsProfile`].
fn ids_as_profile(ids: &str, threads: bool) -> String {
    let (flag, tasks, naming) = if threads {
        ("tid", "threads", "pid and tid")
    } else {
        ("pid", "processes", "pid")
    };
    let ids = sanitize(ids);
    format!(
        "{ids}: no such file; to keep only these {tasks} use --{flag}s {ids} (--{flag} names frames by {naming}, as inferno does)"
    )
}

/// A path as a shell word: as is when it holds only characters no shell treats specially,
/// else in single quotes (a quote inside written `'\''`); escaped for the terminal
/// ([`sanitize`]) like every name in a message.
pub fn shell_word(path: &str) -> String {
    let plain = !path.is_empty()
        && !path.starts_with('~')
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c));
    if plain { path.to_owned() } else { quoted(path) }
}

/// A value the user gave, as a message shows it: in single quotes, so that leading and
/// trailing spaces (or an empty value) show, escaped for the terminal ([`sanitize`]), and
/// a quote inside written as a shell reads it (`'it'\''s'`), so that it can be pasted back.
pub fn quoted(value: &str) -> String {
    format!("'{}'", sanitize(value).replace('\'', r"'\''"))
}

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn paths_are_quoted_for_a_shell_only_when_needed() {
        use super::shell_word;
        assert_eq!(shell_word("perf.data"), "perf.data");
        assert_eq!(shell_word("runs/a-1.data"), "runs/a-1.data");
        assert_eq!(shell_word("my run.data"), "'my run.data'");
        assert_eq!(shell_word("it's.data"), r"'it'\''s.data'");
        assert_eq!(shell_word("$(rm -rf x)"), "'$(rm -rf x)'");
        assert_eq!(shell_word("~x"), "'~x'");
        assert_eq!(shell_word("a\u{1b}]0;t\u{7}"), r"'a\x1b]0;t\x07'");
    }

    #[test]
    fn quoted_values_show_their_spaces_and_nothing_raw() {
        assert_eq!(quoted(" sort"), "' sort'");
        assert_eq!(quoted(""), "''");
        assert_eq!(quoted("it's"), r"'it'\''s'");
        assert_eq!(quoted("a\u{1b}[2J\n"), r"'a\x1b[2J\x0a'");
    }
}
