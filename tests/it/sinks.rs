//! Hostile names at every sink besides the screen (which `hostile_names` covers): the
//! clipboard (the OSC 52 payload, decoded), the SVG export (parsed by a real XML parser)
//! and folded text from the command line (escaped on a terminal, raw in a pipe).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use flametui::app::keymap::action_for;
use flametui::app::{Action, App, update};
use flametui::input::{LoadOptions, load_reader};
use flametui::terminal::{RawOutput, perform};
use flametui::view::color::ColorMode;

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

fn press(app: &mut App, codes: &[KeyCode]) {
    for code in codes {
        if let Some(a) = action_for(app.mode, &KeyEvent::new(*code, KeyModifiers::NONE)) {
            update(app, a);
        }
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
    let loaded = load_reader(folded.as_bytes(), "hostile.folded", &LoadOptions::default()).unwrap();
    let mut app = App::new(loaded.main().clone(), ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
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
            let status = perform(&mut terminal, e, tmux);
            assert!(status.starts_with("Copied"), "{status}");
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
