//! The analysis tools: function table, fuzzy finder, callers / callees, transforms with undo,
//! bottom-up and sibling order, impact, export and copy — snapshots at 80×24, sessions that
//! check the state they leave, the CLI's SVG export, and one tmux session of the real binary
//! that finds a function and exports an SVG.

use std::path::{Path, PathBuf};
use std::process::Command;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use flametui::app::{App, Mode, Screen};
use flametui::export::folded_lines;
use flametui::profile::{CallTree, NodeId};
use flametui::terminal::Input;
use flametui::view::clip::clip;
use flametui::view::color::ColorMode;
use flametui::view::{Target, TreeIndex, Viewport};
use insta::assert_snapshot;

use crate::e2e::{BIN, Tmux, quote, tmux_available};
use crate::support::{explore, key, profile, session, testdata, text, typing};

const PERF: &str = "perf-gzip-fp.txt.gz";
const STAP: &str = "stap-seed-b0e1.txt";

fn ctrl(c: char) -> Input {
    Input::Event(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn keys(parts: Vec<Vec<Input>>) -> Vec<Input> {
    parts.into_iter().flatten().collect()
}

fn run(file: &str, inputs: Vec<Input>) -> (String, App) {
    let (buf, app) = session(App::new(profile(file), ColorMode::Mono), 80, 24, inputs);
    (text(&buf), app)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A process id is reused across runs: a file left by an earlier run would make the
    // export ask whether to replace it.
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// The finder, `query`, Enter: the function is highlighted and its heaviest frame selected.
fn find(query: &str) -> Vec<Input> {
    keys(vec![
        vec![ctrl('p')],
        typing(query),
        vec![key(KeyCode::Enter)],
    ])
}

// ---- snapshots -------------------------------------------------------------------------

#[test]
fn function_table() {
    let buf = explore(PERF, 80, 24, typing("tjj"));
    assert_snapshot!("table_80x24", text(&buf));
}

#[test]
fn function_table_sorted_by_total_and_filtered() {
    let inputs = keys(vec![typing("to/chacha"), vec![key(KeyCode::Enter)]]);
    let buf = explore(PERF, 80, 24, inputs);
    assert_snapshot!("table_filtered_80x24", text(&buf));
}

#[test]
fn fuzzy_finder() {
    let inputs = keys(vec![vec![ctrl('p')], typing("chabl")]);
    let buf = explore(PERF, 80, 24, inputs);
    assert_snapshot!("finder_80x24", text(&buf));
}

#[test]
fn callers_and_callees() {
    let inputs = keys(vec![find("chacha_block"), typing("skk")]);
    let buf = explore(PERF, 80, 24, inputs);
    assert_snapshot!("sandwich_80x24", text(&buf));
}

#[test]
fn transforms_as_breadcrumbs() {
    // Exclude the selected function, then the bottom-up view ordered by weight.
    let inputs = keys(vec![find("chacha_block"), typing("xro")]);
    let buf = explore(PERF, 80, 24, inputs);
    assert_snapshot!("transforms_80x24", text(&buf));
}

#[test]
fn export_prompt() {
    let buf = explore(PERF, 80, 24, typing("jje"));
    assert_snapshot!("export_prompt_80x24", text(&buf));
}

#[test]
fn impact_per_cpu_half() {
    let buf = explore(STAP, 80, 24, find("log_write_flush"));
    assert_snapshot!("impact_stap_80x24", text(&buf));
}

#[test]
fn help_scrolls_on_a_small_screen() {
    let inputs = keys(vec![typing("?"), vec![key(KeyCode::PageDown)]]);
    let buf = explore(PERF, 80, 24, inputs);
    assert_snapshot!("help_scrolled_80x24", text(&buf));
}

// ---- behaviour -------------------------------------------------------------------------

fn heaviest_frame(tree: &CallTree, name: &str) -> NodeId {
    let n = tree.names().lookup(name).unwrap();
    tree.ids()
        .filter(|&id| id != NodeId::ROOT && tree.node(id).name == n)
        .max_by_key(|&id| (tree.node(id).total, std::cmp::Reverse(id)))
        .unwrap()
}

#[test]
fn table_enter_highlights_every_frame_and_selects_the_heaviest() {
    // `[unknown]` has frames under several parents.
    let inputs = keys(vec![
        typing("to"),
        typing("/^\\[unknown\\]$"),
        vec![key(KeyCode::Enter), key(KeyCode::Enter)],
    ]);
    let (screen, app) = run(PERF, inputs);
    assert_eq!(app.mode, Mode::Normal);
    let ex = app.explorer().unwrap();
    assert_eq!(ex.tools.screen, Screen::Graph);
    let m = ex.search.matches.as_ref().unwrap();
    let tree = &ex.profile.tree;
    let unknown = tree.names().lookup("[unknown]").unwrap();
    let frames = tree
        .ids()
        .filter(|&id| tree.node(id).name == unknown)
        .count();
    assert!(frames > 1);
    assert_eq!(
        m.len(),
        frames,
        "every frame of the function is highlighted"
    );
    let want = heaviest_frame(tree, "[unknown]");
    assert_eq!(ex.selected, Target::Frame(want));
    assert!(screen.contains(&format!("{frames} frames")), "{screen}");
}

#[test]
fn finder_enter_selects_the_heaviest_frame() {
    let (_, app) = run(PERF, find("chacha_perm"));
    let ex = app.explorer().unwrap();
    let want = heaviest_frame(&ex.profile.tree, "chacha_permute");
    assert_eq!(ex.selected, Target::Frame(want));
    assert_eq!(ex.search.query, "^chacha_permute$");
    assert_eq!(app.mode, Mode::Normal);
    // Esc closes the finder without picking.
    let (_, app) = run(
        PERF,
        keys(vec![
            vec![ctrl('p')],
            typing("read"),
            vec![key(KeyCode::Esc)],
        ]),
    );
    assert_eq!(app.mode, Mode::Normal);
    assert!(app.explorer().unwrap().search.query.is_empty());
}

#[test]
fn transforms_undo_to_the_original() {
    let total = profile(PERF).tree.total();
    let (screen, app) = run(PERF, keys(vec![find("chacha_block"), typing("x")]));
    let ex = app.explorer().unwrap();
    assert!(ex.profile.tree.total() < total);
    assert_eq!(ex.original().tree.total(), total);
    assert_eq!(app.view.transforms.len(), 1);
    assert!(screen.contains("exclude chacha_block_generic"), "{screen}");

    let (screen, app) = run(PERF, keys(vec![find("chacha_block"), typing("xFuu")]));
    assert!(screen.contains("Nothing to undo"), "{screen}");
    assert!(app.view.transforms.is_empty());
    assert_eq!(app.explorer().unwrap().profile.tree.total(), total);

    // Focus keeps the selected function selected, now at the root of the graph.
    let (_, app) = run(PERF, keys(vec![find("chacha_block"), typing("F")]));
    let ex = app.explorer().unwrap();
    let tree = &ex.profile.tree;
    let roots: Vec<&str> = tree.children(NodeId::ROOT).map(|c| tree.name(c)).collect();
    assert_eq!(roots, ["chacha_block_generic"]);
    assert_eq!(
        ex.selected,
        Target::Frame(tree.first_child(NodeId::ROOT).unwrap())
    );
}

#[test]
fn hide_collapse_and_typed_exclude() {
    let (_, app) = run(PERF, keys(vec![find("vfs_read"), typing("H")]));
    let tree = &app.explorer().unwrap().profile.tree;
    assert!(
        tree.names()
            .lookup("vfs_read")
            .is_none_or(|n| tree.ids().all(|id| tree.node(id).name != n))
    );
    let inputs = keys(vec![
        typing("X^gzip$"),
        vec![key(KeyCode::Enter)],
        typing("R"),
    ]);
    let (screen, app) = run(PERF, inputs);
    let ex = app.explorer().unwrap();
    assert!(ex.profile.tree.child_named(NodeId::ROOT, "gzip").is_none());
    assert!(
        screen.contains("exclude gzip › collapse recursion"),
        "{screen}"
    );
    // A bad regex keeps the prompt open and says why.
    let (screen, app) = run(PERF, keys(vec![typing("Xa("), vec![key(KeyCode::Enter)]]));
    assert_eq!(app.mode, Mode::Prompt);
    assert!(screen.contains("Invalid regex"), "{screen}");
}

#[test]
fn bottom_up_and_weight_order() {
    let (_, app) = run(PERF, typing("o"));
    let tree = &app.explorer().unwrap().profile.tree;
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    let weights: Vec<u64> = kids.iter().map(|&c| tree.node(c).total).collect();
    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
    assert_eq!(tree.name(kids[0]), "gzip");
    let (_, app) = run(PERF, typing("r"));
    let tree = &app.explorer().unwrap().profile.tree;
    assert!(tree.child_named(NodeId::ROOT, "chacha_permute").is_some());
    let (_, app) = run(PERF, typing("rr"));
    assert!(app.view.is_identity());
}

#[test]
fn copy_reports_what_was_copied() {
    let (screen, app) = run(PERF, keys(vec![find("chacha_perm"), typing("y")]));
    assert!(
        screen.contains("Sent \"chacha_permute\" to the terminal as OSC 52 (clipboard if allowed)"),
        "{screen}"
    );
    assert!(app.effects.is_empty(), "the shell performed the effect");
    let (screen, _) = run(PERF, keys(vec![find("chacha_perm"), typing("Y")]));
    assert!(
        screen.contains("Sent the stack of 9 frames to the"),
        "{screen}"
    );
    let (screen, _) = run(PERF, typing("y"));
    assert!(screen.contains("Select a frame to copy"), "{screen}");
}

#[test]
fn export_writes_the_zoomed_view() {
    let folded = scratch("zoom.folded");
    let svg = scratch("zoom.svg");
    let write = |path: &Path| {
        keys(vec![
            typing("e"),
            vec![ctrl('u')],
            typing(path.to_str().unwrap()),
            vec![key(KeyCode::Enter)],
        ])
    };
    let inputs = keys(vec![
        find("chacha_block"),
        vec![key(KeyCode::Enter)],
        write(&folded),
        write(&svg),
    ]);
    let (screen, app) = run(PERF, inputs);
    assert!(screen.contains("SVG flame graph of"), "{screen}");
    let ex = app.explorer().unwrap();
    let zoomed = clip(&ex.profile.tree, &ex.index, &ex.zoom);
    let text = std::fs::read_to_string(&folded).unwrap();
    assert_eq!(text.lines().collect::<Vec<_>>(), folded_lines(&zoomed));
    assert!(text.lines().all(|l| l.starts_with("head;read;")), "{text}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(xml_frames(&svg), Ok(zoomed.len()));
    assert!(svg.contains("perf-gzip-fp.txt.gz · zoom: chacha_block_generic"));
    // An unknown extension is refused before anything is written.
    let inputs = keys(vec![
        typing("e"),
        vec![ctrl('u')],
        typing("x.png"),
        vec![key(KeyCode::Enter)],
    ]);
    let (screen, app) = run(PERF, inputs);
    assert!(screen.contains("end the name with .svg"), "{screen}");
    assert_eq!(app.mode, Mode::Prompt);
}

#[test]
fn mouse_picks_rows_and_pane_cells() {
    use crate::support::mouse;
    use crossterm::event::MouseEventKind;
    let down = MouseEventKind::Down(crossterm::event::MouseButton::Left);
    // Row 4 of the screen (under the header and the timeline strip) is the table's second function.
    let (_, app) = run(PERF, vec![key(KeyCode::Char('t')), mouse(down, 5, 4)]);
    assert_eq!(app.explorer().unwrap().tools.table.selected, 1);
    let (_, app) = run(
        PERF,
        keys(vec![
            find("chacha_block"),
            typing("s"),
            vec![mouse(down, 5, 12)],
        ]),
    );
    let s = app.explorer().unwrap().tools.sandwich.as_deref().unwrap();
    assert_eq!(s.focus, 0);
    assert_eq!(s.panes[0].selected_name(), Some("vfs_read"));
}

// ---- SVG checks ------------------------------------------------------------------------

/// Checks that `text` is well-formed XML (one root, tags nested and closed, attributes
/// quoted, entities known) and returns how many `<g>` frame groups it has.
fn xml_frames(text: &str) -> Result<usize, String> {
    let mut stack: Vec<&str> = Vec::new();
    let mut frames = 0;
    let mut roots = 0;
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt])?;
        rest = &rest[lt..];
        let skip = |open: &str, close: &str, rest: &mut &str| -> Result<bool, String> {
            if let Some(r) = rest.strip_prefix(open) {
                let end = r.find(close).ok_or(format!("unclosed {open}"))?;
                *rest = &r[end + close.len()..];
                return Ok(true);
            }
            Ok(false)
        };
        if skip("<?", "?>", &mut rest)?
            || skip("<!--", "-->", &mut rest)?
            || skip("<![CDATA[", "]]>", &mut rest)?
            || skip("<!DOCTYPE", ">", &mut rest)?
        {
            continue;
        }
        let gt = tag_end(rest).ok_or("unclosed tag")?;
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .ok_or(format!("</{name}> without an opening tag"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let empty = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body.split_whitespace().next().ok_or("empty tag")?;
        check_attributes(&body[name.len()..])?;
        if stack.is_empty() {
            roots += 1;
        }
        if name == "g" {
            frames += 1;
        }
        if !empty {
            stack.push(name);
        }
    }
    check_text(rest)?;
    match (stack.last(), roots) {
        (Some(open), _) => Err(format!("<{open}> never closed")),
        (None, 1) => Ok(frames),
        (None, n) => Err(format!("{n} root elements")),
    }
}

/// The `>` ending a tag, outside attribute quotes.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

fn check_attributes(mut s: &str) -> Result<(), String> {
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Ok(());
        }
        let eq = s
            .find('=')
            .ok_or(format!("attribute without a value: {s}"))?;
        let name = s[..eq].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("bad attribute name {name:?}"));
        }
        let v = s[eq + 1..].trim_start();
        let q = v.chars().next().filter(|c| *c == '"' || *c == '\'');
        let q = q.ok_or(format!("unquoted attribute {name}"))?;
        let end = v[1..].find(q).ok_or(format!("unclosed attribute {name}"))?;
        let value = &v[1..=end];
        if value.contains('<') {
            return Err(format!("'<' in attribute {name}"));
        }
        check_text(value)?;
        s = &v[end + 2..];
    }
}

fn check_text(s: &str) -> Result<(), String> {
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        let r = &rest[amp + 1..];
        let semi = r.find(';').ok_or("'&' without ';'")?;
        let entity = &r[..semi];
        let known = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
            || entity
                .strip_prefix("#x")
                .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
            || entity
                .strip_prefix('#')
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        if !known {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &r[semi + 1..];
    }
    Ok(())
}

#[test]
fn the_xml_check_catches_broken_documents() {
    assert_eq!(xml_frames("<svg><g a=\"1\"/><g>x &amp; y</g></svg>"), Ok(2));
    assert!(xml_frames("<svg><g></svg>").is_err());
    assert!(xml_frames("<svg><g a=1/></svg>").is_err());
    assert!(xml_frames("<svg>a & b</svg>").is_err());
    assert!(xml_frames("<a/><b/>").is_err());
}

#[test]
fn cli_exports_a_transformed_svg() {
    let out = scratch("cli.svg");
    let file = testdata(PERF);
    let status = Command::new(BIN)
        .args([
            "--exclude",
            "^chacha",
            "--hide",
            "^entry_SYSCALL",
            "--export",
            "svg",
            "-o",
        ])
        .arg(&out)
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success());
    let svg = std::fs::read_to_string(&out).unwrap();
    let mut tree = profile(PERF).tree;
    for t in [
        flametui::profile::transform::Transform::Exclude(regex::Regex::new("^chacha").unwrap()),
        flametui::profile::transform::Transform::Hide(regex::Regex::new("^entry_SYSCALL").unwrap()),
    ] {
        tree = flametui::profile::transform::apply(&tree, &t);
    }
    // Every frame is at least one sample wide, so inferno draws them all.
    assert_eq!(xml_frames(&svg), Ok(tree.len()));
    assert!(!svg.contains("chacha_permute") && !svg.contains("entry_SYSCALL"));
}

#[test]
fn cli_order_weight_prints_heaviest_first() {
    let file = testdata("folded-small.txt");
    let tree = |order: &str| {
        let out = Command::new(BIN)
            .args(["--print", "--min-percent", "0", "--order", order])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let at = |line: &str| text.lines().position(|l| l.ends_with(line)).unwrap();
        // gzip's children: [unknown] (732 M) and [gzip] (401 M).
        at(" 732,732,732    [unknown]") < at(" 401,401,401    [gzip]")
    };
    assert!(tree("weight"), "heaviest first");
    assert!(!tree("alpha"), "alphabetical");
}

// ---- the real binary in tmux -------------------------------------------------------------

#[test]
fn tmux_find_a_function_and_export_svg() {
    if !tmux_available() {
        return;
    }
    let out = scratch("tmux.svg");
    let _ = std::fs::remove_file(&out);
    let file = testdata(PERF);
    let t = Tmux::start("analysis", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the header", |s| {
        s.contains("perf-gzip-fp.txt.gz · perf script")
    });
    t.send(&["C-p"]);
    t.wait_for("the finder", |s| s.contains("Find a function"));
    t.send(&["chacha_block"]);
    t.wait_for("the ranked match", |s| {
        s.contains("6.01%  chacha_block_generic")
    });
    t.send(&["Enter"]);
    t.wait_for("the picked function", |s| {
        s.contains("Matched: 6.01%") && s.contains("if removed: at most ×1.06")
    });
    t.send(&["Enter"]);
    t.wait_for("the zoom", |s| s.contains("› chacha_block_generic"));
    t.send(&["e"]);
    t.wait_for("the export prompt", |s| s.contains("Export to"));
    t.send(&["C-u"]);
    t.send(&[out.to_str().unwrap()]);
    t.send(&["Enter"]);
    t.wait_for("the report", |s| s.contains("SVG flame graph of"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
    let svg = std::fs::read_to_string(&out).unwrap();
    // all, head, read, entry_SYSCALL_64_after_hwframe, do_syscall_64, ksys_read, vfs_read,
    // get_random_bytes_user, chacha_block_generic, chacha_permute.
    assert_eq!(xml_frames(&svg), Ok(10));
    let p = profile(PERF);
    let ix = TreeIndex::new(&p.tree);
    let id = heaviest_frame(&p.tree, "chacha_block_generic");
    assert_eq!(clip(&p.tree, &ix, &Viewport::frame(&ix, id)).len(), 10);
}

#[test]
fn narrow_tables_keep_the_names() {
    // At 40 columns the weight columns give way to the names.
    let screen = text(&explore(PERF, 40, 10, typing("t")));
    assert!(screen.contains("Self%▼ Total%   Function"), "{screen}");
    assert!(screen.contains("  87.13%  87.29%  [gzip]"), "{screen}");
}
