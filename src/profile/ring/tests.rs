//! Tests of the interval ring.

use super::*;
use crate::profile::tree::NodeId;

fn one(c: Combined) -> Interval {
    match c {
        Combined::One(iv) => iv,
        Combined::Two { .. } => panic!("two intervals for one"),
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
