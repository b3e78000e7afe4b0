//! Untrusted frame names on screen: terminal control sequences and bidi overrides never
//! reach the terminal raw (they show as visible escapes), and wide or combining text keeps
//! the columns aligned.

use crossterm::event::KeyCode;
use flametui::app::App;
use flametui::input::{LoadOptions, load_reader};
use flametui::view::color::ColorMode;

use crate::support::{key, session, text, typing};

fn app(folded: &str) -> App {
    let loaded = load_reader(folded.as_bytes(), "hostile.folded", &LoadOptions::default()).unwrap();
    App::new(loaded.main().clone(), ColorMode::Mono)
}

fn is_raw_control(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}' | '\u{2028}' | '\u{2029}'
        )
}

#[test]
fn control_sequences_in_names_are_shown_escaped() {
    let folded = "main;\u{1b}]52;c;ZXZpbA==\u{7};\u{1b}[2Jclear 5\nmain;bidi\u{202e}txt.exe;back\u{8}space\rcr 3\nmain;ar\u{61c}mark;line\u{2028}sep 1\n";
    // Select down the widest path so the status line shows the hostile names too.
    let inputs = || vec![key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Down)];
    for (w, h) in [(80, 24), (160, 45)] {
        let (buf, _) = session(app(folded), w, h, inputs());
        let screen = text(&buf);
        assert!(!screen.chars().any(is_raw_control), "{screen:?}");
        // (`;` separates frames in folded text, so the OSC sequence spans three frames.)
        assert!(
            screen.contains("\\x1b]52") && screen.contains("ZXZpbA==\\x07"),
            "{screen}"
        );
        assert!(screen.contains("\\x1b[2Jclear") && screen.contains("back\\x08space\\x0dcr"));
        for cell in buf.content() {
            assert!(
                !cell.symbol().chars().any(is_raw_control),
                "{:?}",
                cell.symbol()
            );
        }
    }
    // Searching for them works on the real names and still shows only escapes.
    let mut inputs = vec![key(KeyCode::Char('/'))];
    inputs.extend(typing("bidi"));
    inputs.push(key(KeyCode::Enter));
    let (buf, _) = session(app(folded), 80, 24, inputs);
    let screen = text(&buf);
    assert!(screen.contains("bidi\\u{202e}txt.exe"), "{screen}");
    assert!(!screen.chars().any(is_raw_control));
}

#[test]
fn wide_and_combining_names_keep_columns_aligned() {
    let folded = "main;函数名字很长的函数;e\u{301}e\u{301}e\u{301} 6\nmain;👨\u{200d}👩\u{200d}👧_family 4\n";
    let (buf, _) = session(app(folded), 80, 24, vec![]);
    // No row is wider than the terminal: a wide grapheme covers the cell after it.
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let (mut x, mut width) = (area.left(), 0usize);
        while x < area.right() {
            let w = unicode_width::UnicodeWidthStr::width(buf[(x, y)].symbol()).max(1);
            width += w;
            x += u16::try_from(w).unwrap();
        }
        assert!(
            width <= usize::from(area.width),
            "row {y} is {width} columns"
        );
    }
    let screen = text(&buf);
    // (`text` shows the cell covered by a wide character as a space.)
    assert!(screen.contains("函 数 名"), "{screen}");
    assert!(screen.contains("e\u{301}e\u{301}e\u{301}"), "{screen}");
    assert!(
        !screen.contains('\u{200d}') || screen.contains("👨\u{200d}👩\u{200d}👧"),
        "{screen}"
    );
}

#[test]
fn a_stack_100000_frames_deep_lays_out_navigates_and_drops() {
    let frames: Vec<String> = (0..100_000).map(|i| format!("f{}", i % 11)).collect();
    let folded = format!("{} 3\nmain;other 1\n", frames.join(";"));
    for (w, h) in [(80, 24), (160, 45)] {
        let inputs = || {
            let mut v = vec![key(KeyCode::Char('G'))];
            v.extend((0..50).map(|_| key(KeyCode::Down)));
            v.extend([
                key(KeyCode::Enter),
                key(KeyCode::Char('f')),
                key(KeyCode::Char('0')),
            ]);
            v
        };
        let (buf, app) = session(app(&folded), w, h, inputs());
        assert!(text(&buf).contains("f0"), "{}", text(&buf));
        drop(app);
    }
}

#[test]
fn the_header_says_when_lines_were_skipped() {
    let (buf, _) = session(app("a;b 3\nTHIS IS NOT A STACK\na;c 1\n"), 80, 24, vec![]);
    let screen = text(&buf);
    let header = screen.lines().next().unwrap();
    assert!(
        header.contains("1 lines skipped") || header.contains("1 line skipped"),
        "{header}"
    );
}

#[test]
fn a_renamed_threads_hostile_names_are_escaped_in_the_task_list_and_breadcrumb() {
    // Thread 7 runs `sh`, then execs into a name with a terminal sequence: one thread,
    // named `sh → \x1b[2Jevil`, in the task list (`w`) and the breadcrumb after Enter.
    // (Thread 8 runs too: picking thread 7 is not picking everything.)
    let sample = |comm: &str, id: &str, at: &str| {
        format!(
            "{comm}     {id}     {at}:     250000 cpu-clock: \n\t    1234 work+0x1 (/bin/x)\n\n"
        )
    };
    let text_in = [
        sample("sh", "7/7", "1.000000"),
        sample("sh", "7/7", "1.000250"),
        sample("\u{1b}[2Jevil", "7/7", "1.000500"),
        sample("other", "8/8", "1.000600"),
    ]
    .concat();
    let loaded = load_reader(text_in.as_bytes(), "renamed.txt", &LoadOptions::default()).unwrap();
    let app = || App::new(loaded.main().clone(), ColorMode::Mono);
    for (w, h) in [(80, 24), (160, 45)] {
        let (buf, _) = session(app(), w, h, typing("w"));
        let screen = text(&buf);
        assert!(!screen.chars().any(is_raw_control), "{screen:?}");
        assert!(screen.contains("sh → \\x1b[2Jevil"), "{screen}");
        let mut inputs = typing("w");
        inputs.push(key(KeyCode::Enter));
        let (buf, _) = session(app(), w, h, inputs);
        let screen = text(&buf);
        assert!(!screen.chars().any(is_raw_control), "{screen:?}");
        assert!(screen.contains("sh → \\x1b[2Jevil 7"), "{screen}");
    }
}
