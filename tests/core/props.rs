//! Property tests: random stacks → text in each format → parse → tree → export gives
//! back the same aggregated stacks.

use std::collections::BTreeMap;

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded};
use proptest::prelude::*;

fn frame() -> impl Strategy<Value = String> {
    // Names as profilers print them: letters, digits, ::, <>, spaces inside templates.
    prop::string::string_regex("[a-zA-Z_][a-zA-Z0-9_:<>]{0,12}( [a-z]{1,3})?").unwrap()
}

fn stacks() -> impl Strategy<Value = Vec<(Vec<String>, u64)>> {
    prop::collection::vec((prop::collection::vec(frame(), 1..8), 1u64..10_000), 1..40)
}

fn aggregate(stacks: &[(Vec<String>, u64)]) -> Vec<String> {
    let mut m: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, w) in stacks {
        *m.entry(frames.join(";")).or_insert(0) += w;
    }
    m.into_iter().map(|(s, w)| format!("{s} {w}")).collect()
}

fn load(text: &str, format: FormatChoice) -> Vec<String> {
    let opts = LoadOptions {
        format,
        ..LoadOptions::default()
    };
    match input::load_reader(text.as_bytes(), "prop", &opts).unwrap() {
        Loaded::Single(p) => export::folded_lines(&p.tree),
        Loaded::Diff { .. } => panic!("diff"),
    }
}

proptest! {
    #[test]
    fn folded_round_trip(stacks in stacks()) {
        let text: String = stacks
            .iter()
            .map(|(f, w)| format!("{} {w}\n", f.join(";")))
            .collect();
        prop_assert_eq!(load(&text, FormatChoice::Folded), aggregate(&stacks));
        // Exported text parses back to itself.
        let exported = aggregate(&stacks).join("\n");
        prop_assert_eq!(load(&exported, FormatChoice::Auto), aggregate(&stacks));
    }

    #[test]
    fn perf_script_round_trip(stacks in stacks()) {
        // perf prints the leaf first; the process name becomes the root frame.
        let mut text = String::new();
        let mut expected = Vec::new();
        for (i, (frames, w)) in stacks.iter().enumerate() {
            text.push_str(&format!("proc 4242 {i}.000001: {w} cpu-clock:pppH: \n"));
            for f in frames.iter().rev() {
                let sym = f.replace(' ', "_").replace(['<', '>'], "");
                let sym = if sym.is_empty() { "x".to_owned() } else { sym };
                text.push_str(&format!("\t    7f00{i:04x} {sym}+0x1a (/usr/lib/libfoo.so)\n"));
            }
            text.push('\n');
            let mut e = vec!["proc".to_owned()];
            e.extend(frames.iter().map(|f| {
                let s = f.replace(' ', "_").replace(['<', '>'], "");
                if s.is_empty() { "x".to_owned() } else { s }
            }));
            expected.push((e, *w));
        }
        prop_assert_eq!(load(&text, FormatChoice::Auto), aggregate(&expected));
    }

    #[test]
    fn stap_round_trip(stacks in stacks()) {
        let mut text = String::new();
        let mut expected = Vec::new();
        for (frames, w) in &stacks {
            let names: Vec<String> = frames.iter().map(|f| f.replace([' ', '<', '>', ':'], "_")).collect();
            for (i, n) in names.iter().rev().enumerate() {
                text.push_str(&format!(" 0x{:x} : {n}+0x{i:x}/0x100 [/usr/sbin/app]\n", 0x4000 + i));
            }
            text.push_str(&format!("\t{w}\n"));
            expected.push((names, *w));
        }
        prop_assert_eq!(load(&text, FormatChoice::Auto), aggregate(&expected));
    }

    #[test]
    fn parallel_parse_equals_sequential(stacks in stacks(), chunk in 16usize..400, bad in 0usize..5) {
        let mut text = String::new();
        for (i, (frames, w)) in stacks.iter().enumerate() {
            text.push_str(&format!("proc 4242 {i}.000001: {w} cpu-clock: \n"));
            if i % 7 == bad {
                text.push_str("\tTHIS_IS_A_WEIRD_LINE\n");
            }
            for f in frames.iter().rev() {
                text.push_str(&format!("\t7f00 {}+0x1 (/usr/lib/libfoo.so)\n", f.replace(' ', "_")));
            }
            text.push('\n');
        }
        let load_with = |threads, chunk_size| {
            let opts = LoadOptions { threads: Some(threads), chunk_size: Some(chunk_size), ..LoadOptions::default() };
            match input::load_reader(text.as_bytes(), "p", &opts).unwrap() {
                Loaded::Single(p) => (export::folded_lines(&p.tree), p.stats),
                Loaded::Diff { .. } => panic!("diff"),
            }
        };
        let (seq, seq_stats) = load_with(1, 1 << 20);
        let (par, par_stats) = load_with(3, chunk);
        // The folded export of the parser threads' trees left apart (no sample records
        // kept, as for the export) is the same text.
        let opts = LoadOptions {
            threads: Some(3),
            chunk_size: Some(chunk),
            perf: input::PerfOptions { no_timeline: true, ..Default::default() },
            ..LoadOptions::default()
        };
        let (loaded, parts) = input::load_reader_parts(text.as_bytes(), "p", &opts).unwrap();
        let mut apart = Vec::new();
        export::write_folded_parts(&mut apart, &loaded.main().tree, &parts, export::Destination::Data).unwrap();
        let mut want = seq.join("\n");
        want.push('\n');
        prop_assert_eq!(String::from_utf8(apart).unwrap(), want);
        prop_assert_eq!(loaded.main().stats.samples, seq_stats.samples);
        prop_assert_eq!(seq, par);
        prop_assert_eq!(seq_stats.samples, par_stats.samples);
        prop_assert_eq!(seq_stats.bad_lines, par_stats.bad_lines);
        prop_assert_eq!(seq_stats.skipped, par_stats.skipped);
        prop_assert_eq!(seq_stats.lines, par_stats.lines);
        prop_assert_eq!(seq_stats.unit, par_stats.unit);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        for format in [FormatChoice::Auto, FormatChoice::Folded, FormatChoice::Perf, FormatChoice::Stap, FormatChoice::Bpftrace] {
            let opts = LoadOptions { format, ..LoadOptions::default() };
            if let Ok(l) = input::load_reader(&bytes[..], "fuzz", &opts) {
                let s = &l.main().stats;
                prop_assert_eq!(s.accounted_lines(), s.lines);
            }
        }
    }
}

/// `printed` (a share as flametui prints it, two decimals) is the nearest value to
/// `part / whole` in hundredths of a percent: `|v·whole − part·10⁴| ≤ whole/2`. Checked by
/// multiplying back instead of recomputing the division, so the test does not share the
/// formatter's arithmetic.
fn is_nearest_hundredth(printed: &str, part: u64, whole: u64) -> bool {
    let (int, frac) = printed.split_once('.').unwrap();
    assert_eq!(frac.len(), 2, "{printed}");
    let v: u128 = format!("{int}{frac}").parse().unwrap();
    let target = u128::from(part) * 10_000;
    let got = v * u128::from(whole);
    let err = got.abs_diff(target);
    2 * err <= u128::from(whole)
}

proptest! {
    #[test]
    fn printed_share_is_exactly_rounded(whole in 1u64.., frac in 0u64..=u64::MAX) {
        // part ≤ whole, spread over the whole range (u64 included).
        let part = u64::try_from(u128::from(whole) * u128::from(frac) / u128::from(u64::MAX)).unwrap();
        let printed = flametui::text::share(part, whole).to_string();
        prop_assert!(is_nearest_hundredth(&printed, part, whole), "{part}/{whole} printed {printed}");
    }

    #[test]
    fn printed_share_small_ratios(part in 0u64..2_000, whole in 1u64..2_000) {
        let printed = flametui::text::share(part, whole).to_string();
        prop_assert!(is_nearest_hundredth(&printed, part, whole), "{part}/{whole} printed {printed}");
    }
}
