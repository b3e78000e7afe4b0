//! The perf.data reader on arbitrary bytes, from a stream (pipe mode as it comes, file
//! mode read whole) and from a seekable reader: an error or a profile, never a panic or
//! an unbounded allocation (compressed records too: `perf record -z`, file and pipe mode).
//! Seeds: testdata/perf-data-*.data.gz, gunzipped. The machine's
//! binaries and kernel symbols are kept out (an empty search directory, no kallsyms).
#![no_main]

use flametui::input::perf_data::{self, PerfDataOptions};
use flametui::input::PerfOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = PerfDataOptions {
        symfs: vec![std::path::PathBuf::from("/nonexistent-symfs")],
        kallsyms: Some(std::path::PathBuf::from("/dev/null")),
        buildid_dir: None,
    };
    let perf = PerfOptions::default();
    let streamed = perf_data::load_stream(data, "fuzz", &perf, &opts, 1 << 26, None);
    let _ = streamed.map_err(|e| e.to_string());
    let seekable =
        perf_data::load_seekable(std::io::Cursor::new(data), data.len() as u64, "fuzz", &perf, &opts);
    let _ = seekable.map_err(|e| e.to_string());
});
