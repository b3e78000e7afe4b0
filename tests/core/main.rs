//! Integration tests of the core pipeline: conformance with the peers' outputs, the CLI,
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::format_push_string,
    clippy::format_collect,
    clippy::case_sensitive_file_extension_comparisons
)]
//! and property tests. (The TUI has its own test binary.)

mod bombs;
mod bpftrace;
mod cli;
mod collapse;
mod conformance;
mod dwarf_hostile;
mod export_memory;
mod folded_tools;
mod formats;
mod fuzz_regressions;
mod golden;
mod hostile;
mod json;
mod limited;
mod metrics;
mod no_threads;
mod offcpu;
mod perf_data;
mod pprof;
mod props;
mod record;
mod shapes;
mod source_hostile;
mod source_json;
mod source_lines;
mod source_slices;
mod srcline;
mod structure;
mod system_wide;
mod timeline;

use std::path::PathBuf;

#[allow(dead_code)]
#[path = "../shared/busy.rs"]
mod busy;

/// Path of a file under `testdata/`.
///
/// # Panics
/// When the checkout's path is not UTF-8.
pub fn testdata(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The bytes of a gzipped file under `testdata/`, decompressed.
///
/// # Panics
/// When it cannot be read or is not gzip.
pub fn testdata_gunzipped(name: &str) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(testdata(name)).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The shared corpus beside the repository, if present.
pub fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let dir = std::env::var_os("FLAMETUI_CORPUS").map_or(dir, PathBuf::from);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: corpus not found at {} (set FLAMETUI_CORPUS); conformance cases not run",
            dir.display()
        );
        None
    }
}
