//! The perf.data reader on arbitrary bytes, from a stream (pipe mode as it comes, file
//! mode read whole; pipe mode also with live snapshots, which must end in the same load)
//! and from a seekable reader: an error or a profile, never a panic or
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
    // Streamed live (a pipe's snapshots, one whenever the reader waits): the same load.
    let snapshots = flametui::input::Snapshots {
        every: std::time::Duration::ZERO,
        sink: std::sync::Arc::new(|p| assert_eq!(p.samples.len() as u64, p.stats.samples)),
    };
    let live = perf_data::load_stream(data, "fuzz", &perf, &opts, 1 << 26, Some(&snapshots));
    match (&streamed, &live) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.stats, b.stats, "a live load differs");
            assert_eq!(a.tree.total(), b.tree.total(), "a live load differs");
            assert_eq!(a.samples.len(), b.samples.len(), "a live load differs");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("a live load differs: {:?} / {:?}", streamed.is_ok(), live.is_ok()),
    }
    let _ = streamed.map_err(|e| e.to_string());
    let seekable =
        perf_data::load_seekable(std::io::Cursor::new(data), data.len() as u64, "fuzz", &perf, &opts);
    let _ = seekable.map_err(|e| e.to_string());
});
