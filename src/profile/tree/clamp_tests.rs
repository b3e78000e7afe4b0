//! Unit tests of the call tree's limits: weights saturate, a total clamped at `u64::MAX`
//! keeps its node's own weight (through merging, rescaling, pruning and nesting), and a
//! deep stack needs no recursion.

use std::collections::BTreeMap;

use super::tests::tree;
use super::*;

/// `i64::MAX`, the largest pprof sample value: two on one path clamp its callers.
const BIG: u64 = i64::MAX as u64;

/// Every own weight of a tree, by stack.
fn own(t: &CallTree) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    t.for_each_stack(|path, w, _| {
        let names: Vec<&str> = path.iter().map(|&n| t.names().resolve(n)).collect();
        out.insert(names.join(";"), w);
    });
    out
}

/// The own weights of the stacks `main;a` (2 × [`BIG`], clamping `main` and the root
/// at `u64::MAX`), `main` (5), `main;b` (5) and, past the clamp, `main` again (2).
fn clamped_own() -> BTreeMap<String, u64> {
    BTreeMap::from([
        (String::new(), 0),
        ("main".to_owned(), 7),
        ("main;a".to_owned(), 2 * BIG),
        ("main;b".to_owned(), 5),
    ])
}

const CLAMPED: [(&str, u64); 5] = [
    ("main;a", BIG),
    ("main", 5),
    ("main;a", BIG),
    ("main;b", 5),
    ("main", 2),
];

#[test]
fn a_clamped_total_keeps_its_own_weight_and_its_siblings() {
    let mut t = CallTree::new();
    for (s, w) in CLAMPED {
        t.insert(s.split(';'), w);
    }
    assert!(t.saturated());
    assert_eq!(t.total(), u64::MAX);
    // `main`'s own was its total less its children's: u64::MAX - (2^64 - 2 + 5) = 0.
    let mut want = clamped_own();
    want.remove("");
    assert_eq!(own(&t), want);
    // With interned ids, as the pprof loader inserts.
    let mut u = CallTree::new();
    for (s, w) in CLAMPED {
        let ids: Vec<NameId> = s.split(';').map(|f| u.intern(f)).collect();
        u.insert_ids(ids, w);
    }
    assert_eq!(own(&u), want);
}

#[test]
fn clamped_own_weights_survive_merging_rescaling_pruning_and_nesting() {
    let mut want = clamped_own();
    want.remove("");
    // Each stack in a tree of its own, merged.
    let mut merged = CallTree::new();
    for (s, w) in CLAMPED {
        let mut part = CallTree::new();
        part.insert(s.split(';'), w);
        merged.merge_from(&part);
    }
    assert_eq!(own(&merged), want);
    // Rescaled: ten times `main;a` still fits, ten times `main` does not.
    let mut scaled = tree(&[("main;a", BIG / 5), ("main", 5), ("main;b", 5)]);
    scaled.rescale(1);
    let own_scaled = own(&scaled);
    assert_eq!(own_scaled["main;a"], BIG / 5 * 10);
    assert_eq!(own_scaled["main;b"], 50);
    assert_eq!(own_scaled["main"], 50);
    // Pruned: `b` (5) goes, into `main`'s own.
    let (pruned, _) = merged.pruned(6);
    let mut pruned_want = want.clone();
    pruned_want.remove("main;b");
    pruned_want.insert("main".to_owned(), 12);
    assert_eq!(own(&pruned), pruned_want);
    // Nested under a new frame.
    let nested = merged.nest_under("on");
    let nested_want: BTreeMap<String, u64> =
        want.iter().map(|(k, &w)| (format!("on;{k}"), w)).collect();
    assert_eq!(own(&nested), nested_want);
}

#[test]
fn a_forest_past_u64_max_keeps_every_own_weight() {
    let mut t = CallTree::new();
    let (main, a, b) = (t.intern("main"), t.intern("a"), t.intern("b"));
    let e = |parent, name, own| ForestEntry {
        parent,
        name,
        own,
        own_samples: 1,
    };
    t.insert_forest(&[e(None, main, 5), e(Some(0), a, BIG), e(Some(0), b, 5)]);
    t.insert_forest(&[e(None, main, 2), e(Some(0), a, BIG)]);
    let mut want = clamped_own();
    want.remove("");
    assert_eq!(own(&t), want);
}

#[test]
fn overflow_saturates() {
    let t = tree(&[("a", u64::MAX), ("a", 1)]);
    assert!(t.saturated());
    assert_eq!(t.total(), u64::MAX);
}

#[test]
fn deep_stack_no_recursion() {
    let frames: Vec<String> = (0..100_000).map(|i| format!("f{}", i % 7)).collect();
    let mut t = CallTree::new();
    t.insert(frames.iter(), 1);
    t.finish();
    assert_eq!(t.max_depth(), 100_000);
    assert_eq!(t.stacks().len(), 1);
    assert_eq!(t.preorder().len(), 100_001);
}
