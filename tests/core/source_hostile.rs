//! Hostile source lines, each built here and run through the real binary's `--annotate`
//! under a memory limit (`limited.rs`): line numbers past any file, huge and countless
//! file names, source files that are huge, endless, not files or one line long, a
//! function spanning ten million lines, and pprof `Line` records out of range or
//! thousands deep. Each must end by itself with a bounded listing, and leave the
//! profile it read as it was.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::SystemTime;

use flametui::input::pprof_proto as proto;
use prost::Message;

use crate::limited::{Limited, assert_held, run_limited};

/// The writable memory (`ulimit -d`) of a run whose input and sources are small: the
/// smallest limit each such case here passes under is 6 MiB (a debug build, two
/// threads; 5 MiB aborts), and this is about 2.7 times that. Cases with a large input
/// or a large source say their own figures, measured the same way.
const LIMIT_MIB: u64 = 16;

/// The seconds a run may take (a debug build takes some 4 for the 100,000 file names,
/// under 2 for the others).
const SECS: u64 = 30;

/// The 50 lines of `hot.c` as found beside the profiles: `line N`.
fn hot_c() -> String {
    (1..=50).map(|i| format!("line {i}\n")).collect()
}

/// A directory of its own under the system's temporary one, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!(
            "flametui-source-hostile-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn str(&self) -> &str {
        self.0.to_str().unwrap()
    }

    /// Writes `bytes` to `name` in the directory, returning its path.
    fn write(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One sample of `perf script -F +srcline`: its frames, leaf first, each a function and
/// the srcline line perf prints under it.
fn perf_sample(frames: &[(&str, &str)]) -> String {
    let mut s = String::from("hot   734 45032.779699:    1001001 cpu-clock:ppp: \n");
    for (i, (f, line)) in frames.iter().enumerate() {
        let _ = write!(
            s,
            "\t{:>16x} {f}+0x{i:x} (/build/hot)\n  {line}\n",
            0x1282 + i
        );
    }
    s.push('\n');
    s
}

/// The file's bytes and modification time.
fn snapshot(path: &str) -> (Vec<u8>, SystemTime) {
    let meta = std::fs::metadata(path).unwrap();
    (std::fs::read(path).unwrap(), meta.modified().unwrap())
}

/// `flametui --annotate PATTERN ARGS PROFILE` under `mib` MiB, which must end by itself
/// with 0 and leave the profile as it was (no command writes over one of its inputs).
fn annotate(pattern: &str, args: &[&str], profile: &str, mib: u64) -> (String, Limited) {
    let before = snapshot(profile);
    // Two threads, whatever the machine's count: the limits were measured so.
    let mut all = vec!["--threads", "2", "--annotate", pattern];
    all.extend_from_slice(args);
    all.push(profile);
    let r = run_limited(&all, None, mib, SECS);
    assert_held(&r, &[0], profile);
    assert!(snapshot(profile) == before, "{profile} was written to");
    let out = String::from_utf8(r.stdout.clone()).unwrap();
    (out, r)
}

/// The listing of function `name` in `out`, up to the next.
fn routine<'a>(out: &'a str, name: &str) -> &'a str {
    let head = format!("ROUTINE ======================== {name} in ");
    let at = out
        .find(&head)
        .unwrap_or_else(|| panic!("no {name}: {out}"));
    let rest = &out[at + head.len()..];
    &rest[..rest.find("ROUTINE").unwrap_or(rest.len())]
}

/// The rows of a listing's lines: `self total number: text`, by number.
fn rows(out: &str) -> Vec<(u64, String)> {
    out.lines()
        .filter_map(|l| {
            let (figures, text) = l.split_once(':')?;
            let number = figures.split_whitespace().last()?.parse().ok()?;
            Some((number, text.trim_start().to_owned()))
        })
        .collect()
}

#[test]
fn srcline_numbers_past_ten_million_are_skipped_and_counted() {
    let dir = Dir::new("numbers");
    dir.write("src/hot.c", hot_c().as_bytes());
    let text = [
        perf_sample(&[("work", "hot.c:11"), ("main", "hot.c:45")]),
        perf_sample(&[("work", "hot.c:4294967295"), ("main", "hot.c:9999999")]),
        perf_sample(&[("work", "hot.c:10000001"), ("main", "hot.c:45")]),
    ]
    .concat();
    let profile = dir.write("perf.txt", text.as_bytes());
    let src = dir.path("src");
    let (out, r) = annotate(
        ".",
        &["--source-path", src.to_str().unwrap()],
        &profile,
        LIMIT_MIB,
    );
    // Both numbers past ten million are skipped, named by their line of the input.
    for (at, number) in [(9, "4294967295"), (15, "10000001")] {
        let want =
            format!("perf.txt:{at}: perf srcline line number out of range:   hot.c:{number}");
        assert!(r.stderr.contains(&want), "{want}: {}", r.stderr);
        assert!(!out.contains(number), "{out}");
    }
    // 9,999,999 is kept: main's listing is its neighbourhood and 45's, not the lines
    // between; work has its line 11 alone.
    let numbers: Vec<u64> = rows(&out).iter().map(|r| r.0).collect();
    let main: Vec<u64> = (40..=50).chain(9_999_994..=9_999_999).collect();
    let work: Vec<u64> = (6..=16).collect();
    assert_eq!(numbers, [main, work].concat(), "{out}");
    assert!(rows(&out).contains(&(45, "line 45".to_owned())), "{out}");
}

#[test]
fn a_function_spanning_ten_million_lines_lists_only_around_its_samples() {
    let dir = Dir::new("span");
    dir.write("src/hot.c", hot_c().as_bytes());
    let text = [
        perf_sample(&[("work", "hot.c:1")]),
        perf_sample(&[("work", "hot.c:9999999")]),
    ]
    .concat();
    let profile = dir.write("perf.txt", text.as_bytes());
    let src = dir.path("src");
    let (out, _) = annotate(
        ".",
        &["--source-path", src.to_str().unwrap()],
        &profile,
        LIMIT_MIB,
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 6 + 6, "{out}");
    assert_eq!(rows[0], (1, "line 1".to_owned()));
    assert_eq!(rows[6].0, 9_999_994);
    assert!(out.lines().count() < 20, "{out}");
}

/// A srcline line with a file name of 1 MB, eight times (8 MB of text): the smallest
/// limit it passes under is 21 MiB, for reading lines of a megabyte; this is about 2.3
/// times that.
#[test]
fn a_megabyte_file_name_is_skipped_and_counted() {
    let dir = Dir::new("long-name");
    let long = format!("{}.c:7", "x".repeat(1 << 20));
    let text = perf_sample(&[("work", &long), ("main", "hot.c:45")]).repeat(8);
    let profile = dir.write("perf.txt", text.as_bytes());
    let (out, r) = annotate(".", &[], &profile, 48);
    assert!(
        r.stderr
            .contains("perf.txt:3: perf srcline file name too long")
            && r.stderr.contains("perf.txt: 3 more lines skipped"),
        "{}",
        r.stderr
    );
    // Five lines are shown, each cut at 200 characters.
    assert!(r.stderr.len() < 4_000, "{}", r.stderr.len());
    // main's line is listed; work has none.
    assert!(
        out.contains("ROUTINE ======================== main in hot.c"),
        "{out}"
    );
    assert!(!out.contains("work") && !out.contains("xxx"), "{out}");
}

/// 100,000 distinct file names under one function (16 MB of text): interned once each,
/// in memory linear in them (some 220 bytes a name). The smallest limit it passes under
/// is 42 MiB; this is about 2.3 times that.
#[test]
fn a_hundred_thousand_file_names_intern_within_the_limit() {
    let dir = Dir::new("many-names");
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&perf_sample(&[
            ("work", &format!("d{i}/hot.c:11")),
            ("main", "hot.c:45"),
        ]));
    }
    let profile = dir.write("perf.txt", text.as_bytes());
    let (out, r) = annotate("^main$", &[], &profile, 96);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    assert_eq!(rows(&out).len(), 11, "{out}");
    assert!(out.contains("100.00% of Total"), "{out}");
}

/// 2,000 names of one file (`dN/hot.c`, each found as `hot.c` under `--source-path`) of
/// 512 KiB: read once, not once per name (2,000 reads of it took some 8 GB). The
/// smallest limit it passes under is 10 MiB; this is 2.4 times that.
#[test]
fn a_file_named_two_thousand_ways_is_read_once() {
    let dir = Dir::new("one-file");
    let lines: String = (1..=60_000).map(|i| format!("line {i}\n")).collect();
    dir.write("src/hot.c", lines.as_bytes());
    let mut text = String::new();
    for i in 0..2_000 {
        text.push_str(&perf_sample(&[(
            &format!("work{i}"),
            &format!("d{i}/hot.c:11"),
        )]));
    }
    let profile = dir.write("perf.txt", text.as_bytes());
    let src = dir.path("src");
    let (out, _) = annotate(".", &["--source-path", src.to_str().unwrap()], &profile, 24);
    assert_eq!(out.matches("ROUTINE").count(), 2_000);
    assert_eq!(out.matches(" 11: line 11\n").count(), 2_000);
}

/// What the profile names `hot.c`, found under `--source-path` as something that is no
/// source to read: the listing says where it looked and lists the lines without text.
fn not_read(dir: &Dir, what: &str) {
    let text = perf_sample(&[
        ("work", "/build/app/hot.c:11"),
        ("main", "/build/app/hot.c:45"),
    ]);
    let profile = dir.write("perf.txt", text.as_bytes());
    let (out, _) = annotate(".", &["--source-path", dir.str()], &profile, LIMIT_MIB);
    let found = dir.path("hot.c");
    let missing = format!(
        "(source not found: {}, {}, /build/app/hot.c)",
        dir.path("build/app/hot.c").display(),
        found.display()
    );
    assert_eq!(out.matches(&missing).count(), 2, "{what}: {out}");
    let rows = rows(&out);
    assert_eq!(rows.len(), 22, "{what}: {out}");
    assert!(
        rows.iter().all(|(_, text)| text.is_empty()),
        "{what}: {out}"
    );
    assert!(out.len() < 4_000, "{what}: {}", out.len());
}

#[test]
fn a_source_that_is_huge_endless_or_no_file_is_not_read() {
    // 200 MB, sparse: past the 16 MiB a source may have.
    let dir = Dir::new("huge");
    let f = std::fs::File::create(dir.path("hot.c")).unwrap();
    f.set_len(200_000_000).unwrap();
    not_read(&dir, "200 MB");
    // One line of 50 MB (zeros, sparse).
    let dir = Dir::new("one-line");
    let f = std::fs::File::create(dir.path("hot.c")).unwrap();
    f.set_len(50_000_000).unwrap();
    not_read(&dir, "a 50 MB line");
    // A FIFO no one writes to: opening or reading it would wait forever.
    let dir = Dir::new("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path("hot.c"))
        .status()
        .unwrap();
    assert!(made.success());
    not_read(&dir, "a FIFO");
    // A directory.
    let dir = Dir::new("directory");
    std::fs::create_dir(dir.path("hot.c")).unwrap();
    not_read(&dir, "a directory");
}

/// A source of one line of tabs just under 16 MiB, listed for 50 functions: each row's
/// text is cut at 1,024 columns (it was 128 MiB expanded, printed once per function).
/// The smallest limit it passes under is 21 MiB, the file read whole; this is about 2.3
/// times that (it took 313 MB for one function).
#[test]
fn a_16_mebibyte_line_is_listed_cut() {
    let dir = Dir::new("tabs");
    dir.write("src/hot.c", &vec![b'\t'; (16 << 20) - 1]);
    let text: String = (0..50)
        .map(|i| perf_sample(&[(&format!("work{i}"), "hot.c:1")]))
        .collect();
    let profile = dir.write("perf.txt", text.as_bytes());
    let src = dir.path("src");
    let (out, _) = annotate(".", &["--source-path", src.to_str().unwrap()], &profile, 48);
    let cut = format!(" 1: {}…\n", " ".repeat(1024));
    assert_eq!(out.matches(&cut).count(), 50);
    assert!(out.len() < 100_000, "{}", out.len());
}

/// A source of 8 Mi empty lines: four bytes a line beside the text (they were 24 and
/// more each, some 200 MB). The smallest limit it passes under is 45 MiB; this is about
/// 2.1 times that, and half what the lines took as strings.
#[test]
fn a_source_of_eight_million_empty_lines_is_held_by_its_offsets() {
    let dir = Dir::new("empty-lines");
    dir.write("src/hot.c", &vec![b'\n'; 8 << 20]);
    let text = perf_sample(&[("work", "hot.c:8388608")]);
    let profile = dir.write("perf.txt", text.as_bytes());
    let src = dir.path("src");
    let (out, _) = annotate(".", &["--source-path", src.to_str().unwrap()], &profile, 96);
    // The listing ends at the file's last line.
    let numbers: Vec<u64> = rows(&out).iter().map(|r| r.0).collect();
    assert_eq!(
        numbers,
        (8_388_603..=8_388_608).collect::<Vec<_>>(),
        "{out}"
    );
}

/// A pprof profile whose `Line` records are out of range and thousands deep.
fn hostile_pprof() -> Vec<u8> {
    let strings = [
        "", "samples", "count", "hot.c", "huge", "negative", "inl", "far",
    ];
    let function = |id: u64, name: i64, start_line: i64| proto::Function {
        id,
        name,
        system_name: 0,
        filename: 3,
        start_line,
    };
    let line = |function_id: u64, line: i64| proto::Line { function_id, line };
    let location = |id: u64, line: Vec<proto::Line>| proto::Location {
        id,
        mapping_id: 0,
        address: 0x1000 + id,
        line,
    };
    let sample = |location_id: Vec<u64>| proto::Sample {
        location_id,
        value: vec![1],
        label: Vec::new(),
    };
    let mut out = proto::Profile {
        sample_type: vec![proto::ValueType { r#type: 1, unit: 2 }],
        function: vec![
            function(1, 4, i64::MAX),
            function(2, 5, -7),
            function(3, 6, 1),
            function(4, 7, i64::from(u32::MAX)),
        ],
        location: vec![
            location(1, vec![line(1, i64::MAX)]),
            location(2, vec![line(2, -1)]),
            location(3, vec![line(2, i64::from(u32::MAX) + 1)]),
            // 10,000 lines inlined at one address, at lines 1 to 50 of `inl`.
            location(4, (0..10_000).map(|i| line(3, i % 50 + 1)).collect()),
            location(5, vec![line(4, 1)]),
            location(6, vec![line(4, i64::from(u32::MAX))]),
        ],
        string_table: strings.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..proto::Profile::default()
    }
    .encode_to_vec();
    // The schema's Profile leaves samples out (the reader walks them itself): each is
    // field 2, length-delimited.
    for s in [[1].as_slice(), &[2], &[3, 1], &[4], &[5], &[6, 5]] {
        out.push(2 << 3 | 2);
        out.extend(sample(s.to_vec()).encode_length_delimited_to_vec());
    }
    out
}

#[test]
fn pprof_lines_out_of_range_or_ten_thousand_deep_list_bounded() {
    let dir = Dir::new("pprof");
    dir.write("src/hot.c", hot_c().as_bytes());
    let profile = dir.write("hostile.pb", &hostile_pprof());
    let src = dir.path("src");
    let (out, r) = annotate(
        ".",
        &["--source-path", src.to_str().unwrap()],
        &profile,
        LIMIT_MIB,
    );
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    // Lines out of range (i64::MAX, -1, 2^32) are no lines: `huge` and `negative` have
    // none to list.
    assert!(
        !out.contains(" huge ") && !out.contains(" negative "),
        "{out}"
    );
    // The 10,000 frames of `inl` give its 50 lines (the file's), each counted once in
    // the one sample.
    let inl = routine(&out, "inl");
    let numbers: Vec<u64> = rows(inl).iter().map(|r| r.0).collect();
    assert_eq!(numbers, (1..=50).collect::<Vec<_>>(), "{out}");
    // (cum is the sum of the lines' totals, as pprof sums them.)
    assert!(
        inl.contains(" 1         50 (flat, cum) 833.33% of Total"),
        "{inl}"
    );
    assert_eq!(inl.matches(" 1      1: line 1\n").count(), 1, "{inl}");
    // `far`, starting at line 2^32 - 1 and sampled at 1 and there: two neighbourhoods.
    let far = routine(&out, "far");
    let numbers: Vec<u64> = rows(far).iter().map(|r| r.0).collect();
    let want: Vec<u64> = (1..=6).chain(4_294_967_290..=4_294_967_295).collect();
    assert_eq!(numbers, want, "{out}");
    assert!(out.lines().count() < 200, "{}", out.lines().count());
}

/// One file name of 1 MB (one string of the table), the file of 100 functions: their
/// lines are left out with one note. (Each listing printed the name four times: 315 MB
/// from a 1 MB profile.)
#[test]
fn a_pprof_file_name_of_a_megabyte_lists_nothing() {
    let long = "x".repeat(1 << 20);
    let names: Vec<String> = (0..100).map(|i| format!("f{i}")).collect();
    let mut strings = vec!["", "samples", "count", long.as_str()];
    strings.extend(names.iter().map(String::as_str));
    let mut bytes = proto::Profile {
        sample_type: vec![proto::ValueType { r#type: 1, unit: 2 }],
        function: (0..100)
            .map(|i| proto::Function {
                id: i + 1,
                name: i64::try_from(i).unwrap() + 4,
                system_name: 0,
                filename: 3,
                start_line: 1,
            })
            .collect(),
        location: (0..100)
            .map(|i| proto::Location {
                id: i + 1,
                mapping_id: 0,
                address: 0x1000 + i,
                line: vec![proto::Line {
                    function_id: i + 1,
                    line: 7,
                }],
            })
            .collect(),
        string_table: strings.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..proto::Profile::default()
    }
    .encode_to_vec();
    for i in 0..100 {
        let s = proto::Sample {
            location_id: vec![i + 1],
            value: vec![1],
            label: Vec::new(),
        };
        bytes.push(2 << 3 | 2);
        bytes.extend(s.encode_length_delimited_to_vec());
    }
    let dir = Dir::new("pprof-long-name");
    let profile = dir.write("long.pb", &bytes);
    let (out, r) = annotate(".", &[], &profile, LIMIT_MIB);
    assert_eq!(
        r.stderr
            .matches("pprof function file name too long")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.len() < 1_000, "{}", r.stderr.len());
    assert!(out.contains("no source lines in this input"), "{out}");
    assert!(out.len() < 1_000, "{}", out.len());
}
