//! A bracketed paste is one edit of whichever prompt is open, cut at the cap. The work of
//! an edit is counted, never timed: each prompt counts how often its search, ranking or
//! filter ran (`runs`), and a paste must run it once, however long the paste is.

use std::fmt::Write as _;
use std::io::Cursor;

use super::*;
use crate::app::compare::Side;
use crate::app::tasks::TaskKey;
use crate::app::{Action, App, Mode, Phase, ToolAction, update};
use crate::input::{LoadOptions, load_reader};
use crate::profile::Profile;
use crate::view::color::ColorMode;

/// One mebibyte and more of text as a clipboard may hold it: line breaks, tabs, an escape
/// that would end a bracketed paste, multi-byte characters.
fn megabyte() -> String {
    let line = "é;x € main\r\n\tq\x1b[201~ ";
    let text = line.repeat((1 << 20) / line.len() + 1);
    assert!(text.len() > 1 << 20);
    text
}

fn profile(name: &str, text: &str) -> Profile {
    load_reader(Cursor::new(text.to_owned()), name, &LoadOptions::default())
        .unwrap()
        .main()
        .clone()
}

/// A perf script with two tasks, so that the task list and its filter exist.
fn perf() -> String {
    let mut out = String::new();
    for (i, (comm, ids)) in [("server", "10/10"), ("cron", "20/20")].iter().enumerate() {
        let _ = write!(
            out,
            "{comm} {ids} [000] 100.{:06}: 1000000 cpu-clock:pppH: \n\t 1 work (/bin/x)\n\t 2 main (/bin/x)\n\n",
            i * 1000
        );
    }
    out
}

fn app_of(p: Profile) -> App {
    let mut app = App::new(p, ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    app
}

fn ex(app: &App) -> &crate::app::Explorer {
    app.explorer().unwrap()
}

fn cmp(app: &App) -> &crate::app::compare::Compare {
    app.comparison().unwrap()
}

fn message(app: &App) -> String {
    ex(app).tools.message.clone().unwrap_or_default()
}

/// Cut at the cap, at a character boundary: less than one character short of it.
fn assert_cut(text: &str, what: &str) {
    assert!(text.len() <= PROMPT_CAP, "{what}: {} bytes", text.len());
    assert!(text.len() > PROMPT_CAP - 4, "{what}: {} bytes", text.len());
    assert!(
        !text.chars().any(char::is_control),
        "{what}: a control left"
    );
}

#[test]
fn pasted_text_is_cleaned_and_cut_at_a_character_boundary() {
    let cleaned: String = clean("a\r\nb\tc\x1b[201~d\x07\u{2028}e\n\r\n").collect();
    assert_eq!(cleaned, "a b c[201~d e");
    let mut text = String::new();
    assert_eq!(paste(&mut text, &"€".repeat(2000)), Inserted::Cut);
    assert_eq!(text.len(), 4095, "1365 three-byte characters");
    assert_eq!(type_char(&mut text, 'x'), Inserted::All);
    assert_eq!(type_char(&mut text, 'y'), Inserted::Cut);
    assert_eq!(text.len(), PROMPT_CAP);
    assert_eq!(
        type_char(&mut text, '\x1b'),
        Inserted::All,
        "a control is ignored"
    );
    assert_eq!(text.len(), PROMPT_CAP);
    // What a queue keeps of a paste pastes as the paste does.
    for (before, pasted) in [
        ("", megabyte()),
        ("abc", megabyte()),
        ("", "short\n".to_owned()),
        ("x", "é".repeat(2048)),
        ("", "\x01".repeat(9000) + "ok"),
    ] {
        let (mut a, mut b) = (before.to_owned(), before.to_owned());
        let clip = clipped(&pasted);
        assert!(clip.len() <= PROMPT_CAP + 4);
        assert_eq!(paste(&mut a, &pasted), paste(&mut b, &clip));
        assert_eq!(a, b);
    }
}

#[test]
fn a_megabyte_pasted_into_the_search_is_one_search_cut_at_the_cap() {
    let mut app = app_of(profile("t.folded", "main;parse 3\nmain;eval 5\n"));
    update(&mut app, Action::SearchStart);
    let runs = ex(&app).search.runs;
    update(&mut app, Action::Paste(megabyte()));
    let s = &ex(&app).search;
    assert_eq!(s.runs, runs + 1, "one edit, one search");
    assert_cut(&s.query, "search");
    assert!(
        s.query.starts_with("é;x € main  q[201~ é;x"),
        "{}",
        s.query.chars().take(40).collect::<String>()
    );
    assert_eq!(app.mode, Mode::Search);
    assert!(!app.quit, "no pasted key ran");
    assert_eq!(
        message(&app),
        "Search text is limited to 4 KiB: the paste was cut"
    );
    // A full prompt refuses a key without searching again; ⌫ makes room.
    update(&mut app, Action::SearchType('z'));
    assert_eq!(ex(&app).search.runs, runs + 1);
    assert!(message(&app).ends_with("nothing more can be typed"));
    update(&mut app, Action::SearchDelete);
    update(&mut app, Action::SearchType('z'));
    assert_eq!(ex(&app).search.runs, runs + 3);
    assert!(ex(&app).search.query.ends_with('z'));
    assert_eq!(ex(&app).tools.message, None);
}

#[test]
fn a_megabyte_pasted_into_the_finder_and_the_prompts_is_one_edit_cut_at_the_cap() {
    let mut app = app_of(profile("t.folded", "main;parse 3\nmain;eval 5\n"));
    update(&mut app, Action::Tool(ToolAction::Finder));
    let runs = ex(&app).tools.finder.runs;
    update(&mut app, Action::Paste(megabyte()));
    let f = &ex(&app).tools.finder;
    assert_eq!(f.runs, runs + 1, "one edit, one ranking");
    assert_cut(&f.query, "finder");
    assert_eq!(
        message(&app),
        "Finder text is limited to 4 KiB: the paste was cut"
    );
    update(&mut app, Action::Tool(ToolAction::Type('z')));
    assert_eq!(
        ex(&app).tools.finder.runs,
        runs + 1,
        "a refused key ranks nothing"
    );
    update(&mut app, Action::Tool(ToolAction::Close));
    for (open, what) in [
        (ToolAction::Export, "The export path"),
        (ToolAction::ExcludeRegex, "The exclude regex"),
    ] {
        update(&mut app, Action::Tool(open));
        assert_eq!(app.mode, Mode::Prompt);
        update(&mut app, Action::Paste(megabyte()));
        let p = ex(&app).tools.prompt.as_ref().unwrap();
        assert_cut(&p.text, what);
        assert!(
            p.text.starts_with("é;x"),
            "the paste replaced the suggestion"
        );
        assert_eq!(
            message(&app),
            format!("{what} is limited to 4 KiB: the paste was cut")
        );
        update(&mut app, Action::Tool(ToolAction::Close));
    }
}

#[test]
fn a_megabyte_pasted_into_the_task_filter_is_one_filtering_cut_at_the_cap() {
    let mut app = app_of(profile("t.perf", &perf()));
    update(&mut app, Action::Tool(ToolAction::Tasks));
    update(&mut app, Action::Tool(ToolAction::TaskKey(TaskKey::Filter)));
    assert_eq!(app.mode, Mode::TaskFilter);
    let runs = ex(&app).tools.tasks.runs;
    update(&mut app, Action::Paste(megabyte()));
    let t = &ex(&app).tools.tasks;
    assert_eq!(t.runs, runs + 1, "one edit, one filtering");
    assert_cut(&t.query, "task filter");
    assert_eq!(
        message(&app),
        "The task filter is limited to 4 KiB: the paste was cut"
    );
}

#[test]
fn a_megabyte_pasted_while_comparing_is_one_edit_cut_at_the_cap() {
    let before = profile("before.folded", "main;commit;flush 30\nmain;insert 70\n");
    let after = profile("after.folded", "main;insert 80\nmain;parse 20\n");
    let mut app = App::compare(before, after, ColorMode::Mono);
    update(&mut app, Action::Resize(80, 24));
    update(&mut app, Action::SearchStart);
    let runs = [Side::Before, Side::After].map(|s| cmp(&app).side(s).search.runs);
    update(&mut app, Action::Paste(megabyte()));
    for (side, runs) in [Side::Before, Side::After].into_iter().zip(runs) {
        let s = &cmp(&app).side(side).search;
        assert!(s.runs <= runs + 1, "{side:?}: {} searches", s.runs - runs);
        assert_cut(&s.query, "compare search");
    }
    assert_eq!(cmp(&app).driver().search.runs, runs[1] + 1);
    update(&mut app, Action::SearchCancel);
    update(&mut app, Action::Tool(ToolAction::Finder));
    let runs = cmp(&app).finder.as_ref().unwrap().state.runs;
    update(&mut app, Action::Paste(megabyte()));
    let f = &cmp(&app).finder.as_ref().unwrap().state;
    assert_eq!(f.runs, runs + 1);
    assert_cut(&f.query, "compare finder");
    assert_eq!(
        message(&app),
        "Finder text is limited to 4 KiB: the paste was cut"
    );
    update(&mut app, Action::Tool(ToolAction::Close));
    update(&mut app, Action::Tool(ToolAction::ExcludeRegex));
    update(&mut app, Action::Paste(megabyte()));
    assert_cut(
        &cmp(&app).driver().tools.prompt.as_ref().unwrap().text,
        "compare prompt",
    );
}

#[test]
fn a_paste_outside_a_prompt_is_not_keys_and_a_queued_one_is_clipped() {
    let mut app = app_of(profile("t.folded", "main;parse 3\nmain;eval 5\n"));
    update(&mut app, Action::Paste("q/jjj\n".to_owned()));
    assert!(!app.quit);
    assert_eq!(app.mode, Mode::Normal);
    assert!(ex(&app).search.query.is_empty());
    assert!(
        message(&app).starts_with("Nothing to paste into"),
        "{}",
        message(&app)
    );
    // While loading, a paste waits with the keys, no longer than a prompt can take.
    let mut loading = App::loading("big.txt", ColorMode::Mono);
    update(&mut loading, Action::SearchStart);
    update(&mut loading, Action::Paste(megabyte()));
    assert!(matches!(loading.phase, Phase::Loading(_)));
    match loading.queued.last() {
        Some(Action::Paste(text)) => assert!(text.len() <= PROMPT_CAP + 4, "{}", text.len()),
        other => panic!("{other:?}"),
    }
    update(
        &mut loading,
        Action::Loaded(Box::new(profile("t.folded", "main;parse 3\n"))),
    );
    assert_cut(&ex(&loading).search.query, "search after loading");
}
