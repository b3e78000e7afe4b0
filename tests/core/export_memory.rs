//! Exports in bounded memory, whatever the tree's shape: a 625-byte gzipped file of two
//! stacks 50,000 frames deep needed 2.9 GB (each run of the parallel export cloned its
//! whole prefix), a `.cpuprofile` chain the same, and an evented speedscope file of
//! nested opens held its whole quadratic output (RSS equal to the output). Each runs the
//! real binary under a memory limit well below what the old code needed; the property
//! test checks that no write is larger than a chunk plus the longest line, on one thread
//! and on several.

use std::io::Write;

use flametui::export::{self, Destination};
use flametui::profile::CallTree;
use proptest::prelude::*;

use crate::limited::{assert_held, run_limited};

fn scratch(name: &str, content: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-export-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_owned()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// One stack `depth` frames deep (`f0;f1;…;f9;f0;…`).
fn chain(depth: usize) -> String {
    (0..depth)
        .map(|i| format!("f{}", i % 10))
        .collect::<Vec<_>>()
        .join(";")
}

/// Exports `path` to `/dev/null` on `threads` threads under `mib` MiB and `secs`
/// seconds: it must end by itself with status 0.
fn export_to_null(path: &str, threads: &str, mib: u64, secs: u64) {
    let args = [
        "--threads",
        threads,
        "--export",
        "folded",
        "-o",
        "/dev/null",
        path,
    ];
    let r = run_limited(&args, None, mib, secs);
    assert_held(&r, &[0], &format!("--threads {threads}"));
}

/// Exports `path` under `mib` MiB with one thread and two, then with the default threads
/// to a pipe; gives that output's line lengths.
fn export_limited(path: &str, mib: u64) -> Vec<usize> {
    for threads in ["1", "2"] {
        export_to_null(path, threads, mib, 120);
    }
    let r = run_limited(&["--export", "folded", path], None, mib, 120);
    assert_held(&r, &[0], "to a pipe");
    String::from_utf8(r.stdout)
        .unwrap()
        .lines()
        .map(str::len)
        .collect()
}

#[test]
fn two_stacks_fifty_thousand_frames_deep_export_in_bounded_memory() {
    let long = chain(50_000);
    let short = chain(25_000);
    let text = format!("{long} 1\n{short} 1\n");
    let gz = gzip(text.as_bytes());
    assert!(gz.len() < 1024, "{} bytes", gz.len());
    let path = scratch("deep.folded.gz", &gz);
    // The tree has 50,000 nodes: the parallel export's path. It needed 2.9 GB.
    let lens = export_limited(&path, 256);
    assert_eq!(lens, [short.len() + 2, long.len() + 2]);
}

#[test]
fn a_cpuprofile_chain_with_two_samples_exports_in_bounded_memory() {
    let depth = 50_000u32;
    let mut nodes = String::new();
    for id in 1..=depth {
        let children = if id < depth {
            format!("[{}]", id + 1)
        } else {
            "[]".to_owned()
        };
        if id > 1 {
            nodes.push(',');
        }
        nodes.push_str(&format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"f{}","scriptId":"1","url":"a.js","lineNumber":{id},"columnNumber":0}},"hitCount":0,"children":{children}}}"#,
            id % 10
        ));
    }
    let json = format!(
        r#"{{"nodes":[{nodes}],"startTime":0,"endTime":2000,"samples":[{depth},{half}],"timeDeltas":[1000,1000]}}"#,
        half = depth / 2
    );
    let path = scratch("chain.cpuprofile", json.as_bytes());
    let lens = export_limited(&path, 256);
    assert_eq!(lens.len(), 2, "{lens:?}");
}

/// An evented speedscope profile of `n` nested opens, `every`-th level holding 1 unit of
/// its own time: its folded text is quadratic in `n`.
fn nested_opens(n: usize, every: usize) -> String {
    let mut events = Vec::new();
    let mut at = 0;
    for i in 0..n {
        events.push(format!(r#"{{"type":"O","frame":{i},"at":{at}}}"#));
        if i % every == 0 {
            at += 1;
        }
    }
    for i in (0..n).rev() {
        events.push(format!(r#"{{"type":"C","frame":{i},"at":{at}}}"#));
    }
    let frames: Vec<String> = (0..n).map(|i| format!(r#"{{"name":"f{i}"}}"#)).collect();
    format!(
        r#"{{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{{"frames":[{}]}},"profiles":[{{"type":"evented","name":"p","unit":"none","startValue":0,"endValue":{at},"events":[{}]}}]}}"#,
        frames.join(","),
        events.join(",")
    )
}

#[test]
fn an_evented_profile_of_nested_opens_streams_its_quadratic_output() {
    // Small: the lines are right.
    let path = scratch("nest-small.speedscope.json", nested_opens(5, 1).as_bytes());
    let r = run_limited(&["--export", "folded", &path], None, 512, 60);
    assert_held(&r, &[0], "small");
    assert_eq!(
        String::from_utf8(r.stdout).unwrap(),
        "f0 1\nf0;f1 1\nf0;f1;f2 1\nf0;f1;f2;f3 1\nf0;f1;f2;f3;f4 1\n"
    );
    // 10,000 nested opens: 289 MB of folded text, written under a 160 MiB limit (the old
    // export held it whole: 292 MB).
    let path = scratch("nest.speedscope.json", nested_opens(10_000, 1).as_bytes());
    let r = run_limited(
        &["--export", "folded", "-o", "/dev/null", &path],
        None,
        160,
        300,
    );
    assert_held(&r, &[0], "10,000 nested opens");
}

#[test]
fn a_deep_wide_tree_streams_through_the_parallel_export() {
    // 60,000 nested opens, every 40th holding its own time: 1,500 lines averaging 30,000
    // frames, ~190 MB, from a tree of 60,000 nodes (the parallel path), under 160 MiB.
    let path = scratch(
        "nest-wide.speedscope.json",
        nested_opens(60_000, 40).as_bytes(),
    );
    for threads in ["1", "2"] {
        export_to_null(&path, threads, 160, 300);
    }
}

/// A writer that keeps what it was given and the largest single write.
#[derive(Default)]
struct Largest {
    bytes: Vec<u8>,
    largest: usize,
}

impl Write for Largest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.largest = self.largest.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Random trees, deep and wide: a few long spines with bushes hanging off them.
fn trees() -> impl Strategy<Value = Vec<(Vec<String>, u64)>> {
    let spine = (1usize..400, 0u64..3);
    let bush = prop::collection::vec((0usize..400, 0usize..30, 0u64..4), 0..60);
    (prop::collection::vec(spine, 1..4), bush).prop_map(|(spines, bush)| {
        let mut stacks = Vec::new();
        for (s, &(depth, w)) in spines.iter().enumerate() {
            let frames: Vec<String> = (0..depth).map(|i| format!("s{s}f{i}")).collect();
            stacks.push((frames, w));
        }
        for (at, width, w) in bush {
            let (depth, _) = spines[at % spines.len()];
            let mut frames: Vec<String> = (0..at.min(depth)).map(|i| format!("s0f{i}")).collect();
            frames.push(format!("leaf{width}"));
            stacks.push((frames, w));
        }
        stacks
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On one thread and on two (every tree taking the parallel path), the export is the
    /// same text as the lines of the tree (weight 0 left out), and no write is larger than
    /// a chunk plus the longest line: memory does not grow with the output.
    #[test]
    fn exports_are_streamed_in_chunks_whatever_the_shape(stacks in trees()) {
        let mut tree = CallTree::new();
        for (frames, w) in &stacks {
            tree.insert(frames.iter().map(String::as_str), *w);
        }
        tree.finish();
        let want: Vec<String> = export::folded_lines(&tree)
            .into_iter()
            .filter(|l| !l.ends_with(" 0"))
            .collect();
        let longest = want.iter().map(String::len).max().unwrap_or(0) + 1;
        for threads in [1, 2, 3] {
            let mut out = Largest::default();
            export::write_folded_with(&mut out, &tree, Destination::Data, threads, 0).unwrap();
            let got = String::from_utf8(out.bytes).unwrap();
            let got: Vec<&str> = got.lines().collect();
            prop_assert_eq!(&got, &want);
            prop_assert!(
                out.largest <= export::stream::CHUNK + longest,
                "{} threads: a write of {} bytes (longest line {})", threads, out.largest, longest
            );
        }
    }
}
