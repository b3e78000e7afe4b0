//! Inputs made to exhaust memory, built here and run through the real binary under a
//! memory limit (`limited.rs`): a pprof profile whose repeated fields decode into many
//! times their bytes. Each must end with a clear message (or load), never by the limit.

use std::io::Write;
use std::path::PathBuf;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::limited::{assert_held, run_limited};

/// The memory (address space) the binary may use: less than what each bomb decoded into
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
