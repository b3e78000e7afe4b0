//! One frame of the viewer at 250×70 on a generated tree of about 1.1 million nodes:
//! layout alone, render alone, and a full update (relayout after a resize) plus render.
//! Also the live search over every name and node.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use flametui::app::{Action, App, update};
use flametui::profile::{CallTree, Profile, Stats};
use flametui::view::color::ColorMode;
use flametui::view::layout;
use flametui::view::search::find;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use regex::Regex;

/// Fan-out 10, depth 6 (1,111,111 nodes), with skewed weights so that widths range from
/// whole rows to far below a column.
fn generated() -> CallTree {
    let names: Vec<Vec<String>> = (0..6)
        .map(|d| {
            (0..10)
                .map(|i| format!("module{d}::function_{i}"))
                .collect()
        })
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut t = CallTree::new();
    let mut frames: Vec<&str> = Vec::with_capacity(6);
    for leaf in 0..1_000_000usize {
        frames.clear();
        let mut n = leaf;
        for level in &names {
            frames.push(&level[n % 10]);
            n /= 10;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let hot = (leaf % 10) as u32;
        t.insert(frames.iter(), 1 + (x % 50) * u64::from(10 - hot).pow(3));
    }
    t.finish();
    t
}

fn bench(c: &mut Criterion) {
    let profile = Profile {
        source: "generated".into(),
        tree: generated(),
        stats: Stats::default(),
    };
    let mut app = App::new(profile, ColorMode::TrueColor);
    update(&mut app, Action::Resize(250, 70));
    let area = Rect::new(0, 0, 250, 70);
    let mut buf = Buffer::empty(area);
    {
        let ex = app.explorer().unwrap();
        let tree = &ex.profile.tree;
        eprintln!("nodes: {}", tree.len());
        c.bench_function("layout 250x70, 1.1M nodes", |b| {
            b.iter(|| black_box(layout(tree, &ex.index, &ex.zoom, 250, 70)));
        });
        let re = Regex::new("function_3$").unwrap();
        c.bench_function("search 1.1M nodes", |b| {
            b.iter(|| black_box(find(tree, &ex.index, &re)));
        });
    }
    c.bench_function("render 250x70", |b| {
        b.iter(|| {
            buf.reset();
            (&app).render(area, &mut buf);
        });
    });
    let mut width = 250;
    c.bench_function("update (relayout) + render 250x70", |b| {
        b.iter(|| {
            width = if width == 250 { 249 } else { 250 };
            update(&mut app, Action::Resize(width, 70));
            buf.reset();
            (&app).render(area, &mut buf);
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
