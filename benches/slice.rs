//! The timeline on generated data: re-aggregating 1 M samples into the tree of a slice
//! (a 100 k-node tree), bucketing 1 M samples into the heat map, and regrouping the towers
//! of 1 M samples by thread or folded thread name. Goals (issue 14): ≤ 50 ms and ≤ 100 ms
//! on one core for the first two.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use flametui::profile::group::{Group, regroup};
use flametui::profile::heatmap::{DEFAULT_ROW_NS, heat_map};
use flametui::profile::{CallTree, NodeId, SampleTable, Slice, TaskId, slice_tree};

/// xorshift64: deterministic pseudo-random numbers.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A finished tree of at least `nodes` nodes (stacks of 6–21 frames over 3,000 names under
/// 16 task roots) and `samples` samples over its leaves, about 100 µs apart (a 100 s
/// recording for 1 M samples) from 16 tasks.
fn recording(nodes: usize, samples: usize) -> (CallTree, SampleTable) {
    let mut x = 0x2545_f491_4f6c_dd1d;
    let mut tree = CallTree::new();
    let names: Vec<_> = (0..3000).map(|i| tree.intern(&format!("fn_{i}"))).collect();
    let tasks: Vec<_> = (0..16)
        .map(|i| tree.intern_task(&format!("task-{i}")))
        .collect();
    let mut leaves = Vec::new();
    while tree.len() < nodes {
        let task = tasks[(next(&mut x) % 16) as usize];
        let depth = 6 + (next(&mut x) % 16) as usize;
        // Shallow frames from a few names, deeper ones from all: a realistic fan-out.
        let frames: Vec<_> = (0..depth)
            .map(|d| {
                let pool = if d < 3 { 4 } else { names.len() as u64 };
                names[(next(&mut x) % pool) as usize]
            })
            .collect();
        leaves.push(tree.insert_ids(std::iter::once(task).chain(frames), 1));
    }
    tree.finish();
    let mut table = SampleTable::default();
    let ids: Vec<TaskId> = (0..16)
        .map(|i| table.task(&format!("task-{i}"), Some(1), Some(i)))
        .collect();
    let mut time = 7_000_000_000_000u64;
    for _ in 0..samples {
        time += next(&mut x) % 200_000;
        let leaf: NodeId = leaves[(next(&mut x) as usize) % leaves.len()];
        table.push(
            Some(time),
            ids[(next(&mut x) % 16) as usize],
            leaf,
            1_000_000,
        );
    }
    table.finish();
    (tree, table)
}

fn bench_slice(c: &mut Criterion) {
    let (tree, table) = recording(100_000, 1_000_000);
    eprintln!(
        "tree: {} nodes; table: {} samples over {:.1} s",
        tree.len(),
        table.len(),
        table.duration() as f64 / 1e9
    );
    let by_thread = regroup(&tree, &table, &Slice::default(), Group::Thread);
    eprintln!(
        "by thread: {} nodes (each of the 16 tasks ran most stacks)",
        by_thread.len()
    );
    drop(by_thread);
    let mut g = c.benchmark_group("slice");
    g.sample_size(20);
    g.bench_function("slice_tree 1M samples, 100k nodes, whole recording", |b| {
        b.iter(|| black_box(slice_tree(&tree, &table, &Slice::default())));
    });
    let half = Slice {
        range: Some((table.duration() / 4, table.duration() / 4 * 3)),
        tasks: Some((0..8).map(TaskId).collect::<BTreeSet<_>>()),
    };
    g.bench_function(
        "slice_tree 1M samples, half the time, half the tasks",
        |b| {
            b.iter(|| black_box(slice_tree(&tree, &table, &half)));
        },
    );
    g.bench_function("regroup 1M samples, 100k nodes, by thread", |b| {
        b.iter(|| black_box(regroup(&tree, &table, &Slice::default(), Group::Thread)));
    });
    g.bench_function("regroup 1M samples, 100k nodes, folded names", |b| {
        b.iter(|| black_box(regroup(&tree, &table, &Slice::default(), Group::FoldedName)));
    });
    g.bench_function("heat map 1M samples, 20 ms rows", |b| {
        b.iter(|| black_box(heat_map(&table, &Slice::default(), DEFAULT_ROW_NS)));
    });
    g.bench_function("heat map 1M samples, 8 of 16 tasks", |b| {
        let tasks = Slice {
            range: None,
            tasks: half.tasks.clone(),
        };
        b.iter(|| black_box(heat_map(&table, &tasks, DEFAULT_ROW_NS)));
    });
    g.finish();
}

criterion_group!(benches, bench_slice);
criterion_main!(benches);
