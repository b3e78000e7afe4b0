//! Inputs made to exhaust memory, built here and run through the real binary under a
//! memory limit (`limited.rs`): a pprof profile whose repeated fields decode into many
//! times their bytes, and text with a line longer than the 64 MiB a line may have. Each
//! must end with a clear message (or load), never by the limit.

use std::io::Write;
use std::path::PathBuf;

use flametui::input::{self, LoadOptions, Loaded};
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::limited::{assert_held, run_limited};

/// The writable memory the binary may use: less than what each bomb decoded into
/// before its tables were counted first.
const LIMIT_MIB: u64 = 512;

/// Decoded size of each bomb: 64 MiB, an eighth of the limit (a debug build takes some
/// 10 s to walk its 32 M entries).
const BOMB_BYTES: usize = 64 << 20;

/// A protobuf varint.
fn varint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// Field `field` of varint `n`.
fn num(field: u64, n: u64) -> Vec<u8> {
    [varint(field << 3), varint(n)].concat()
}

/// Field `field`, length-delimited, holding `payload`.
fn delimited(field: u64, payload: &[u8]) -> Vec<u8> {
    [
        varint(field << 3 | 2),
        varint(payload.len() as u64),
        payload.to_vec(),
    ]
    .concat()
}

/// The key and length of a length-delimited field of `len` bytes that follow.
fn opening(field: u64, len: usize) -> Vec<u8> {
    [varint(field << 3 | 2), varint(len as u64)].concat()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `head`, then `unit` repeated to `BOMB_BYTES`, then `tail`, gzipped: the repeats as one
/// gzip member of 1 MiB written again and again (a gzip file may be several members, read
/// one after the other), so building the bomb costs compressing 1 MiB.
fn bomb(head: &[u8], unit: &[u8], tail: &[u8]) -> (Vec<u8>, usize) {
    let per_mib = (1 << 20) / unit.len();
    let member = gzip(&unit.repeat(per_mib));
    let repeats = BOMB_BYTES / (per_mib * unit.len());
    let mut out = gzip(head);
    for _ in 0..repeats {
        out.extend_from_slice(&member);
    }
    out.extend(gzip(tail));
    (out, repeats * per_mib)
}

/// The strings `""`, `samples`, `count`; a metric `samples/count`; function 1 `samples`
/// and location 1 calling it.
fn base() -> Vec<u8> {
    [
        delimited(6, b""),
        delimited(6, b"samples"),
        delimited(6, b"count"),
        delimited(1, &[num(1, 1), num(2, 2)].concat()),
        delimited(5, &[num(1, 1), num(2, 1)].concat()),
        delimited(4, &[num(1, 1), delimited(4, &num(1, 1))].concat()),
    ]
    .concat()
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bombs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `--export folded` on the bomb `name` under the limit.
fn run(name: &str, gz: &[u8]) -> crate::limited::Limited {
    let path = write(name, gz);
    run_limited(
        &["--export", "folded", path.to_str().unwrap()],
        None,
        LIMIT_MIB,
        120,
    )
}

/// 64 MiB of empty string-table entries, locations or functions (two bytes each on the
/// wire, 24 to 48 once decoded: 0.8 to 1.6 GB, and prost's vectors grew to twice that).
#[test]
fn pprof_tables_of_empty_entries_are_refused_by_name_within_the_memory_limit() {
    for (field, table) in [(6, "string_table"), (4, "location"), (5, "function")] {
        let (gz, n) = bomb(&base(), &delimited(field, b""), b"");
        let name = format!("empty-{table}.pb.gz");
        let r = run(&name, &gz);
        assert_held(&r, &[1], &name);
        // Every entry of the table is counted: the bomb's and the base profile's.
        let in_base = if field == 6 { 3 } else { 1 };
        let want = format!(
            "its {table} has {} entries",
            flametui::text::thousands((n + in_base) as u64)
        );
        assert!(
            r.stderr.contains(&name) && r.stderr.contains(&want) && r.stderr.contains("refused"),
            "{name}: {want}: {}",
            r.stderr
        );
    }
}

/// A nested bomb: its name, what opens the field, the unit repeated in it, what follows,
/// and the message.
type Nested = (&'static str, Vec<u8>, &'static [u8], Vec<u8>, &'static str);

/// One sample holding 64 MiB of location ids or values packed in a byte each (8 bytes
/// each once decoded, 512 MiB and more as the vector grows), or of empty labels; one
/// location of empty lines.
#[test]
fn pprof_nested_repeated_fields_are_refused_by_name_within_the_memory_limit() {
    let ids = opening(1, BOMB_BYTES);
    let cases: [Nested; 4] = [
        (
            "location-ids",
            [opening(2, ids.len() + BOMB_BYTES + 2), ids].concat(),
            &[0x01],
            num(2, 1),
            "its sample 0 has",
        ),
        (
            "values",
            [opening(2, BOMB_BYTES + 5), opening(2, BOMB_BYTES)].concat(),
            &[0x01],
            Vec::new(),
            "its sample 0 has",
        ),
        (
            "labels",
            [opening(2, BOMB_BYTES + 2), num(2, 1)].concat(),
            &[0x1a, 0x00],
            Vec::new(),
            "its sample 0 has",
        ),
        (
            "lines",
            [opening(4, BOMB_BYTES + 2), num(1, 2)].concat(),
            &[0x22, 0x00],
            Vec::new(),
            "its location 1 has",
        ),
    ];
    for (what, open, unit, tail, want) in cases {
        let (gz, _) = bomb(&[base(), open].concat(), unit, &tail);
        let name = format!("nested-{what}.pb.gz");
        let r = run(&name, &gz);
        assert_held(&r, &[1], &name);
        assert!(
            r.stderr.contains(&name) && r.stderr.contains(want) && r.stderr.contains("refused"),
            "{name}: {}",
            r.stderr
        );
    }
}

/// 64 MiB of samples of no stack weighing 1 each (4 bytes on the wire): recorded one by
/// one in a sample table they took 24 bytes each (384 MiB), though no sample has a label
/// to tell them apart. Now they load, their weight on the root.
#[test]
fn pprof_many_unlabelled_samples_load_within_the_memory_limit() {
    let (gz, n) = bomb(&base(), &delimited(2, &num(2, 1)), b"");
    let r = run_limited(
        &[
            "--top",
            "1",
            write("empty-samples.pb.gz", &gz).to_str().unwrap(),
        ],
        None,
        LIMIT_MIB,
        120,
    );
    assert_held(&r, &[0], "empty samples");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        out.contains(&format!("total {}", flametui::text::thousands(n as u64))),
        "{out}"
    );
}

/// The reason a line past the cap is skipped for.
const LONG: &str = "line longer than 64 MiB";

/// 200 MB of NUL bytes and no newline, as `cat /dev/zero` gives, on standard input (and
/// of `x`, which detection took for a first line of text to read whole): the line was
/// read whole, so it grew until the process aborted (here at the 256 MiB limit). Now its
/// first 64 MiB are dropped, the rest skipped, and nothing is left to load.
#[test]
fn an_endless_line_on_stdin_is_skipped_within_the_memory_limit() {
    let zeros = vec![0u8; 200_000_000];
    let xs = vec![b'x'; 200_000_000];
    for (args, bytes) in [
        (&["--format", "folded", "-"][..], &zeros),
        (&["-"], &zeros),
        (&["-"], &xs),
    ] {
        let r = run_limited(args, Some(bytes), 256, 120);
        let what = format!("{args:?}, {}", bytes[0] as char);
        assert_held(&r, &[1], &what);
        assert!(r.stderr.contains(LONG), "{what}: {}", r.stderr);
    }
}

/// `before`, a line of 70 MiB, then `after`: the long line is line `at`.
fn with_long_line(before: &str, after: &str) -> (Vec<u8>, u64) {
    let mut text = before.as_bytes().to_vec();
    text.extend(std::iter::repeat_n(b'x', 70 << 20));
    text.push(b'\n');
    text.extend_from_slice(after.as_bytes());
    (text, before.lines().count() as u64 + 1)
}

fn stacks(p: &Loaded) -> Vec<(String, u64)> {
    let Loaded::Single(p) = p else { panic!() };
    p.tree.stacks()
}

/// In every text format, on one thread and in chunks: a line past the cap is skipped as
/// a bad line with its number and reason, and the profile is that of the other lines.
#[test]
fn a_line_past_the_cap_is_skipped_with_its_number_in_every_text_format() {
    let perf = "p 1 [000] 1.0: 1 cpu-clock:\n\t1 leaf (x)\n\t2 main (x)\n\n";
    let stap = " 0x1 : a+0x1/0x2 [k]\n 0x2 : main+0x1/0x2 [k]\n\t5\n";
    let bpftrace = "@[\n    f+1\n    main+2\n]: 3\n";
    let dtrace = "CPU     ID                    FUNCTION:NAME\n  1  81231     :tick-30s \n\n\n              kvd`a+0x1\n              kvd`main+0x2\n                3\n\n";
    let cases = [
        ("folded", "a;b 1\n", "c;d 2\n".to_owned()),
        ("perf", perf, perf.replace("leaf", "other")),
        ("stap", stap, stap.replace(" a+", " b+")),
        ("bpftrace", bpftrace, bpftrace.replace("f+", "g+")),
        (
            "dtrace",
            dtrace,
            "              kvd`b+0x1\n                4\n\n".to_owned(),
        ),
    ];
    for (format, before, after) in cases {
        let (text, at) = with_long_line(before, &after);
        let short = format!("{before}{after}");
        for threads in [1, 2] {
            let opts = LoadOptions {
                threads: Some(threads),
                ..LoadOptions::default()
            };
            let what = format!("{format}, {threads} threads");
            let want = input::load_reader(short.as_bytes(), "short", &opts).unwrap();
            let got = input::load_reader(&text[..], "long", &opts).unwrap();
            assert_eq!(stacks(&got), stacks(&want), "{what}");
            assert!(!stacks(&got).is_empty(), "{what}");
            let stats = &got.main().stats;
            let bad: Vec<(u64, &str)> =
                stats.bad_lines.iter().map(|b| (b.line, b.reason)).collect();
            assert_eq!(bad.len(), 1, "{what}: {bad:?}");
            assert_eq!(bad[0].0, at, "{what}");
            assert!(bad[0].1.starts_with(LONG), "{what}: {bad:?}");
            assert_eq!(stats.skipped_lines(), 1, "{what}");
        }
    }
}

/// The binary, under a limit of 4 times the long line: both short lines load and the long
/// one is reported by its number.
#[test]
fn a_file_with_a_line_past_the_cap_loads_the_rest_within_the_memory_limit() {
    let (text, _) = with_long_line("a;b 1\n", "c;d 2\n");
    let path = write("long-line.txt", &text);
    let r = run_limited(
        &["--export", "folded", path.to_str().unwrap()],
        None,
        256,
        120,
    );
    assert_held(&r, &[0], "a long line");
    assert_eq!(String::from_utf8_lossy(&r.stdout), "a;b 1\nc;d 2\n");
    assert!(
        r.stderr.contains(&format!("long-line.txt:2: {LONG}")),
        "{}",
        r.stderr
    );
}

/// A kallsyms file of 300 MB and no newline (a sparse file of NUL bytes, as a damaged
/// copy might be): it was read a line at a time, and the one line grew until the process
/// aborted. Now a line longer than any kernel's is skipped without being held, the
/// recording loads, and its kernel frames are unnamed.
#[test]
fn a_kallsyms_file_of_one_endless_line_is_skipped_within_the_memory_limit() {
    let path = write("endless.kallsyms", b"");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    let recording = crate::testdata("perf-data-kernel.data.gz");
    let r = run_limited(
        &[
            "--kallsyms",
            path.to_str().unwrap(),
            "--export",
            "folded",
            &recording,
        ],
        None,
        128,
        120,
    );
    let _ = std::fs::remove_file(&path);
    assert_held(&r, &[0], "endless kallsyms");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        out.contains("[unknown]") && !out.contains("do_syscall_64"),
        "{out}"
    );
}
