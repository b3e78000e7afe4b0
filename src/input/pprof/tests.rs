//! Unit tests of the pprof loader: stacks, metrics, and hostile input.
#![allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]

use std::io::{Cursor, Read};

use prost::Message;

use super::proto::{Function, Line, Location, Mapping, Profile, Sample, ValueType};
use super::*;

/// A profile with strings `s`, metrics `types` (string indices) and one location per
/// entry of `locs` (its function ids, innermost first; none: unsymbolised in mapping 1).
fn profile(
    s: &[&str],
    types: &[(i64, i64)],
    locs: &[&[u64]],
    samples: &[(&[u64], &[i64])],
) -> Vec<u8> {
    let p = Profile {
        sample_type: types
            .iter()
            .map(|&(t, u)| ValueType { r#type: t, unit: u })
            .collect(),
        mapping: vec![Mapping { id: 1, filename: 1 }],
        location: locs
            .iter()
            .enumerate()
            .map(|(i, fs)| Location {
                id: i as u64 + 1,
                mapping_id: 1,
                address: 0x1000 + i as u64,
                line: fs
                    .iter()
                    .map(|&f| Line {
                        function_id: f,
                        line: 1,
                    })
                    .collect(),
            })
            .collect(),
        function: (2..s.len() as i64)
            .map(|i| Function {
                id: i as u64 - 1,
                name: i,
                system_name: 0,
                filename: 0,
                start_line: 0,
            })
            .collect(),
        string_table: s.iter().map(|x| x.as_bytes().to_vec()).collect(),
        ..Profile::default()
    };
    with_samples(&p, samples)
}

/// `p` encoded, then its samples (field 2), as a profiler writes them.
fn with_samples(p: &Profile, samples: &[(&[u64], &[i64])]) -> Vec<u8> {
    let mut b = p.encode_to_vec();
    for (l, v) in samples {
        let s = Sample {
            location_id: l.to_vec(),
            value: v.to_vec(),
            label: Vec::new(),
        };
        b.push(2 << 3 | 2);
        b.extend(s.encode_length_delimited_to_vec());
    }
    b
}

/// Strings: 1 is the mapping's file, 2.. the functions (ids 1..), then metric names.
const S: &[&str] = &[
    "",
    "/usr/lib/libapp.so",
    "main",
    "work",
    "inl",
    "samples",
    "count",
    "cpu",
    "nanoseconds",
];

fn folded(bytes: &[u8], metric: Option<&str>) -> Result<Vec<(String, u64)>> {
    let mut out = load(Cursor::new(bytes.to_vec()), "p.pb", metric)?;
    out.tree.finish();
    Ok(out.tree.stacks())
}

#[test]
fn inlined_lines_are_frames_and_bare_addresses_are_named_after_their_mapping() {
    // Location 1: inl inlined into work; location 2: main; location 3: no lines.
    let b = profile(
        S,
        &[(5, 6), (7, 8)],
        &[&[3, 2], &[1], &[]],
        &[(&[1, 2], &[1, 10]), (&[3, 2], &[2, 20]), (&[2], &[0, 0])],
    );
    let stacks = folded(&b, None).unwrap();
    assert_eq!(
        stacks,
        vec![
            ("main;[libapp.so]".to_owned(), 20),
            ("main;work;inl".to_owned(), 10),
        ]
    );
    let mut out = load(Cursor::new(b.clone()), "p.pb", Some("samples")).unwrap();
    out.tree.finish();
    assert_eq!(out.tree.total(), 3);
    assert_eq!(
        out.stats.unit,
        Unit::Metric {
            name: "samples".into(),
            unit: "count".into()
        }
    );
    assert_eq!(out.stats.line_counts.dropped, 1);
    let names = out.tree.names();
    let lib = names.library(names.lookup("inl").unwrap()).unwrap();
    assert_eq!(names.library_name(lib), "libapp.so");
}

#[test]
fn the_default_metric_is_the_declared_one_else_the_last() {
    let one: &[(&[u64], &[i64])] = &[(&[1], &[1, 10])];
    let b = profile(S, &[(5, 6), (7, 8)], &[&[1]], one);
    let last = folded(&b, None).unwrap();
    assert_eq!(last[0].1, 10);
    let mut p = Profile::decode(&*b).unwrap();
    p.default_sample_type = 5;
    let declared = folded(&with_samples(&p, one), None).unwrap();
    assert_eq!(declared[0].1, 1);
}

#[test]
fn an_unknown_metric_lists_the_metrics_there_are() {
    let b = profile(S, &[(5, 6), (7, 8)], &[&[1]], &[(&[1], &[1, 10])]);
    let e = folded(&b, Some("alloc_space")).unwrap_err();
    assert!(e.is_usage());
    let msg = e.to_string();
    assert!(
        msg.contains("p.pb") && msg.contains("samples, cpu"),
        "{msg}"
    );
}

fn error_of(bytes: &[u8]) -> String {
    let e = folded(bytes, None).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Pprof { .. }), "{msg}");
    assert!(msg.starts_with("p.pb: "), "{msg}");
    msg
}

#[test]
fn bad_string_indices_are_errors() {
    let msg = error_of(&profile(S, &[(99, 6)], &[&[1]], &[(&[1], &[1])]));
    assert!(msg.contains("string 99"), "{msg}");
    let msg = error_of(&profile(S, &[(-1, 6)], &[&[1]], &[(&[1], &[1])]));
    assert!(msg.contains("string -1"), "{msg}");
    let msg = error_of(&profile(&["x", "y"], &[(1, 1)], &[], &[]));
    assert!(msg.contains("string table"), "{msg}");
    let msg = error_of(&profile(S, &[], &[], &[]));
    assert!(msg.contains("no sample types"), "{msg}");
}

#[test]
fn missing_locations_functions_and_values_are_errors() {
    let msg = error_of(&profile(S, &[(5, 6)], &[&[1]], &[(&[7], &[1])]));
    assert!(msg.contains("location 7"), "{msg}");
    let msg = error_of(&profile(S, &[(5, 6)], &[&[40]], &[(&[1], &[1])]));
    assert!(msg.contains("function 40"), "{msg}");
    let msg = error_of(&profile(S, &[(5, 6), (7, 8)], &[&[1]], &[(&[1], &[1])]));
    assert!(msg.contains("1 values for 2 sample types"), "{msg}");
}

#[test]
fn huge_declared_sizes_are_errors_without_allocating() {
    // sample_type of 2^62 bytes; a string of 2^35 bytes; a packed field of 2^40 values.
    for b in [
        vec![0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
        vec![0x32, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, b'a'],
        vec![
            0x0a, 0x04, 0x08, 0x00, 0x10, 0x00, 0x32, 0x00, 0x12, 0x06, 0x0a, 0x80, 0x80, 0x80,
            0x80, 0x20,
        ],
        // A sample field declaring 2^35 bytes.
        vec![
            0x32, 0x00, 0x0a, 0x00, 0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00,
        ],
    ] {
        let msg = error_of(&b);
        assert!(msg.contains("protobuf"), "{msg}");
    }
}

#[test]
fn an_empty_input_is_empty() {
    let e = folded(b"", None).unwrap_err();
    assert!(matches!(e, Error::Empty { .. }), "{e}");
}

#[test]
fn too_large_an_input_is_an_error() {
    let b = profile(S, &[(5, 6)], &[&[1]], &[(&[1], &[1])]);
    let e = load_limited(Cursor::new(b.clone()), "p.pb", None, 10, false).unwrap_err();
    assert!(e.to_string().contains("larger than 10 bytes"), "{e}");
    assert!(load_limited(Cursor::new(b.clone()), "p.pb", None, b.len() as u64, false).is_ok());
}

fn real_cpu_profile() -> Vec<u8> {
    let gz = include_bytes!("../../../testdata/pprof-cpu.pb.gz");
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    raw
}

#[test]
fn truncated_profiles_are_errors_or_fewer_samples_never_panics() {
    let raw = real_cpu_profile();
    assert_eq!(sniff::sniff(&raw), sniff::Sniff::Yes);
    let mut errors = 0;
    for cut in (0..raw.len()).step_by(7) {
        match load(Cursor::new(raw[..cut].to_vec()), "p.pb", None) {
            Err(e) => {
                assert!(e.to_string().starts_with("p.pb: "), "{e}");
                errors += 1;
            }
            Ok(out) => assert!(out.stats.samples <= 51),
        }
    }
    assert!(errors > 0);
}

#[test]
fn corrupt_bytes_are_errors_never_panics() {
    let raw = real_cpu_profile();
    for (i, flip) in (0..raw.len()).zip([0xff_u8, 0x80, 0x01, 0x7f].iter().cycle()) {
        let mut b = raw.clone();
        b[i] ^= flip;
        if let Err(e) = load(Cursor::new(b), "p.pb", None) {
            assert!(e.to_string().starts_with("p.pb: "), "{e}");
        }
    }
}

/// The budget's margin ([`budget`]): Go's real profiles' tables take well under the
/// [`budget::FACTOR`] × their size it allows, so none near it is refused.
#[test]
fn real_profiles_tables_take_less_than_twice_their_size() {
    for gz in [
        &include_bytes!("../../../testdata/pprof-cpu.pb.gz")[..],
        include_bytes!("../../../testdata/pprof-heap.pb.gz"),
        include_bytes!("../../../testdata/pprof-labels.pb.gz"),
    ] {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut raw)
            .unwrap();
        let c = budget::scan(&raw).unwrap();
        let ratio = c.decoded_bytes() as f64 / raw.len() as f64;
        eprintln!("{c:?}: {ratio:.2}");
        assert!(ratio < 2.0, "{ratio}");
    }
}

/// Values summing past `u64::MAX` on one path clamp its callers' totals; a caller's own
/// weight (5) and its other callee's (5) stay exact (the caller's read 1: `u64::MAX` less
/// its callees' `2^64 - 2 + 5`, clamped).
#[test]
fn a_clamped_path_leaves_its_callers_and_siblings_own_weights_exact() {
    let max = i64::MAX;
    let b = profile(
        S,
        &[(5, 6)],
        &[&[1], &[2], &[3]],
        &[
            (&[2, 1], &[max]),
            (&[1], &[5]),
            (&[2, 1], &[max]),
            (&[3, 1], &[5]),
        ],
    );
    let mut out = load(Cursor::new(b), "p.pb", None).unwrap();
    assert!(out.tree.saturated());
    out.tree.finish();
    assert_eq!(
        out.tree.stacks(),
        vec![
            ("main".to_owned(), 5),
            ("main;inl".to_owned(), 5),
            ("main;work".to_owned(), 2 * max as u64),
        ]
    );
}

#[test]
fn a_file_name_past_path_max_gives_no_lines_and_one_note() {
    // Functions 1 and 2 in a 1 MB file, 3 in `a.go`; one location each.
    let long = "x".repeat(1 << 20);
    let strings = ["", "samples", "count", &long, "a.go", "f", "g", "h"];
    let p = Profile {
        sample_type: vec![ValueType { r#type: 1, unit: 2 }],
        location: (1..=3)
            .map(|i| Location {
                id: i,
                mapping_id: 0,
                address: 0x1000 + i,
                line: vec![Line {
                    function_id: i,
                    line: 7,
                }],
            })
            .collect(),
        function: (1..=3)
            .map(|i| Function {
                id: i,
                name: 4 + i as i64,
                system_name: 0,
                filename: if i == 3 { 4 } else { 3 },
                start_line: 1,
            })
            .collect(),
        string_table: strings.iter().map(|x| x.as_bytes().to_vec()).collect(),
        ..Profile::default()
    };
    let b = with_samples(&p, &[(&[1], &[1]), (&[2], &[1]), (&[3], &[1])]);
    let mut out = load(Cursor::new(b), "p.pb", None).unwrap();
    out.tree.finish();
    assert_eq!(out.tree.total(), 3);
    let lines = out.samples.lines();
    let names = out.tree.names();
    let with_lines: Vec<&str> = lines
        .functions()
        .iter()
        .map(|&f| names.resolve(f))
        .collect();
    assert_eq!(with_lines, ["h"]);
    let notes: Vec<&str> = out.stats.bad_lines.iter().map(|b| b.reason).collect();
    assert_eq!(notes, [super::locations::LONG_FILE_NOTE]);
    assert_eq!(out.stats.skipped_lines(), 0);
}
