//! Errors of the library, each naming the input it is about.

use std::io;

/// Everything that can go wrong while loading or exporting a profile.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input could not be opened or read.
    #[error("{source_name}: {error}")]
    Read {
        /// Path or `<stdin>`.
        source_name: String,
        /// The I/O error.
        #[source]
        error: io::Error,
    },
    /// The input holds nothing.
    #[error("{source_name}: the input is empty")]
    Empty {
        /// Path or `<stdin>`.
        source_name: String,
    },
    /// The content matches none of the known formats.
    #[error(
        "{source_name}: not a known profile format (perf script, SystemTap print_stack, or folded stacks `a;b;c COUNT`); it starts with:\n{head}"
    )]
    UnknownFormat {
        /// Path or `<stdin>`.
        source_name: String,
        /// The first lines, for the user to see what was read.
        head: String,
    },
    /// The input was read but no sample could be used.
    #[error("{source_name}: no usable samples in {format} input{detail}")]
    NoSamples {
        /// Path or `<stdin>`.
        source_name: String,
        /// The format it was read as.
        format: String,
        /// What was skipped, if anything.
        detail: String,
    },
    /// Writing output failed.
    #[error("{target}: {error}")]
    Write {
        /// Output path or `<stdout>`.
        target: String,
        /// The I/O error.
        #[source]
        error: io::Error,
    },
    /// A command-line value is unusable.
    #[error("{0}")]
    Usage(String),
}

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
