//! Tests of the interval ring: every mode against the same sums computed directly from
//! the samples, with limits small enough that coarse and older merging happen.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::profile::diff::function_deltas;
use crate::profile::tree::NodeId;

const NAMES: [&str; 5] = ["main", "parse", "read", "alloc", "draw"];
const COMMS: [&str; 3] = ["server", "worker", "sh"];

/// One sample as generated: frames (indexes into `NAMES`, root first), weight, time
/// within its interval, task (index into `COMMS`).
#[derive(Debug, Clone)]
struct Raw {
    frames: Vec<usize>,
    weight: u64,
    time: u64,
    task: usize,
}

/// One refresh as generated: its samples and lost count.
type Refresh = (Vec<Raw>, u64);

fn raw() -> impl Strategy<Value = Raw> {
    (
        prop::collection::vec(0..NAMES.len(), 1..=5),
        1u64..=1000,
        0u64..1000,
        0..COMMS.len(),
    )
        .prop_map(|(frames, weight, time, task)| Raw {
            frames,
            weight,
            time,
            task,
        })
}

fn refreshes() -> impl Strategy<Value = Vec<Refresh>> {
    prop::collection::vec((prop::collection::vec(raw(), 0..6), 0u64..5), 0..24)
}

fn limits() -> impl Strategy<Value = RingLimits> {
    (1usize..6, 0usize..4, 0usize..4).prop_map(|(fine, per_coarse, coarse)| RingLimits {
        fine,
        per_coarse,
        coarse,
    })
}

/// The absolute time of a sample of refresh `i`: refreshes are a second apart.
fn time(i: usize, r: &Raw) -> u64 {
    i as u64 * 1_000_000_000 + r.time
}

fn path(r: &Raw) -> String {
    let names: Vec<&str> = r.frames.iter().map(|&f| NAMES[f]).collect();
    names.join(";")
}

/// Refresh `i` as the ring gets it: a tree and a table built sample by sample.
fn interval(i: usize, (raws, lost): &Refresh) -> Interval {
    let mut tree = CallTree::new();
    let mut samples = SampleTable::default();
    for r in raws {
        let leaf = tree.insert(r.frames.iter().map(|&f| NAMES[f]), r.weight);
        let tid = i64::try_from(r.task).unwrap() + 100;
        let task = samples.task(COMMS[r.task], Some(100), Some(tid));
        samples.push(Some(time(i, r)), task, leaf, r.weight);
    }
    Interval::new(tree, samples, *lost)
}

/// Refreshes `range` (numbered as pushed) aggregated directly into one finished tree.
fn direct(all: &[Refresh], range: std::ops::Range<usize>) -> CallTree {
    let mut tree = CallTree::new();
    for (raws, _) in &all[range] {
        for r in raws {
            tree.insert(r.frames.iter().map(|&f| NAMES[f]), r.weight);
        }
    }
    tree.finish();
    tree
}

/// The samples of refreshes `range` as a sorted multiset of (time, weight, stack, task).
fn expected_samples(
    all: &[Refresh],
    range: std::ops::Range<usize>,
) -> Vec<(u64, u64, String, String)> {
    let mut out: Vec<_> = all[range.clone()]
        .iter()
        .zip(range)
        .flat_map(|((raws, _), i)| {
            raws.iter()
                .map(move |r| (time(i, r), r.weight, path(r), COMMS[r.task].to_owned()))
        })
        .collect();
    out.sort();
    out
}

/// An interval's samples as a sorted multiset, after checking they are in time order.
fn samples_of(iv: &Interval) -> Vec<(u64, u64, String, String)> {
    let s = iv.samples.samples();
    assert!(
        s.windows(2).all(|w| w[0].time <= w[1].time),
        "not in time order"
    );
    let mut out: Vec<_> = s
        .iter()
        .map(|s| {
            let task = iv.samples.task_of(s.task).map_or("", |t| &*t.comm);
            (
                s.time,
                s.weight,
                iv.tree.path_string(s.leaf),
                task.to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn lost(all: &[Refresh], range: std::ops::Range<usize>) -> u64 {
    all[range].iter().map(|r| r.1).sum()
}

/// Checks that `iv` is the sum of refreshes `range`: same stacks in the same (finished)
/// order, same totals and sample counts, same lost count and number of refreshes.
fn assert_sum(iv: &Interval, all: &[Refresh], range: std::ops::Range<usize>) {
    let want = direct(all, range.clone());
    assert_eq!(iv.tree.stacks(), want.stacks());
    assert_eq!(iv.tree.node(NodeId::ROOT), want.node(NodeId::ROOT));
    assert_eq!(iv.lost, lost(all, range.clone()));
    assert_eq!(iv.refreshes as usize, range.len());
}

/// The fine ring's length after `pushes` pushes, as the limits say it must be.
fn model_fine_len(limits: RingLimits, pushes: usize) -> usize {
    let mut len = 0;
    for _ in 0..pushes {
        len += 1;
        if len > limits.fine {
            len -= limits.per_coarse.clamp(1, len);
        }
    }
    len
}

/// Pushes the refreshes one by one, calling `check(ring, pushed so far)` after each.
fn run(all: &[Refresh], limits: RingLimits, mut check: impl FnMut(&Ring, usize)) {
    let mut ring = Ring::new(limits);
    for (i, r) in all.iter().enumerate() {
        ring.push(interval(i, r));
        assert_eq!(ring.refreshes(), i as u64 + 1);
        assert_eq!(ring.fine_len(), model_fine_len(limits, i + 1));
        check(&ring, i + 1);
    }
}

fn one(c: Combined) -> Interval {
    match c {
        Combined::One(iv) => iv,
        Combined::Two { .. } => panic!("two intervals for one"),
    }
}

proptest! {
    #[test]
    fn a_window_is_the_sum_of_its_last_refreshes(
        all in refreshes(), limits in limits(), n in 0u32..8,
    ) {
        run(&all, limits, |ring, pushed| {
            let iv = one(ring.view(LiveMode::Window(n)));
            let from = pushed - (n as usize).min(ring.fine_len());
            assert_sum(&iv, &all, from..pushed);
            assert_eq!(samples_of(&iv), expected_samples(&all, from..pushed));
        });
    }

    #[test]
    fn accumulate_is_the_sum_of_every_refresh(all in refreshes(), limits in limits()) {
        run(&all, limits, |ring, pushed| {
            let iv = one(ring.view(LiveMode::Accumulate));
            assert_sum(&iv, &all, 0..pushed);
            // Samples while every interval is fine; none once some were merged.
            if ring.fine_len() == pushed {
                assert_eq!(samples_of(&iv), expected_samples(&all, 0..pushed));
            } else {
                assert!(iv.samples.is_empty());
            }
            let times = expected_samples(&all, 0..pushed);
            let span = times.first().zip(times.last()).map(|(a, b)| (a.0, b.0));
            assert_eq!(iv.span, span);
        });
    }

    #[test]
    fn a_diff_is_two_windows_side_by_side(
        all in refreshes(), limits in limits(), n in 0u32..5,
    ) {
        run(&all, limits, |ring, pushed| {
            let Combined::Two { before, after } = ring.view(LiveMode::Diff(n)) else {
                panic!("one interval for a diff");
            };
            let fine_from = pushed - ring.fine_len();
            let mid = pushed - (n as usize).min(ring.fine_len());
            let first = mid - (n as usize).min(mid - fine_from);
            assert_sum(&after, &all, mid..pushed);
            assert_sum(&before, &all, first..mid);
            assert_eq!(samples_of(&after), expected_samples(&all, mid..pushed));
            assert_eq!(samples_of(&before), expected_samples(&all, first..mid));
            assert_eq!(
                function_deltas(&before.tree, &after.tree),
                function_deltas(&direct(&all, first..mid), &direct(&all, mid..pushed)),
            );
        });
    }

    #[test]
    fn decay_weighs_each_refresh_by_seven_eighths_per_age(
        all in refreshes(), limits in limits(),
    ) {
        run(&all, limits, |ring, pushed| {
            let iv = one(ring.view(LiveMode::Decay));
            let from = pushed - ring.fine_len();
            let mut want: BTreeMap<String, f64> = BTreeMap::new();
            for (i, (raws, _)) in all.iter().enumerate().take(pushed).skip(from) {
                let age = i32::try_from(pushed - 1 - i).unwrap();
                for r in raws {
                    *want.entry(path(r)).or_default() += r.weight as f64 * 1000.0 * 0.875f64.powi(age);
                }
            }
            let got: BTreeMap<String, u64> = iv.tree.stacks().into_iter().collect();
            assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
            for (p, w) in &want {
                assert!((got[p] as f64 - w).abs() <= 1.0, "{p}: {} against {w}", got[p]);
            }
            assert_eq!(iv.tree.scale(), DECAY_DECIMALS);
            assert_eq!(iv.tree.total(), got.values().sum::<u64>());
            assert!(iv.samples.is_empty());
            assert_eq!(iv.refreshes as usize, ring.fine_len());
            assert_eq!(iv.lost, lost(&all, from..pushed));
        });
    }

    #[test]
    fn trees_kept_are_bounded_whatever_the_pushes(
        pushes in 0usize..200, limits in limits(),
    ) {
        let mut ring = Ring::new(limits);
        for i in 0..pushes {
            let mut tree = CallTree::new();
            tree.insert([NAMES[i % NAMES.len()]], 1);
            ring.push(Interval::new(tree, SampleTable::default(), 0));
            prop_assert!(ring.trees() <= limits.fine + limits.coarse + 1);
            prop_assert!(ring.fine_len() <= limits.fine);
        }
        let all = one(ring.view(LiveMode::Accumulate));
        prop_assert_eq!(all.tree.total(), pushes as u64);
        prop_assert_eq!(all.refreshes as usize, pushes);
    }
}

/// `a;b 1` style stacks as a one-refresh interval, with one sample per stack at `time`.
fn stacks(stacks: &[(&str, u64)], time: u64) -> Interval {
    let mut tree = CallTree::new();
    let mut samples = SampleTable::default();
    let task = samples.task("t", None, Some(1));
    for (s, w) in stacks {
        let leaf = tree.insert(s.split(';'), *w);
        samples.push(Some(time), task, leaf, *w);
    }
    Interval::new(tree, samples, 0)
}

#[test]
fn an_empty_ring_gives_empty_profiles() {
    let ring = Ring::new(RingLimits::default());
    assert_eq!(
        (ring.refreshes(), ring.trees(), ring.heap_bytes()),
        (0, 0, 0)
    );
    for mode in [LiveMode::Accumulate, LiveMode::Window(3), LiveMode::Decay] {
        let iv = one(ring.view(mode));
        assert!(iv.tree.is_empty() && iv.samples.is_empty(), "{mode:?}");
        assert_eq!((iv.refreshes, iv.lost, iv.span), (0, 0, None));
    }
    let Combined::Two { before, after } = ring.view(LiveMode::Diff(2)) else {
        panic!("a diff is two");
    };
    assert!(before.tree.is_empty() && after.tree.is_empty());
}

#[test]
fn a_window_of_none_is_empty_and_a_long_one_is_the_whole_ring() {
    let mut ring = Ring::new(RingLimits::default());
    ring.push(stacks(&[("a;b", 2)], 10));
    ring.push(stacks(&[("a;c", 3)], 20));
    let none = one(ring.view(LiveMode::Window(0)));
    assert!(none.tree.is_empty() && none.samples.is_empty());
    assert_eq!(none.refreshes, 0);
    let long = one(ring.view(LiveMode::Window(1000)));
    assert_eq!(
        long.tree.stacks(),
        [("a;b".to_owned(), 2), ("a;c".to_owned(), 3)]
    );
    assert_eq!((long.refreshes, long.samples.len()), (2, 2));
    assert_eq!(long.span, Some((10, 20)));
}

#[test]
fn a_diff_of_one_interval_has_nothing_before() {
    let mut ring = Ring::new(RingLimits::default());
    ring.push(stacks(&[("a", 5)], 1));
    let Combined::Two { before, after } = ring.view(LiveMode::Diff(1)) else {
        panic!("a diff is two");
    };
    assert!(before.tree.is_empty() && before.samples.is_empty());
    assert_eq!(before.refreshes, 0);
    assert_eq!(after.tree.stacks(), [("a".to_owned(), 5)]);
    assert_eq!(after.samples.len(), 1);
}

#[test]
fn decay_keeps_fractions_in_three_more_decimals() {
    let mut ring = Ring::new(RingLimits::default());
    ring.push(stacks(&[("a", 8), ("b", 1)], 1));
    ring.push(stacks(&[("a", 8)], 2));
    let iv = one(ring.view(LiveMode::Decay));
    // a: 8 × 7/8 + 8; b: 1 × 7/8.
    assert_eq!(
        iv.tree.stacks(),
        [("a".to_owned(), 15_000), ("b".to_owned(), 875)]
    );
    assert_eq!(iv.tree.format_weight(iv.tree.total()), "15.875");
    // Sample counts are not decayed.
    assert_eq!(iv.tree.node(NodeId::ROOT).samples, 3);
}

#[test]
fn merged_intervals_drop_their_samples_and_keep_the_rest() {
    let limits = RingLimits {
        fine: 2,
        per_coarse: 2,
        coarse: 1,
    };
    let mut ring = Ring::new(limits);
    for (i, name) in ["d", "c", "b", "a", "e"].into_iter().enumerate() {
        let mut iv = stacks(&[(name, 1)], i as u64);
        iv.lost = 1;
        ring.push(iv);
    }
    // Fine: e; coarse: b+a; older: d+c.
    assert_eq!((ring.fine_len(), ring.trees()), (1, 3));
    let all = one(ring.view(LiveMode::Accumulate));
    // Alphabetical, as a finished tree.
    let names: Vec<&str> = all
        .tree
        .children(NodeId::ROOT)
        .map(|c| all.tree.name(c))
        .collect();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
    assert!(all.samples.is_empty());
    assert_eq!((all.refreshes, all.lost, all.span), (5, 5, Some((0, 4))));
    assert!(ring.heap_bytes() > 0);
}

#[test]
fn default_limits_bound_the_ring_to_129_trees() {
    let l = RingLimits::default();
    assert_eq!((l.fine, l.per_coarse, l.coarse), (64, 16, 64));
    assert_eq!(l.fine + l.coarse + 1, 129);
}
