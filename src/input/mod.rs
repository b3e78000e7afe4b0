//! Stage: bytes → format detection → nom parser → call tree.
//!
//! [`load_path`] / [`load_reader`] stream the input line by line (gzip is recognised by its
//! magic bytes), sniff the format from the first lines unless it is forced, and feed every
//! line to the format's parser, which inserts samples into a [`CallTree`](crate::profile::CallTree).

mod bpftrace;
mod capped;
mod common;
pub(crate) mod demo;
mod detect;
mod folded;
pub(crate) mod inferno;
mod json;
mod live;
mod parallel;
mod perf;
mod perf_data;
mod pprof;
pub(crate) mod stap;
mod stream;

pub use demo::PATH as DEMO_PATH;
pub use detect::detect;
pub use live::Snapshots;
pub use perf::PerfOptions;
pub use perf_data::PerfDataOptions;
#[doc(hidden)] // the pprof schema's messages, for benches that write pprof profiles
pub use pprof::proto as pprof_proto;

mod api;
mod collector;
mod finish;
mod load;
mod load_text;
mod loaded;
mod options;

pub use collector::{Collector, MAX_OTHER_EVENTS, ParseState};
pub use load::{
    Opened, PERF_DATA_MAGIC, load_path, load_path_parts, load_reader, load_reader_parts, open_path,
    source_name,
};
pub use loaded::Loaded;
pub use options::{FormatChoice, LoadOptions, max_threads};
