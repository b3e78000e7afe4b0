//! One frame of the viewer at 250×70 on a generated tree of about 1.1 million nodes:
//! layout alone, render alone, and a full update (relayout after a resize) plus render.
//! Also the live search over every name and node, and on a tree of 3 M nodes of distinct
//! stacks every key as the user sees it (update and a 160×45 frame) — for the changes of
//! the view the part on the key's thread — and the background job of `r`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use flametui::app::{Action, App, Dir, ToolAction, update};
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

/// The viewer on `tree` at 250×70.
fn viewer(tree: CallTree) -> App {
    let profile = Profile {
        metrics: flametui::profile::metrics::Metrics::default(),
        samples: std::sync::Arc::default(),
        source: "generated".into(),
        tree,
        stats: Stats::default(),
    };
    let mut app = App::new(profile, ColorMode::TrueColor);
    update(&mut app, Action::Resize(250, 70));
    app
}

fn bench(c: &mut Criterion) {
    let mut app = viewer(generated());
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

/// A deterministic xorshift generator: each call gives a number below `n`.
fn xorshift(mut x: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    }
}

/// 100,000 distinct function names shaped like C++ and Rust ones (30–60 characters),
/// each a leaf under `main;dispatch` with its own weight.
fn many_names() -> CallTree {
    const WORDS: [&str; 16] = [
        "log", "write", "flush", "disk", "buf", "page", "btr", "cur", "row", "ins", "trx", "lock",
        "JOIN", "exec", "tokio", "Harness",
    ];
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut t = CallTree::new();
    for i in 0..100_000 {
        let w = [0; 4].map(|_| WORDS[next(WORDS.len())]);
        let name = format!("{}::{}_{}<{}>::call_{i}", w[0], w[1], w[2], w[3]);
        t.insert(["main", "dispatch", name.as_str()], 1 + next(50) as u64);
    }
    t.finish();
    t
}

/// A finder keystroke as the user sees it: the update (ranking every name) and the frame.
fn bench_finder(c: &mut Criterion) {
    let mut app = viewer(many_names());
    update(&mut app, Action::Tool(ToolAction::Finder));
    let area = Rect::new(0, 0, 250, 70);
    let mut buf = Buffer::empty(area);
    let mut key = |app: &mut App, action: ToolAction| {
        update(app, Action::Tool(action));
        buf.reset();
        (&*app).render(area, &mut buf);
    };
    // The first key scores all 100k names; erasing it lists them all by weight again.
    c.bench_function(
        "finder key + render, 100k names: first key and erase it (2 keys)",
        |b| {
            b.iter(|| {
                key(&mut app, ToolAction::Type('l'));
                key(&mut app, ToolAction::Backspace);
            });
        },
    );
    // Typing narrows each key's candidates to the last key's matches; erasing starts over.
    c.bench_function(
        "finder key + render, 100k names: type 'logflush', erase it (16 keys)",
        |b| {
            b.iter(|| {
                for c in "logflush".chars() {
                    key(&mut app, ToolAction::Type(c));
                }
                for _ in 0..8 {
                    key(&mut app, ToolAction::Backspace);
                }
            });
        },
    );
}

/// 250,000 nearly distinct stacks of 8 to 20 frames over 20,000 names (about 3 M nodes,
/// the shape of scripts/gen-distinct-perf.py): where every frame a search looks at counts.
fn distinct_tree() -> CallTree {
    let names: Vec<String> = (0..20_000)
        .map(|i| format!("ns{}::Class{}::method{i}", i % 97, i % 389))
        .collect();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut t = CallTree::new();
    let mut frames: Vec<&str> = Vec::with_capacity(20);
    for _ in 0..250_000 {
        frames.clear();
        frames.push(&names[next(64)]);
        for _ in 0..7 + next(13) {
            frames.push(&names[next(names.len())]);
        }
        t.insert(frames.iter(), 1_001_001);
    }
    t.finish();
    t
}

/// A search keystroke as the user sees it (the update and the 160×45 frame), on the tree
/// of distinct stacks: a query that most frames match, one that about half match, one
/// that few do. Each iteration types the key and erases it. First, the search's pass over
/// the nodes alone for the same three kinds of query.
fn bench_search_distinct(c: &mut Criterion) {
    let mut app = viewer(distinct_tree());
    update(&mut app, Action::Resize(160, 45));
    let area = Rect::new(0, 0, 160, 45);
    let mut buf = Buffer::empty(area);
    eprintln!("nodes: {}", app.explorer().unwrap().profile.tree.len());
    let mut group = c.benchmark_group("search key + render, 3M nodes");
    group.sample_size(20);
    // The pass over the nodes alone, which every keystroke makes once.
    {
        let ex = app.explorer().unwrap();
        for query in ["method", "method1", "method123"] {
            let re = Regex::new(query).unwrap();
            group.bench_function(format!("find alone, '{query}'"), |b| {
                b.iter(|| black_box(find(&ex.profile.tree, &ex.index, &re)));
            });
        }
    }
    update(&mut app, Action::SearchStart);
    for (prefix, key) in [("metho", 'd'), ("method", '1'), ("method12", '3')] {
        while app.explorer().is_some_and(|ex| !ex.search.query.is_empty()) {
            update(&mut app, Action::SearchDelete);
        }
        for ch in prefix.chars() {
            update(&mut app, Action::SearchType(ch));
        }
        group.bench_function(format!("'{prefix}' + '{key}', then erase it"), |b| {
            b.iter(|| {
                for action in [Action::SearchType(key), Action::SearchDelete] {
                    update(&mut app, action);
                    buf.reset();
                    (&app).render(area, &mut buf);
                }
            });
        });
    }
    group.finish();
}

/// Applies `actions` to the app and draws a 160×45 frame after each, as the viewer does.
fn keys(app: &mut App, buf: &mut Buffer, actions: &[Action]) {
    let area = Rect::new(0, 0, 160, 45);
    for action in actions {
        update(app, action.clone());
        // What the shell would start or free (a view change's job) is left alone here.
        drop(app.jobs.take_orders());
        buf.reset();
        (&*app).render(area, buf);
    }
}

fn tool(t: ToolAction) -> Action {
    Action::Tool(t)
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Every key the graph answers, as the user sees it (update and a 160×45 frame), on the
/// tree of distinct stacks: each iteration presses a key and the one that undoes it, so
/// the state is the same for the next. For `r`, `o` and a transform, this is the part on
/// the key's thread — the view itself is computed by a background job, benched apart.
fn bench_keys_distinct(c: &mut Criterion) {
    let mut app = viewer(distinct_tree());
    let mut buf = Buffer::empty(Rect::new(0, 0, 160, 45));
    keys(&mut app, &mut buf, &[Action::Resize(160, 45)]);
    let mut group = c.benchmark_group("keys + render, 3M nodes");
    group.sample_size(20);
    moves(&mut group, &mut app, &mut buf);
    tools(&mut group, &mut app, &mut buf);
    group.finish();
}

const DOWN: Action = Action::Move(Dir::Down);

fn moves(group: &mut Group<'_>, app: &mut App, buf: &mut Buffer) {
    for depth in [1, 5, 10] {
        keys(app, buf, &[Action::Reset]);
        for _ in 0..depth - 1 {
            keys(app, buf, &[DOWN]);
        }
        group.bench_function(format!("j k at depth {depth} (2 keys)"), |b| {
            b.iter(|| keys(app, buf, &[DOWN, Action::Move(Dir::Up)]));
        });
        group.bench_function(format!("l h at depth {depth} (2 keys)"), |b| {
            b.iter(|| {
                keys(
                    app,
                    buf,
                    &[Action::Move(Dir::Right), Action::Move(Dir::Left)],
                );
            });
        });
    }
    keys(app, buf, &[Action::Reset, DOWN, DOWN]);
    group.bench_function("Enter (zoom) and Backspace at depth 2 (2 keys)", |b| {
        b.iter(|| keys(app, buf, &[Action::Zoom, Action::Back]));
    });
    keys(app, buf, &[Action::Reset, Action::SearchStart]);
    for ch in "method12".chars() {
        keys(app, buf, &[Action::SearchType(ch)]);
    }
    keys(app, buf, &[Action::SearchAccept]);
    group.bench_function("n N with 'method12' (2 keys)", |b| {
        b.iter(|| keys(app, buf, &[Action::NextMatch, Action::PrevMatch]));
    });
    keys(app, buf, &[Action::Escape]);
}

fn tools(group: &mut Group<'_>, app: &mut App, buf: &mut Buffer) {
    let pairs = [
        (
            "s (callers / callees) and close",
            ToolAction::Sandwich,
            tool(ToolAction::Sandwich),
        ),
        (
            "r, the key's part, and Esc",
            ToolAction::Invert,
            Action::Escape,
        ),
        (
            "o, the key's part, and Esc",
            ToolAction::Order,
            Action::Escape,
        ),
        (
            "x (exclude), the key's part, and Esc",
            ToolAction::Exclude,
            Action::Escape,
        ),
        (
            "t (function table) and close",
            ToolAction::Table,
            tool(ToolAction::Table),
        ),
    ];
    keys(app, buf, &[Action::Reset, DOWN, DOWN, DOWN, DOWN]);
    for (name, key, undo) in pairs {
        group.bench_function(format!("{name} at depth 5 (2 keys)"), |b| {
            b.iter(|| keys(app, buf, &[tool(key.clone()), undo.clone()]));
        });
    }
    keys(app, buf, &[Action::Reset, DOWN, Action::Zoom]);
    group.bench_function(
        "t, zoomed on one of the 64 root frames, and close (2 keys)",
        |b| {
            b.iter(|| {
                keys(
                    app,
                    buf,
                    &[tool(ToolAction::Table), tool(ToolAction::Table)],
                );
            });
        },
    );
    keys(app, buf, &[Action::Reset, tool(ToolAction::Finder)]);
    group.bench_function("finder: type 'meth' and erase it (8 keys)", |b| {
        b.iter(|| {
            for ch in "meth".chars() {
                keys(app, buf, &[tool(ToolAction::Type(ch))]);
            }
            for _ in 0..4 {
                keys(app, buf, &[tool(ToolAction::Backspace)]);
            }
        });
    });
    keys(app, buf, &[tool(ToolAction::Close)]);
}

/// The background part of `r`: the job that inverts the tree and indexes the result.
fn bench_invert_job(c: &mut Criterion) {
    let mut app = viewer(distinct_tree());
    let mut group = c.benchmark_group("background job, 3M nodes");
    group.sample_size(10);
    group.bench_function("r: invert, index, totals", |b| {
        b.iter_batched(
            || {
                update(&mut app, Action::Tool(ToolAction::Invert));
                let job = app.jobs.take_orders().start.unwrap();
                update(&mut app, Action::Escape);
                drop(app.jobs.take_orders());
                job
            },
            |job| job.run(&|| false),
            criterion::BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(
    benches,
    bench,
    bench_finder,
    bench_search_distinct,
    bench_keys_distinct,
    bench_invert_job
);
criterion_main!(benches);
