//! Hostile names at every sink besides the screen (which `hostile_names` covers): the
//! clipboard (the OSC 52 payload, decoded), the SVG export (parsed by a real XML parser)
//! and folded text from the command line (escaped on a terminal, raw in a pipe or a file).

use std::collections::BTreeSet;
use std::process::Command;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use flametui::app::keymap::action_for;
use flametui::app::{Action, App, Effect, update};
use flametui::export;
use flametui::input::{LoadOptions, load_reader};
use flametui::profile::{CallTree, Profile, Stats, Unit};
use flametui::terminal::{RawOutput, perform};
use flametui::text::for_xml;
use flametui::view::color::ColorMode;
use proptest::prelude::*;

use crate::e2e::{BIN, Tmux, quote, tmux_available};

/// A name that, pasted raw into a shell with bracketed paste, ends the paste and runs
/// `touch pwned`.
const PASTE_BREAKER: &str = "innocent\x1b[201~\rtouch pwned\r";

/// What the viewer writes to the terminal.
#[derive(Default)]
struct Captured(Vec<u8>);

impl RawOutput for Captured {
    fn write_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// A viewer of folded text read from `source`, its effects kept in `app.effects`.
fn viewer(folded: &str, source: &str) -> App {
    let loaded = load_reader(folded.as_bytes(), source, &LoadOptions::default()).unwrap();
    let mut app = App::new(loaded.main().clone(), ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

fn press(app: &mut App, codes: &[KeyCode]) {
    for code in codes {
        press_key(app, KeyEvent::new(*code, KeyModifiers::NONE));
    }
}

fn press_key(app: &mut App, key: KeyEvent) {
    if let Some(a) = action_for(app.mode, &key) {
        update(app, a);
    }
}

/// RFC 4648 base64, decoded (the test's own decoder, not the one under test).
fn unbase64(s: &[u8]) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c:#x}"),
    };
    let mut out = Vec::new();
    for chunk in s.chunks(4) {
        let digits: Vec<u8> = chunk
            .iter()
            .filter(|&&c| c != b'=')
            .map(|&c| value(c))
            .collect();
        let n = (0..digits.len()).fold(0u32, |n, i| n | u32::from(digits[i]) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..digits.len()]);
    }
    out
}

/// The decoded payloads of the OSC 52 sequences (`ESC ] 52 ; c ; BASE64 BEL`) in `bytes`.
fn osc52_payloads(bytes: &[u8]) -> Vec<Vec<u8>> {
    let start = b"]52;c;";
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(at) = rest.windows(start.len()).position(|w| w == start) {
        rest = &rest[at + start.len()..];
        let end = rest
            .iter()
            .position(|&b| b == 0x07)
            .expect("BEL ends OSC 52");
        out.push(unbase64(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

#[test]
fn a_copied_name_cannot_end_a_bracketed_paste() {
    let folded = format!("main;{PASTE_BREAKER};leaf 5\nmain;other 1\n");
    let mut app = viewer(&folded, "hostile.folded");
    // main, then its widest child: the hostile frame; `y` copies its name, `Y` its stack.
    press(
        &mut app,
        &[
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Char('y'),
            KeyCode::Char('Y'),
        ],
    );
    let effects = std::mem::take(&mut app.effects);
    assert_eq!(effects.len(), 2, "{effects:?}");
    for tmux in [false, true] {
        let mut terminal = Captured::default();
        for e in effects.clone() {
            let status = perform(&mut terminal, e, tmux, &[]);
            assert!(status.starts_with("Sent "), "{status}");
        }
        let payloads = osc52_payloads(&terminal.0);
        let want: [&[u8]; 2] = [
            b"innocent\\x1b[201~\\x0dtouch pwned\\x0d",
            b"main;innocent\\x1b[201~\\x0dtouch pwned\\x0d",
        ];
        // Inside tmux each copy is sent twice: as is, and through tmux's passthrough.
        let per_copy = if tmux { 2 } else { 1 };
        assert_eq!(payloads.len(), 2 * per_copy);
        for (i, p) in payloads.iter().enumerate() {
            assert!(
                !p.iter().any(|b| matches!(b, 0x1b | b'\r' | b'\n' | 0x07)),
                "{p:?}"
            );
            assert_eq!(
                p.as_slice(),
                want[i / per_copy],
                "{}",
                String::from_utf8_lossy(p)
            );
        }
    }
}

/// A fresh directory of this test run.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-sinks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---- SVG -------------------------------------------------------------------------------

/// An inferno SVG read by a real XML parser: the title and each frame's name (its
/// `<title>` without the ` (N unit, P%)` inferno appends), in document order.
fn parse_svg(svg: &str, unit: &str) -> Result<(String, Vec<String>), String> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(svg, opts).map_err(|e| e.to_string())?;
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .ok_or(format!("no #{id}"))
    };
    let title = by_id("title")?.text().unwrap_or_default().to_owned();
    let frames = by_id("frames")?
        .children()
        .filter(|g| g.has_tag_name("g"))
        .map(|g| {
            let text = g
                .children()
                .find(|t| t.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap_or_default();
            let counted = text
                .rfind(&format!(" {unit}, "))
                .map_or(text, |at| &text[..at]);
            counted
                .rsplit_once(" (")
                .map_or(counted, |(name, _)| name)
                .to_owned()
        })
        .collect();
    Ok((title, frames))
}

fn svg_of(tree: CallTree, title: &str, unit: Unit) -> String {
    let profile = Profile {
        metrics: flametui::profile::metrics::Metrics::default(),
        samples: std::sync::Arc::default(),
        source: title.to_owned(),
        tree,
        stats: Stats {
            unit,
            ..Stats::default()
        },
    };
    let mut out = Vec::new();
    export::svg(&profile, title, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every C0 control, DEL, C1, the XML noncharacters, bidi controls and markup.
const XML_BREAKERS: [&str; 6] = [
    "nul\0bel\x07bs\x08vt\x0bff\x0c",
    "esc\x1b[2Jdel\x7fc1\u{85}\u{9b}",
    "tab\tlf\ncr\r",
    "non\u{fffe}char\u{ffff}",
    "bidi\u{202e}\u{2066}\u{61c}\u{2028}\u{2029}",
    "<script>alert('&\"')</script>]]>",
];

/// `main;NAME 2` for each breaker a folded line can hold (all but the one with a LF).
fn breakers_folded() -> String {
    XML_BREAKERS
        .iter()
        .filter(|n| !n.contains('\n'))
        .fold(String::new(), |mut out, n| {
            out.push_str("main;");
            out.push_str(n);
            out.push_str(" 2\n");
            out
        })
}

#[test]
fn the_svg_of_control_characters_is_well_formed() {
    let mut tree = CallTree::new();
    for (i, name) in XML_BREAKERS.iter().enumerate() {
        tree.insert(["main", name, &format!("leaf\x01{i}")], 1);
    }
    tree.finish();
    let c0: String = (0u8..0x20).map(char::from).collect();
    let title = format!("hostile{c0}.folded");
    let svg = svg_of(tree, &title, Unit::Events("cyc\x07les".to_owned()));
    let (shown, frames) =
        parse_svg(&svg, "cyc\\x07les (event period)").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shown, for_xml(&title));
    assert!(shown.contains("hostile\\x00\\x01"), "{shown}");
    let mut want: BTreeSet<String> = XML_BREAKERS
        .iter()
        .map(|n| for_xml(n).into_owned())
        .collect();
    want.extend((0..XML_BREAKERS.len()).map(|i| format!("leaf\\x01{i}")));
    want.extend(["all".to_owned(), "main".to_owned()]);
    assert_eq!(frames.len(), want.len());
    assert_eq!(frames.into_iter().collect::<BTreeSet<_>>(), want);
    assert!(svg.contains("cyc\\x07les"));
}

/// `e` in the viewer: the title is the file name, which goes through the same sink.
#[test]
fn the_viewer_exports_a_well_formed_svg_of_hostile_names() {
    let folded = breakers_folded();
    let mut app = viewer(&folded, "dir/hostile\x07\x0b.folded");
    press(&mut app, &[KeyCode::Char('e')]);
    press_key(
        &mut app,
        KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL),
    );
    press(
        &mut app,
        &"out.svg".chars().map(KeyCode::Char).collect::<Vec<_>>(),
    );
    press(&mut app, &[KeyCode::Enter]);
    let Some(Effect::Write { bytes, .. }) = app.effects.pop() else {
        panic!("no export: {:?}", app.effects);
    };
    let (title, frames) =
        parse_svg(&String::from_utf8(bytes).unwrap(), "samples").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(title, "hostile\\x07\\x0b.folded");
    assert_eq!(frames.len(), 2 + XML_BREAKERS.len() - 1);
}

/// `--export svg`: names and the title (the path given) alike.
#[test]
fn the_cli_exports_a_well_formed_svg_of_hostile_names() {
    let dir = scratch("svg");
    let file = dir.join("hostile\x1b]0;title\x07.folded");
    let folded = breakers_folded();
    std::fs::write(&file, folded).unwrap();
    let out = Command::new(BIN)
        .args(["--export", "svg"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (title, frames) = parse_svg(&String::from_utf8(out.stdout).unwrap(), "samples")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        title.ends_with("hostile\\x1b]0;title\\x07.folded"),
        "{title}"
    );
    assert_eq!(frames.len(), 2 + XML_BREAKERS.len() - 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_first_frame_starting_with_a_hash_is_not_an_inferno_comment() {
    let mut tree = CallTree::new();
    tree.insert(["#pragma", "leaf"], 3);
    tree.insert(["main"], 1);
    tree.finish();
    let (_, frames) = parse_svg(&svg_of(tree, "hash", Unit::Samples), "samples").unwrap();
    assert!(frames.iter().any(|f| f == "\\x23pragma"), "{frames:?}");
    assert!(frames.iter().any(|f| f == "leaf"), "{frames:?}");
}

/// A character of a frame name: mostly the kinds that break XML or a terminal.
fn name_char() -> impl Strategy<Value = char> {
    prop_oneof![
        (0u8..0x20).prop_map(char::from),
        prop::sample::select(vec![
            '<', '>', '&', '"', '\'', ']', '\x7f', '\u{85}', '\u{9b}', '\u{fffe}', '\u{ffff}',
            '\u{202e}', '\u{2067}', '\u{61c}', '\u{2028}', '\u{2029}', '\u{200f}', 'é', '漢',
        ]),
        any::<char>(),
        prop::char::range('a', 'c'),
    ]
    // `;` separates frames, and white space that reaches inferno is its folded grammar's:
    // it trims each line and reads a trailing ` 3` as a count.
    .prop_filter("a separator or white space", |c| {
        *c != ';' && !(c.is_whitespace() && for_xml(&c.to_string()).chars().eq([*c]))
    })
}

/// How many frames inferno draws for these stacks (each a line of its input): it sorts the
/// lines as text and merges a frame with the line before's only, so a name that sorts
/// before the `;` between frames splits its neighbour (`c`, `c&`, `c;x` draw `c` twice, as
/// FlameGraph does). Without such names, one frame per distinct path.
fn inferno_frames(paths: &BTreeSet<Vec<String>>) -> usize {
    let mut lines: Vec<String> = paths.iter().map(|p| p.join(";")).collect();
    lines.sort_unstable();
    let mut count = 0;
    let mut last: Vec<&str> = Vec::new();
    for line in &lines {
        let frames: Vec<&str> = line.split(';').collect();
        let common = last.iter().zip(&frames).take_while(|(a, b)| a == b).count();
        count += frames.len() - common;
        last = frames;
    }
    count
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Random names: the SVG parses, and it has the frames inferno draws for the escaped
    /// stacks (it merges what the escape makes equal; see `inferno_frames`) plus `all`.
    #[test]
    fn every_name_gives_a_well_formed_svg(
        stacks in prop::collection::vec(
            (prop::collection::vec(prop::collection::vec(name_char(), 1..6), 1..5), 1u64..50),
            1..8,
        ),
    ) {
        let mut tree = CallTree::new();
        let mut paths = BTreeSet::new();
        for (frames, w) in &stacks {
            let names: Vec<String> = frames.iter().map(|f| f.iter().collect()).collect();
            tree.insert(names.iter().map(String::as_str), *w);
            let mut escaped: Vec<String> = names.iter().map(|n| for_xml(n).into_owned()).collect();
            // A leading `#` would make the line an inferno comment: it is escaped.
            if let Some(rest) = escaped[0].strip_prefix('#') {
                escaped[0] = format!("\\x23{rest}");
            }
            paths.insert(escaped);
        }
        tree.finish();
        let svg = svg_of(tree, "random\x00.folded", Unit::Samples);
        let parsed = parse_svg(&svg, "samples");
        prop_assert!(parsed.is_ok(), "{:?}", parsed);
        let (_, frames) = parsed.unwrap();
        prop_assert_eq!(frames.len(), inferno_frames(&paths) + 1);
    }
}

// ---- folded text from the command line ---------------------------------------------------

/// A stack whose names would retitle the window and clear the screen.
const TERMINAL_BREAKER: &str = "main;\x1b]2;pwned\x07;\x1b[2Jcleared;leaf 3\n";

/// On a terminal (a tmux pane) the pane shows the escapes; written with `-o` from that
/// same terminal, the file keeps the bytes.
#[test]
fn folded_text_on_a_terminal_shows_escapes() {
    if !tmux_available() {
        return;
    }
    let dir = scratch("tty");
    let (file, out) = (dir.join("hostile.folded"), dir.join("out.folded"));
    std::fs::write(&file, TERMINAL_BREAKER).unwrap();
    let command = format!(
        "{BIN} --export folded {f}; {BIN} --export folded -o {o} {f}",
        f = quote(&file),
        o = quote(&out)
    );
    let t = Tmux::start("sinks-folded", &command);
    let screen = t.wait_for("the export", |s| s.contains("EXITED:"));
    assert!(
        screen.contains("main;\\x1b]2;pwned\\x07;\\x1b[2Jcleared;leaf 3"),
        "{screen}"
    );
    assert!(screen.contains("EXITED:0"), "{screen}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), TERMINAL_BREAKER);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Into a pipe the names are data: the bytes come out as they went in.
#[test]
fn folded_text_into_a_pipe_keeps_the_bytes() {
    let dir = scratch("pipe");
    let file = dir.join("hostile.folded");
    std::fs::write(&file, TERMINAL_BREAKER).unwrap();
    let out = Command::new(BIN)
        .args(["--export", "folded"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), TERMINAL_BREAKER);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The viewer's export never writes over the file it was opened from, whatever the name
/// typed (a symlink, `x/..`), even when the user said to replace; another name is written
/// whole, with no temporary file left beside it.
#[test]
fn the_viewer_never_writes_over_its_input() {
    let dir = scratch("viewer-input");
    let input = dir.join("in.folded");
    std::fs::write(&input, b"a;b 3\n").unwrap();
    let link = dir.join("link.folded");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&input, &link).unwrap();
    std::fs::create_dir_all(dir.join("x")).unwrap();
    let inputs = vec![input.clone()];
    let mut terminal = Captured::default();
    for (path, replace) in [
        (input.clone(), true),
        (link.clone(), true),
        (dir.join("x").join("..").join("in.folded"), false),
    ] {
        let effect = Effect::Write {
            path,
            bytes: b"export".to_vec(),
            what: "folded stacks".into(),
            replace,
        };
        let status = perform(&mut terminal, effect, false, &inputs);
        assert!(status.starts_with("Not written"), "{status}");
        assert_eq!(std::fs::read(&input).unwrap(), b"a;b 3\n");
    }
    let other = dir.join("out.folded");
    let _ = std::fs::remove_file(&other);
    let effect = Effect::Write {
        path: other.clone(),
        bytes: b"export".to_vec(),
        what: "folded stacks".into(),
        replace: false,
    };
    let status = perform(&mut terminal, effect, false, &inputs);
    assert!(status.starts_with("Wrote"), "{status}");
    assert_eq!(std::fs::read(&other).unwrap(), b"export");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            std::path::Path::new(n)
                .extension()
                .is_some_and(|e| e == "tmp")
        })
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
