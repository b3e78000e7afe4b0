// Short names (t, ix, l, w) keep the geometry assertions readable.
#![allow(clippy::many_single_char_names)]

use proptest::prelude::*;

use super::*;

fn tree(stacks: &[(&str, u64)]) -> (CallTree, TreeIndex) {
    let mut t = CallTree::new();
    for (s, w) in stacks {
        t.insert(s.split(';'), *w);
    }
    t.finish();
    let ix = TreeIndex::new(&t);
    (t, ix)
}

fn find(t: &CallTree, path: &str) -> NodeId {
    let mut at = NodeId::ROOT;
    for name in path.split(';') {
        at = t.child_named(at, name).unwrap();
    }
    at
}

fn spans(l: &FrameLayout, depth: u32) -> Vec<(u16, u16)> {
    l.row(depth)
        .unwrap()
        .cells
        .iter()
        .map(|c| (c.x0, c.x1))
        .collect()
}

#[test]
fn cumulative_rounding_partitions_the_row() {
    let (t, ix) = tree(&[("a", 1), ("b", 1), ("c", 1)]);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 10, 10);
    assert_eq!(spans(&l, 0), [(0, 10)]);
    assert_eq!(spans(&l, 1), [(0, 3), (3, 6), (6, 10)]);
    assert_eq!(l.total_rows(), 2);
}

#[test]
fn children_stay_inside_parent_and_self_weight_leaves_room() {
    let (t, ix) = tree(&[("a;b", 3), ("a", 1), ("c", 4)]);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 8, 10);
    assert_eq!(spans(&l, 1), [(0, 4), (4, 8)]);
    assert_eq!(spans(&l, 2), [(0, 3)]);
}

#[test]
fn frame_zoom_fills_the_width_and_keeps_ancestors() {
    let (t, ix) = tree(&[("a;b;c", 2), ("a;b;d", 2), ("a;e", 6), ("f", 10)]);
    let b = find(&t, "a;b");
    let vp = Viewport::frame(&ix, b);
    let l = layout(&t, &ix, &vp, 20, 10);
    assert_eq!(
        l.row(1).unwrap().cells[0].kind,
        CellKind::Frame(find(&t, "a"))
    );
    assert_eq!(spans(&l, 1), [(0, 20)]);
    assert_eq!(spans(&l, 2), [(0, 20)]);
    assert_eq!(spans(&l, 3), [(0, 10), (10, 20)]);
    assert!(vp.is_frame(&ix));
}

#[test]
fn max_rows_limits_work_but_not_total_rows() {
    let (t, ix) = tree(&[("a;b;c;d;e", 1)]);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 10, 2);
    assert_eq!(l.rows.len(), 2);
    assert_eq!(l.total_rows(), 6);
}

#[test]
fn extending_gives_the_layout_of_more_rows() {
    let (t, ix) = tree(&[("a;b;c;d;e", 1), ("a;b;x", 3), ("f;g", 2)]);
    let vp = Viewport::whole(&ix);
    for rows in 0..8 {
        let mut l = layout(&t, &ix, &vp, 10, 2);
        extend(&mut l, &t, &ix, rows);
        let want = layout(&t, &ix, &vp, 10, rows.max(2));
        assert_eq!(l, want, "{rows} rows");
    }
}

#[test]
fn narrow_frames_are_grouped_and_reachable() {
    let mut stacks = vec![("big".to_owned(), 1000)];
    stacks.extend((0..50).map(|i| (format!("t{i:02};x"), 1)));
    let refs: Vec<(&str, u64)> = stacks.iter().map(|(s, w)| (s.as_str(), *w)).collect();
    let (t, ix) = tree(&refs);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 20, 10);
    let row = l.row(1).unwrap();
    assert!(
        row.cells
            .iter()
            .any(|c| matches!(c.kind, CellKind::Group(_)))
    );
    for i in 0..50 {
        let id = find(&t, &format!("t{i:02}"));
        let (d, k) = l.locate(&ix, &Target::Frame(id)).unwrap();
        let (lo, hi) = l.row(d).unwrap().cells[k].interval(&ix);
        assert!(lo <= ix.start(id) && ix.end(id) <= hi);
        let x = find(&t, &format!("t{i:02};x"));
        assert!(
            l.locate(&ix, &Target::Frame(x)).is_some(),
            "row 2 keeps the group"
        );
    }
}

#[test]
fn zooming_into_groups_reveals_every_frame() {
    let stacks: Vec<String> = (0..1000).map(|i| format!("p;f{i:04}")).collect();
    let refs: Vec<(&str, u64)> = stacks.iter().map(|s| (s.as_str(), 1)).collect();
    let (t, ix) = tree(&refs);
    let want = find(&t, "p;f0537");
    let mut vp = Viewport::whole(&ix);
    for step in 0.. {
        assert!(step < 6, "zooming does not converge");
        let l = layout(&t, &ix, &vp, 80, 10);
        let (d, k) = l.locate(&ix, &Target::Frame(want)).unwrap();
        let cell = l.row(d).unwrap().cells[k];
        match cell.kind {
            CellKind::Frame(id) => {
                assert_eq!(id, want);
                break;
            }
            CellKind::Group(g) => vp = Viewport::span(&t, &ix, d, g.lo, g.hi),
        }
    }
    assert_eq!(vp.root, find(&t, "p"));
}

#[test]
fn one_narrow_frame_alone_is_drawn_as_itself() {
    let (t, ix) = tree(&[("a", 95), ("b", 5)]);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 10, 5);
    let b = find(&t, "b");
    assert_eq!(
        l.row(1).unwrap().cells.last().unwrap().kind,
        CellKind::Frame(b)
    );
}

#[test]
fn hit_testing_finds_cells_by_column() {
    let (t, ix) = tree(&[("a", 1), ("b", 3)]);
    let l = layout(&t, &ix, &Viewport::whole(&ix), 8, 5);
    let kind = |x| l.cell_at(1, x).map(|(_, c)| c.kind);
    assert_eq!(kind(0), Some(CellKind::Frame(find(&t, "a"))));
    assert_eq!(kind(1), Some(CellKind::Frame(find(&t, "a"))));
    assert_eq!(kind(2), Some(CellKind::Frame(find(&t, "b"))));
    assert_eq!(kind(7), Some(CellKind::Frame(find(&t, "b"))));
    assert_eq!(kind(8), None);
    assert!(l.cell_at(2, 0).is_none());
}

#[test]
fn empty_inputs_do_not_panic() {
    let (t, ix) = tree(&[("a", 1)]);
    assert!(layout(&t, &ix, &Viewport::whole(&ix), 0, 5).rows.is_empty());
    assert!(layout(&t, &ix, &Viewport::whole(&ix), 5, 0).rows.is_empty());
    let empty = CallTree::new();
    let eix = TreeIndex::new(&empty);
    assert!(
        layout(&empty, &eix, &Viewport::whole(&eix), 5, 5)
            .rows
            .is_empty()
    );
}

/// Checks the layout invariants the renderer and navigation rely on.
fn check(t: &CallTree, ix: &TreeIndex, l: &FrameLayout) {
    let w = l.width;
    assert_eq!(spans(l, 0), [(0, w)]);
    for (d, row) in l.rows.iter().enumerate() {
        let mut x = 0;
        for c in &row.cells {
            assert!(
                c.x0 >= x && c.x0 < c.x1 && c.x1 <= w,
                "row {d}: {:?}",
                row.cells
            );
            x = c.x1;
            if d > 0 {
                assert!(l.cell_at(d as u32 - 1, c.x0).is_some(), "floating cell");
            }
            let CellKind::Frame(id) = c.kind else {
                continue;
            };
            let inside = l.viewport.lo <= ix.start(id) && ix.end(id) <= l.viewport.hi;
            if t.self_weight(id) == 0 && inside && d + 1 < l.rows.len() {
                for col in c.x0..c.x1 {
                    assert!(l.cell_at(d as u32 + 1, col).is_some(), "gap under {id:?}");
                }
            }
        }
    }
    for id in t.ids() {
        let depth = ix.depth(id) as usize;
        let (s, e) = (ix.start(id), ix.end(id));
        if depth >= l.rows.len() || s == e || !l.viewport.overlaps(s, e) {
            continue;
        }
        let (d, k) = l.locate(ix, &Target::Frame(id)).expect("unreachable frame");
        let cell = l.rows[d as usize].cells[k];
        match cell.kind {
            CellKind::Frame(other) => assert_eq!(other, id),
            CellKind::Group(g) => {
                assert!(g.lo <= s.max(l.viewport.lo) && e.min(l.viewport.hi) <= g.hi);
            }
        }
    }
}

fn arb_stacks() -> impl Strategy<Value = Vec<(Vec<u8>, u64)>> {
    prop::collection::vec(
        (
            prop::collection::vec(0u8..5, 1..7),
            prop_oneof![1u64..3, 1u64..1000],
        ),
        1..60,
    )
}

proptest! {
    #[test]
    fn layout_invariants(stacks in arb_stacks(), width in 1u16..120, pick in any::<u32>(), span in any::<bool>()) {
        let mut t = CallTree::new();
        for (frames, w) in &stacks {
            t.insert(frames.iter().map(|f| format!("f{f}")), *w);
        }
        t.finish();
        let ix = TreeIndex::new(&t);
        let id = NodeId(pick % t.len() as u32);
        let mut vp = Viewport::frame(&ix, id);
        if span && ix.total(id) > 2 {
            let d = ix.depth(id) + 1;
            vp = Viewport::span(&t, &ix, d, ix.start(id) + 1, ix.end(id) - 1);
        }
        let l = layout(&t, &ix, &vp, width, 64);
        check(&t, &ix, &l);
    }
}
