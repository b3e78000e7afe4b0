//! Unit tests of the call tree: building, walking, merging and copying (limits and
//! clamping: `clamp_tests.rs`).

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

pub(super) fn tree(stacks: &[(&str, u64)]) -> CallTree {
    CallTree::from_stacks(stacks)
}

proptest! {
    #[test]
    fn own_weights_added_once_are_stacks_inserted_one_by_one(
        stacks in prop::collection::vec(
            (prop::collection::vec(0u8..4, 0..6), prop_oneof![0u64..100, Just(u64::MAX / 3)]),
            0..30,
        )
    ) {
        let mut one = CallTree::new();
        let mut all = CallTree::new();
        let mut own: Vec<(u64, u64)> = Vec::new();
        for (frames, weight) in &stacks {
            let names: Vec<String> = frames.iter().map(|f| format!("f{f}")).collect();
            one.insert_counted(&names, *weight, 1);
            let mut at = NodeId::ROOT;
            for n in &names {
                let name = all.intern(n);
                at = all.child_or_add(at, name);
            }
            if own.len() <= at.index() {
                own.resize(at.index() + 1, (0, 0));
            }
            // Sums past u64 are left to the tree (added stack by stack).
            let (w, k) = &mut own[at.index()];
            *w = w.saturating_add(*weight);
            *k += 1;
        }
        all.add_own_weights(&own);
        one.finish();
        all.finish();
        prop_assert_eq!(one.stacks(), all.stacks());
        prop_assert_eq!(one.max_depth(), all.max_depth());
        prop_assert_eq!(one.node(NodeId::ROOT), all.node(NodeId::ROOT));
        prop_assert_eq!(one.saturated(), all.saturated());
    }
}

#[test]
fn a_pruned_copy_keeps_the_heavy_frames_exactly_and_the_rest_in_their_callers() {
    let mut t = CallTree::new();
    for (s, w) in [("a;b;c", 5), ("a;b;d", 1), ("a;e", 1), ("f", 2), ("a;b", 1)] {
        t.insert(s.split(';'), w);
    }
    let (p, map) = t.pruned(2);
    let mut p = p;
    p.finish();
    // `d`, `e` (1 each) go: their weight is `b`'s and `a`'s own.
    assert_eq!(
        p.stacks(),
        vec![
            ("a".to_owned(), 1),
            ("a;b".to_owned(), 2),
            ("a;b;c".to_owned(), 5),
            ("f".to_owned(), 2),
        ]
    );
    assert_eq!((p.total(), p.node(NodeId::ROOT).samples), (10, 5));
    assert_eq!(p.max_depth(), 3);
    // Every node of `t` maps to itself or its nearest kept ancestor in `p`.
    let path = |tree: &CallTree, id: NodeId| crate::profile::diff::path_names(tree, id).join(";");
    for id in t.ids() {
        let want = match path(&t, id).as_str() {
            "a;b;d" => "a;b".to_owned(),
            "a;e" => "a".to_owned(),
            other => other.to_owned(),
        };
        assert_eq!(path(&p, map[id.index()]), want);
    }
    // The least power of two that keeps at most n frames: a alone weighs 8 or more,
    // a, b, c 4 or more, with f 2 or more.
    assert_eq!(t.lightest_of_heaviest(2), 8);
    assert_eq!(t.lightest_of_heaviest(4), 2);
    assert_eq!(t.lightest_of_heaviest(100), 1);
    assert!(t.pruned(t.lightest_of_heaviest(3)).0.len() <= 3 + 1);
}

#[test]
#[allow(clippy::many_single_char_names)]
fn frames_of_one_name_in_two_libraries_are_two_nodes_and_one_text_stack() {
    // A binary's `_start` and ld.so's under one process, each with a callee of one
    // name: two nodes apart in the tree, one stack of text.
    let mut t = CallTree::new();
    let p = t.intern_task("true");
    let names = t.names_mut();
    let (bin, ld) = (Some("true"), Some("ld-linux-x86-64.so.2"));
    let (start_bin, start_ld) = (
        names.intern_in("_start", bin),
        names.intern_in("_start", ld),
    );
    let (main, f, g) = (
        names.intern_in("main", bin),
        names.intern_in("f", ld),
        names.intern("g"),
    );
    t.insert_ids([p, start_bin, main], 5);
    t.insert_ids([p, start_ld, f], 2);
    t.insert_ids([p, start_ld, main], 1);
    t.insert_ids([p, start_bin], 1);
    t.insert_ids([p, g], 1);
    t.finish();
    let proc_node = t.child_named(NodeId::ROOT, "true").unwrap();
    assert_eq!(t.children(proc_node).count(), 3);
    assert!(t.has_same_text_siblings());
    // `child_named` finds the heavier of the two.
    let start = t.child_named(proc_node, "_start").unwrap();
    assert_eq!(t.node(start).name, start_bin);
    let merged = t.merged_by_text().unwrap();
    assert!(!merged.has_same_text_siblings());
    assert_eq!(
        merged.stacks(),
        vec![
            ("true;_start".to_owned(), 1),
            ("true;_start;f".to_owned(), 2),
            ("true;_start;main".to_owned(), 6),
            ("true;g".to_owned(), 1),
        ]
    );
    assert_eq!(merged.total(), t.total());
    assert_eq!(merged.node(NodeId::ROOT).samples, 5);
    assert_eq!(merged.max_depth(), t.max_depth());
    // One name in two libraries under different callers needs no merge.
    let mut u = CallTree::new();
    let (a, b) = (u.intern("a"), u.intern("b"));
    let names = u.names_mut();
    let (s1, s2) = (
        names.intern_in("s", Some("x")),
        names.intern_in("s", Some("y")),
    );
    u.insert_ids([a, s1], 1);
    u.insert_ids([b, s2], 1);
    u.finish();
    assert!(!u.has_same_text_siblings() && u.merged_by_text().is_none());
}

#[test]
fn clearing_the_nodes_keeps_the_names_and_their_ids() {
    let mut t = tree(&[("a;b", 3)]);
    let b = t.names().lookup("b").unwrap();
    t.clear_nodes();
    assert_eq!((t.len(), t.total()), (1, 0));
    assert_eq!(t.names().lookup("b"), Some(b));
    t.insert_ids([b], 2);
    assert_eq!(t.stacks(), vec![("b".to_owned(), 2)]);
}

#[test]
fn weights_add_up() {
    let t = tree(&[("a;b;c", 3), ("a;b", 2), ("a;d", 5)]);
    assert_eq!(t.total(), 10);
    let a = t.child_named(NodeId::ROOT, "a").unwrap();
    assert_eq!(t.node(a).total, 10);
    assert_eq!(t.self_weight(a), 0);
    let b = t.child_named(a, "b").unwrap();
    assert_eq!((t.node(b).total, t.self_weight(b)), (5, 2));
    assert_eq!(t.node(b).samples, 2);
    assert_eq!(t.path_string(t.child_named(b, "c").unwrap()), "a;b;c");
    assert_eq!(t.max_depth(), 3);
}

#[test]
fn a_forest_adds_up_as_its_paths_would() {
    let mut forest = CallTree::new();
    let (fa, fb, fc) = (forest.intern("a"), forest.intern("b"), forest.intern("c"));
    let entry = |parent, name, own| ForestEntry {
        parent,
        name,
        own,
        own_samples: u64::from(own > 0),
    };
    // a(1) → b(2) → c(3); a → b again (merged, 4); c at the root (5).
    let nodes = forest.insert_forest(&[
        entry(None, fa, 1),
        entry(Some(0), fb, 2),
        entry(Some(1), fc, 3),
        entry(Some(0), fb, 4),
        entry(None, fc, 5),
    ]);
    let mut want = tree(&[("a", 1), ("a;b", 2), ("a;b;c", 3), ("a;b", 4), ("c", 5)]);
    want.finish();
    forest.finish();
    assert_eq!(forest.stacks(), want.stacks());
    assert_eq!(forest.total(), 15);
    assert_eq!(nodes[1], nodes[3]);
    assert_eq!(forest.path_string(nodes[2]), "a;b;c");
    assert_eq!(forest.max_depth(), 3);
    // A chain of 100,000 costs one step a frame.
    let mut deep = CallTree::new();
    let x = deep.intern("x");
    let chain: Vec<ForestEntry> = (0..100_000u32)
        .map(|i| entry(i.checked_sub(1), x, u64::from(i == 99_999)))
        .collect();
    deep.insert_forest(&chain);
    assert_eq!(
        (deep.total(), deep.max_depth(), deep.len()),
        (1, 100_000, 100_001)
    );
}

#[test]
fn children_sorted_alphabetically() {
    let t = tree(&[("z", 1), ("a", 1), ("M", 1)]);
    let names: Vec<_> = t.children(NodeId::ROOT).map(|c| t.name(c)).collect();
    assert_eq!(names, ["M", "a", "z"]);
}

#[test]
fn families_large_and_small_find_their_children() {
    // Crossing the scan limit moves a family into the index; nothing is duplicated.
    let mut t = CallTree::new();
    for round in 0..2 {
        for i in 0..(3 * SCAN_CHILDREN) {
            t.insert(["main", &format!("f{i}"), "leaf"], 1);
        }
        let main = t.child_named(NodeId::ROOT, "main").unwrap();
        assert_eq!(t.children(main).count(), 3 * SCAN_CHILDREN, "round {round}");
    }
    t.finish();
    let main = t.child_named(NodeId::ROOT, "main").unwrap();
    for i in 0..(3 * SCAN_CHILDREN) {
        let f = t.child_named(main, &format!("f{i}")).unwrap();
        assert_eq!(t.node(f).total, 2);
        assert!(t.child_named(f, "leaf").is_some());
    }
    assert!(t.child_named(main, "nope").is_none());
    assert_eq!(t.len(), 2 + 2 * 3 * SCAN_CHILDREN);
}

#[test]
fn sorted_walk_is_the_bytewise_order_of_the_folded_text() {
    // `b2` sorts between `b` and `b;x` (the digit is below `;`), `B` before `a`.
    let t = tree(&[
        ("a;b;x", 1),
        ("a;b", 2),
        ("a;b2", 3),
        ("a;b!;y", 4),
        ("a", 5),
        ("B;c", 6),
        ("a;b;x;z", 7),
    ]);
    let mut walked = Vec::new();
    t.for_each_stack_sorted(|path, w| {
        let names: Vec<&str> = path.iter().map(|&n| t.names().resolve(n)).collect();
        walked.push((names.join(";"), w));
    });
    let mut sorted = t.stacks();
    sorted.sort();
    assert_eq!(walked, sorted);
}

#[test]
fn stacks_round_trip() {
    let t = tree(&[("a;b;c", 3), ("a;b", 2), ("a;d", 5), ("a;b;c", 1)]);
    assert_eq!(
        t.stacks(),
        vec![("a;b".into(), 2), ("a;b;c".into(), 4), ("a;d".into(), 5)]
    );
}

#[test]
fn nest_under_moves_everything_down() {
    let t = tree(&[("a;b", 3), ("c", 2)]);
    let n = t.nest_under("[on-cpu]");
    assert_eq!(n.total(), 5);
    assert_eq!(n.max_depth(), 3);
    let stacks = n.stacks();
    assert_eq!(
        stacks,
        vec![("[on-cpu];a;b".into(), 3), ("[on-cpu];c".into(), 2)]
    );
}

#[test]
fn merge_equals_inserting_everything_in_one_tree() {
    let mut a = tree(&[("a;b", 3), ("c", 2)]);
    let mut b = CallTree::new();
    b.rescale(1);
    b.insert(["a", "b"], 15);
    b.insert(["d"], 10);
    b.finish();
    a.merge_from(&b);
    a.finish();
    assert_eq!(a.scale(), 1);
    assert_eq!(
        a.stacks(),
        vec![("a;b".into(), 45), ("c".into(), 20), ("d".into(), 10)]
    );
    assert_eq!(a.node(a.child_named(NodeId::ROOT, "a").unwrap()).samples, 2);
}

#[test]
fn a_node_costs_32_bytes() {
    assert_eq!(NODE_BYTES, 32);
    let t = tree(&[("a;b;c", 1), ("a;d", 1)]);
    assert!(t.heap_bytes() >= t.len() * NODE_BYTES);
}

/// Stacks of a small alphabet: shared prefixes, families past the scan limit, weight 0.
fn random_stacks() -> impl Strategy<Value = Vec<(Vec<u8>, u64)>> {
    prop::collection::vec((prop::collection::vec(0u8..24, 0..6), 0u64..5), 0..120)
}

fn model(stacks: &[(Vec<u8>, u64)]) -> BTreeMap<String, (u64, u64)> {
    let mut m = BTreeMap::new();
    for (frames, w) in stacks {
        let key: Vec<String> = frames.iter().map(|f| format!("f{f}")).collect();
        let e = m.entry(key.join(";")).or_insert((0, 0));
        e.0 += w;
        e.1 += 1;
    }
    m
}

fn build(stacks: &[(Vec<u8>, u64)]) -> CallTree {
    let mut t = CallTree::new();
    for (frames, w) in stacks {
        t.insert(frames.iter().map(|f| format!("f{f}")), *w);
    }
    t
}

#[test]
fn big_trees_are_sorted_on_all_cores_as_small_ones() {
    // Above the size where several threads sort the families.
    let mut t = CallTree::new();
    let mut x: u64 = 3;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    };
    while t.len() < 250_000 {
        let depth = 1 + next(12) as usize;
        let frames: Vec<String> = (0..depth).map(|_| format!("n{}", next(40))).collect();
        t.insert(frames, 1 + next(5));
    }
    let mut before = t.stacks();
    before.sort();
    t.finish();
    let mut after = t.stacks();
    after.sort();
    assert_eq!(before, after);
    for id in t.ids() {
        let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
        assert!(kids.is_sorted(), "{kids:?}");
        for c in t.children(id) {
            assert_eq!(t.child_named(id, t.name(c)), Some(c));
        }
    }
    // Heaviest first, then back.
    t.sort_by_weight();
    for id in t.ids() {
        let w: Vec<u64> = t.children(id).map(|c| t.node(c).total).collect();
        assert!(w.is_sorted_by(|a, b| a >= b), "{w:?}");
    }
    t.finish();
    let mut again = t.stacks();
    again.sort();
    assert_eq!(before, again);
}

proptest! {
    #[test]
    fn tree_holds_exactly_the_inserted_stacks(
        stacks in random_stacks(),
        split in 0usize..120,
    ) {
        // Built in two pieces and merged, as the parallel parser does.
        let split = split.min(stacks.len());
        let mut t = build(&stacks[..split]);
        t.merge_from(&build(&stacks[split..]));
        t.finish();
        for id in t.ids() {
            let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
            prop_assert!(kids.is_sorted(), "{:?}", kids);
        }
        let want = model(&stacks);
        let mut got = BTreeMap::new();
        t.for_each_stack(|path, w, n| {
            let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
            got.insert(names.join(";"), (w, n));
        });
        prop_assert_eq!(&got, &want);
        let mut sorted = Vec::new();
        t.for_each_stack_sorted(|path, _| {
            let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
            sorted.push(names.join(";"));
        });
        let framed: Vec<String> = want.keys().filter(|k| !k.is_empty()).cloned().collect();
        prop_assert_eq!(sorted, framed);
        // The walk cut into runs (as the parallel export does) is the same walk.
        for per_run in [1, 2, 5, u64::MAX] {
            let mut pieces = Vec::new();
            for run in t.sorted_runs(per_run) {
                t.for_each_stack_in(&run, |path, w| {
                    let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
                    pieces.push((names.join(";"), w));
                });
            }
            let whole: Vec<(String, u64)> = want
                .iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, &(w, _))| (k.clone(), w))
                .collect();
            prop_assert_eq!(pieces, whole, "{} samples a run", per_run);
        }
        let depths = t.depths();
        for id in t.ids() {
            prop_assert_eq!(depths[id.0 as usize] as usize, t.path(id).len());
            prop_assert_eq!(t.depth(id), depths[id.0 as usize]);
            let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
            prop_assert!(kids.is_sorted(), "{:?}", kids);
            for c in t.children(id) {
                prop_assert_eq!(t.child_named(id, t.name(c)), Some(c));
                prop_assert_eq!(t.node(c).parent, Some(id));
            }
        }
        let deepest = want.keys().map(|k| if k.is_empty() { 0 } else { k.split(';').count() });
        prop_assert_eq!(t.max_depth() as usize, deepest.max().unwrap_or(0));
    }
}

#[test]
fn scaled_formatting() {
    assert_eq!(format_scaled(3123, 2), "31.23");
    assert_eq!(format_scaled(600, 2), "6");
    assert_eq!(format_scaled(5, 3), "0.005");
    assert_eq!(format_scaled(0, 1), "0");
    assert_eq!(format_scaled(42, 0), "42");
}
