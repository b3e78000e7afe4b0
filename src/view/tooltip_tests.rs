use std::io::Cursor;

use super::*;
use crate::input::{LoadOptions, load_reader};
use crate::profile::functions::function_totals;

fn profile(text: &str) -> Profile {
    load_reader(Cursor::new(text), "t.folded", &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

fn find(t: &CallTree, path: &str) -> NodeId {
    path.split(';')
        .fold(NodeId::ROOT, |at, n| t.child_named(at, n).unwrap())
}

#[test]
fn frame_facts() {
    let p = profile("main;f;g 30\nmain;h;f 10\nmain 60\n");
    let ix = TreeIndex::new(&p.tree);
    let functions = function_totals(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &functions,
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let f = find(&p.tree, "main;f");
    let tip = describe(&cx, &Target::Frame(f));
    assert_eq!(tip.title, "f");
    assert_eq!(
        tip.facts,
        [
            "30 samples",
            "30.00% of total",
            "30.00% of parent",
            "self 0 samples (0.00%)",
            "all frames of this function: 40 samples (40.00%)",
        ]
    );
    let zoomed = Viewport::frame(&ix, find(&p.tree, "main;h"));
    let cx = Context {
        viewport: &zoomed,
        names: &crate::view::names::NameTable::default(),
        ..cx
    };
    let hf = find(&p.tree, "main;h;f");
    let tip = describe(&cx, &Target::Frame(hf));
    assert!(tip.facts.contains(&"100.00% of zoom".to_owned()));
    // An ancestor of the zoomed frame has its own share, not "100.00% of zoom".
    let main = find(&p.tree, "main");
    let tip = describe(&cx, &Target::Frame(main));
    assert!(
        tip.facts.contains(&"100.00% of total".to_owned()),
        "{:?}",
        tip.facts
    );
    assert!(
        !tip.facts.iter().any(|f| f.contains("of zoom")),
        "{:?}",
        tip.facts
    );
    // So has a frame outside the zoom.
    let tip = describe(&cx, &Target::Frame(f));
    assert!(
        !tip.facts.iter().any(|f| f.contains("of zoom")),
        "{:?}",
        tip.facts
    );
}

/// On/off-CPU input: shares are of the frame's half; nothing adds samples to units.
#[test]
fn on_off_cpu_shares_are_per_half() {
    let p = profile("[on-cpu];a;f 123\n[on-cpu];a;g 2877\n[off-cpu];a;f 3000\n[off-cpu];b 4000\n");
    let ix = TreeIndex::new(&p.tree);
    let functions = function_totals(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &functions,
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let f = find(&p.tree, "[off-cpu];a;f");
    let tip = describe(&cx, &Target::Frame(f));
    assert!(
        tip.facts.contains(&"42.86% of off-CPU".to_owned()),
        "{:?}",
        tip.facts
    );
    assert!(
        !tip.facts.iter().any(|f| f.contains("of total")),
        "{:?}",
        tip.facts
    );
    let all = tip
        .facts
        .iter()
        .find(|f| f.starts_with("all frames"))
        .unwrap();
    assert!(all.contains("(4.10%)") && all.contains("(42.86%)"), "{all}");
    let root = describe(&cx, &Target::Frame(NodeId::ROOT));
    assert!(
        !root.facts.iter().any(|f| f.contains("10,000")),
        "{:?}",
        root.facts
    );
    // Zoomed into the off-CPU half, a frame there has a share of the zoom.
    let off = find(&p.tree, "[off-cpu];a");
    let zoomed = Viewport::frame(&ix, off);
    let cx = Context {
        viewport: &zoomed,
        names: &crate::view::names::NameTable::default(),
        ..cx
    };
    let tip = describe(&cx, &Target::Frame(f));
    assert!(
        tip.facts.contains(&"100.00% of zoom".to_owned()),
        "{:?}",
        tip.facts
    );
}

#[test]
fn span_facts_count_frames() {
    let p = profile("p;a 1\np;b 1\np;c 1\nq 7\n");
    let ix = TreeIndex::new(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &[],
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let p_id = find(&p.tree, "p");
    let target = Target::Span {
        depth: 2,
        lo: ix.start(p_id),
        hi: ix.start(p_id) + 2,
    };
    let tip = describe(&cx, &target);
    assert_eq!(tip.title, "2 frames narrower than a column");
    assert_eq!(tip.facts[0], "2 samples");
}

#[test]
fn names_are_sanitized() {
    let p = profile("evil\u{1b}]0;x\u{7} 1\n");
    let ix = TreeIndex::new(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &[],
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let id = p.tree.first_child(NodeId::ROOT).unwrap();
    let tip = describe(&cx, &Target::Frame(id));
    assert!(!tip.title.contains('\u{1b}'));
}

#[test]
fn times() {
    assert_eq!(time_text(1_234_000_000, 0), "1.23 s");
    assert_eq!(time_text(45_600_000, 0), "45.6 ms");
    assert_eq!(time_text(999, 0), "999 ns");
    assert_eq!(time_text(250_000_000_000, 0), "250 s");
}

#[test]
fn wrapping_keeps_the_whole_title_when_there_is_room() {
    let tip = Tooltip {
        title: "a".repeat(25),
        facts: vec!["one".into(), "two".into(), "three".into()],
    };
    let lines = tip.lines(10, 10);
    let text: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        text,
        ["aaaaaaaaaa", "aaaaaaaaaa", "aaaaa", "one · two", "three"]
    );
    let short = tip.lines(10, 3);
    assert_eq!(short.len(), 3);
    assert_eq!(short[0].text, "aaaaaaaaa…");
    assert!(short[0].title && !short[1].title);
}

#[test]
fn ellipsis() {
    assert_eq!(ellipsize("abcdef", 4), "abc…");
    assert_eq!(ellipsize("abc", 4), "abc");
    assert_eq!(ellipsize("日本語", 4), "日…");
}

#[test]
fn wide_and_combining_text_is_cut_between_graphemes() {
    // CJK counts two columns; a combining accent stays with its letter; an emoji
    // family (ZWJ sequence) is never split.
    assert_eq!(display_width("函数名"), 6);
    assert_eq!(ellipsize("函数名字", 5), "函数…");
    let e_acute = "e\u{301}";
    assert_eq!(display_width(&format!("{e_acute}x")), 2);
    assert_eq!(
        ellipsize(&format!("a{e_acute}bcdef"), 3),
        format!("a{e_acute}…")
    );
    let family = "👨\u{200d}👩\u{200d}👧";
    let cut = ellipsize(&format!("{family}{family}xyz"), 4);
    assert!(cut == format!("{family}…") || cut == "…", "{cut:?}");
    assert!(!cut.ends_with('\u{200d}'));
    for line in chop(&format!("ab{e_acute}函数{family}"), 3) {
        assert!(
            display_width(&line) <= 3 || line.chars().count() <= 5,
            "{line:?}"
        );
        assert!(
            !line.starts_with('\u{301}') && !line.starts_with('\u{200d}'),
            "{line:?}"
        );
    }
}

#[test]
fn a_group_names_its_heaviest_frames_with_their_shares() {
    // Four frames under `p`, drawn as one group: the three heaviest are named, demangled
    // as the screen shows them, each with its share of the total.
    let p = profile("p;alpha 40\np;beta 30\np;_Z5gammav 20\np;delta 10\nq 9900\n");
    let ix = TreeIndex::new(&p.tree);
    let vp = Viewport::whole(&ix);
    let names = crate::view::names::NameTable::new(
        p.tree.names(),
        crate::view::names::NameStyle::default(),
    );
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &[],
        viewport: &vp,
        names: &names,
    };
    let p_id = find(&p.tree, "p");
    let target = Target::Span {
        depth: 2,
        lo: ix.start(p_id),
        hi: ix.end(p_id),
    };
    let tip = describe(&cx, &target);
    assert_eq!(tip.title, "4 frames narrower than a column");
    assert!(
        tip.facts
            .contains(&"heaviest in it: alpha 40.00%, beta 30.00%, gamma() 20.00%".to_owned()),
        "{:?}",
        tip.facts
    );
}

#[test]
fn a_group_of_long_names_still_fits_80_columns() {
    let long = |c: char| c.to_string().repeat(300);
    let text = format!(
        "p;{} 4\np;{} 3\np;{} 2\np;x 1\nq 99990\n",
        long('a'),
        long('b'),
        long('c')
    );
    let p = profile(&text);
    let ix = TreeIndex::new(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &[],
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let p_id = find(&p.tree, "p");
    let target = Target::Span {
        depth: 2,
        lo: ix.start(p_id),
        hi: ix.end(p_id),
    };
    let tip = describe(&cx, &target);
    let heaviest = tip
        .facts
        .iter()
        .find(|f| f.starts_with("heaviest in it: "))
        .unwrap();
    assert!(display_width(heaviest) <= 80, "{heaviest}");
    assert_eq!(heaviest.matches('…').count(), 3, "{heaviest}");
    for line in tip.lines(80, 8) {
        assert!(display_width(&line.text) <= 80, "{}", line.text);
    }
    assert!(
        tip.lines(80, 8).iter().any(|l| l.text == *heaviest),
        "the heaviest frames keep a line of their own"
    );
}

#[test]
fn a_lone_frame_in_a_group_needs_no_list() {
    let p = profile("p;a 1\nq 99999\n");
    let ix = TreeIndex::new(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &[],
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let p_id = find(&p.tree, "p");
    let target = Target::Span {
        depth: 2,
        lo: ix.start(p_id),
        hi: ix.end(p_id),
    };
    let tip = describe(&cx, &target);
    assert!(
        !tip.facts.iter().any(|f| f.starts_with("heaviest")),
        "{:?}",
        tip.facts
    );
}

/// perf's on+off-CPU metric: both halves are nanoseconds, so both are given as times.
#[test]
fn perf_halves_are_both_times() {
    let mut p = profile("[on-cpu];a;f 1500000\n[off-cpu];a;f 2000000000\n[off-cpu];b 3000\n");
    p.stats.unit = crate::profile::Unit::Nanoseconds;
    let ix = TreeIndex::new(&p.tree);
    let functions = function_totals(&p.tree);
    let vp = Viewport::whole(&ix);
    let cx = Context {
        profile: &p,
        index: &ix,
        functions: &functions,
        viewport: &vp,
        names: &crate::view::names::NameTable::default(),
    };
    let root = describe(&cx, &Target::Frame(NodeId::ROOT));
    let text = root.facts.join(" | ");
    assert!(
        text.contains("on-CPU: 1.50 ms") && text.contains("off-CPU: 2.00 s"),
        "{text}"
    );
    assert!(!text.contains("units"), "{text}");
}
