//! Helpers: test profiles, scripted inputs, and running a session on a `TestBackend`.

use std::path::PathBuf;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use flametui::app::App;
use flametui::input::{LoadOptions, load_path};
use flametui::profile::Profile;
use flametui::terminal::{Input, run};
use flametui::view::color::ColorMode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

/// Path of a file under `testdata/`.
pub fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

/// Loads a profile from `testdata/`.
pub fn profile(name: &str) -> Profile {
    let path = testdata(name);
    load_path(path.to_str().unwrap(), &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

/// A key press.
pub fn key(code: KeyCode) -> Input {
    Input::Event(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// Typing some characters.
pub fn typing(text: &str) -> Vec<Input> {
    text.chars().map(|c| key(KeyCode::Char(c))).collect()
}

/// The mouse moved to a cell.
pub fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Input {
    Input::Event(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }))
}

/// Runs a session of `app` at `w`×`h` over the inputs; returns the last frame's buffer.
pub fn session(mut app: App, w: u16, h: u16, inputs: Vec<Input>) -> (Buffer, App) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    run(&mut terminal, inputs, &mut app).unwrap();
    (terminal.backend().buffer().clone(), app)
}

/// Explores a `testdata/` profile without colour, as `session` does.
pub fn explore(name: &str, w: u16, h: u16, inputs: Vec<Input>) -> Buffer {
    session(App::new(profile(name), ColorMode::Mono), w, h, inputs).0
}

/// The buffer as text, one line per row, trailing blanks trimmed.
pub fn text(buf: &Buffer) -> String {
    rows(buf, |cell| cell.symbol().to_owned())
}

/// Where the selection (`S`, reverse video) and matches (`M`, underlined) are drawn.
pub fn marks(buf: &Buffer) -> String {
    rows(buf, |cell| {
        let m = cell.modifier;
        match (
            m.contains(Modifier::REVERSED),
            m.contains(Modifier::UNDERLINED),
        ) {
            (true, true) => "B",
            (true, false) => "S",
            (false, true) => "M",
            (false, false) => " ",
        }
        .to_owned()
    })
}

fn rows(buf: &Buffer, f: impl Fn(&ratatui::buffer::Cell) -> String) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let line: String = (area.left()..area.right())
            .map(|x| f(&buf[(x, y)]))
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
