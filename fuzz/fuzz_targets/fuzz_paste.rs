//! The viewer's `update` on arbitrary bytes read as a session of keys and bracketed pastes:
//! each byte picks a verb — open a prompt (search, finder, export path, exclude regex, task
//! filter), type a character, paste, erase, close, accept, move — and pastes take the bytes
//! after them, lossily decoded and sometimes repeated up to a mebibyte. The first byte picks
//! one profile, two compared, or one still loading (the keys wait, then the profile comes).
//! A panic is a crash, and after every action no prompt may hold more than `PROMPT_CAP`.
#![no_main]

use std::sync::OnceLock;

use flametui::app::tasks::TaskKey;
use flametui::app::text_input::PROMPT_CAP;
use flametui::app::{Action, App, Dir, Mode, Phase, ToolAction, update};
use flametui::input::{LoadOptions, load_reader};
use flametui::profile::Profile;
use flametui::view::color::ColorMode;
use libfuzzer_sys::fuzz_target;

/// A perf script of two processes, so that the task list and its filter open.
const PERF: &str = "server 10/10 [000] 100.000000: 1000000 cpu-clock:pppH: \n\t 1 accept (/bin/x)\n\t 2 main (/bin/x)\n\n\
cron 20/20 [000] 100.001000: 1000000 cpu-clock:pppH: \n\t 1 tick (/bin/x)\n\t 2 main (/bin/x)\n\n\
cron 20/21 [000] 100.002000: 1000000 cpu-clock:pppH: \n\t 1 éé::tick<€> (/bin/x)\n\t 2 main (/bin/x)\n\n";

/// Pastes of a mebibyte a session may make (each is linear, but a thousand would be slow).
const BIG_PASTES: usize = 3;

fn profiles() -> &'static (Profile, Profile) {
    static P: OnceLock<(Profile, Profile)> = OnceLock::new();
    P.get_or_init(|| {
        let load = |text: &str| {
            load_reader(text.as_bytes(), "fuzz", &LoadOptions::default())
                .map(|l| l.main().clone())
                .unwrap_or_else(|e| panic!("the fuzz profile does not load: {e}"))
        };
        (
            load(PERF),
            load("main;insert 80\nmain;parse 20\nmain;x;y 3\n"),
        )
    })
}

/// The next byte, if any.
fn byte(data: &mut &[u8]) -> u8 {
    let Some((&b, rest)) = data.split_first() else {
        return 0;
    };
    *data = rest;
    b
}

/// A character to type: ASCII mostly, some multi-byte ones, some controls.
fn next_char(data: &mut &[u8]) -> char {
    match byte(data) {
        b @ 0x20..=0x7e => char::from(b),
        b @ 0..=0x1f => char::from(b),
        0x80..=0x9f => 'é',
        0xa0..=0xbf => '€',
        0xc0..=0xdf => '\u{202e}',
        _ => '𝄞',
    }
}

/// A paste: a length byte, a repeat byte, then that many bytes of text (lossily decoded).
fn next_paste(data: &mut &[u8], big: &mut usize) -> String {
    let len = usize::from(byte(data));
    let repeat = byte(data);
    let take = len.min(data.len());
    let piece = String::from_utf8_lossy(&data[..take]).into_owned();
    *data = &data[take..];
    if repeat >= 0xf0 && *big < BIG_PASTES && !piece.is_empty() {
        *big += 1;
        piece.repeat((1 << 20) / piece.len() + 1)
    } else {
        piece.repeat(usize::from(repeat % 4) + 1)
    }
}

/// The action a byte picks (characters typed as the keymap would type them in the mode).
fn action(app: &App, op: u8, data: &mut &[u8], big: &mut usize) -> Action {
    let tool = Action::Tool;
    match op % 26 {
        0 => Action::SearchStart,
        1 => tool(ToolAction::Finder),
        2 => tool(ToolAction::Export),
        3 => tool(ToolAction::ExcludeRegex),
        4 => tool(ToolAction::Tasks),
        5 => tool(ToolAction::TaskKey(TaskKey::Filter)),
        6..=9 => {
            let c = next_char(data);
            if app.mode == Mode::Search {
                Action::SearchType(c)
            } else {
                tool(ToolAction::Type(c))
            }
        }
        10..=12 => Action::Paste(next_paste(data, big)),
        13 => Action::SearchDelete,
        14 => tool(ToolAction::Backspace),
        15 => tool(ToolAction::ClearLine),
        16 => Action::SearchAccept,
        17 => Action::SearchCancel,
        18 => Action::SearchRecall(op & 0x80 != 0),
        19 => Action::Escape,
        20 => tool(ToolAction::Close),
        21 => tool(ToolAction::Accept),
        22 => Action::Move(if op & 0x80 != 0 {
            Dir::Down
        } else {
            Dir::Right
        }),
        23 => Action::ToggleHelp,
        24 => Action::Resize(u16::from(byte(data)), u16::from(byte(data) % 64)),
        _ => tool(ToolAction::Undo),
    }
}

/// No prompt holds more than the cap.
fn check(app: &App) {
    let mut explorers = Vec::new();
    match &app.phase {
        Phase::Ready(ex) => explorers.push(&**ex),
        Phase::Compare(cmp) => {
            explorers.extend([&cmp.before, &cmp.after]);
            if let Some(f) = &cmp.finder {
                assert!(f.state.query.len() <= PROMPT_CAP, "compare finder");
            }
        }
        Phase::Loading(_) => {}
    }
    for ex in explorers {
        let t = &ex.tools;
        assert!(ex.search.query.len() <= PROMPT_CAP, "search");
        assert!(t.finder.query.len() <= PROMPT_CAP, "finder");
        assert!(t.tasks.query.len() <= PROMPT_CAP, "task filter");
        if let Some(p) = &t.prompt {
            assert!(p.text.len() <= PROMPT_CAP, "prompt");
        }
    }
    for queued in &app.queued {
        if let Action::Paste(text) = queued {
            assert!(text.len() <= PROMPT_CAP + 4, "a queued paste");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut data = data;
    let (one, other) = profiles();
    let start = byte(&mut data) % 3;
    let mut app = match start {
        0 => App::new(one.clone(), ColorMode::Mono),
        1 => App::compare(other.clone(), one.clone(), ColorMode::Mono),
        _ => App::loading("fuzz", ColorMode::Mono),
    };
    update(&mut app, Action::Resize(80, 24));
    let mut big = 0;
    let mut ops = 0;
    while !data.is_empty() && !app.quit {
        let op = byte(&mut data);
        let next = action(&app, op, &mut data, &mut big);
        update(&mut app, next);
        check(&app);
        ops += 1;
        if start == 2 && ops == 8 {
            update(&mut app, Action::Loaded(Box::new(one.clone())));
            check(&app);
        }
    }
});
