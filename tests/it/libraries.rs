//! Libraries in the viewer (issue 15): `L` lists them with self and total, Enter collapses
//! one into a frame named after it, `C` colours frames by library; and the README screenshot.

use insta::assert_snapshot;
use ratatui::style::Color;

use flametui::app::App;
use flametui::view::color::ColorMode;

use crossterm::event::KeyCode;

use crate::support::{explore, key, profile, session, text, typing};

const SYSTEM_WIDE: &str = "perf-system-wide.txt.gz";

#[test]
fn the_library_table_of_a_system_wide_recording() {
    let screen = explore(SYSTEM_WIDE, 80, 24, typing("L"));
    assert_snapshot!("libraries_80x24", text(&screen));
}

#[test]
fn enter_collapses_the_selected_library() {
    // libc.so.6 is the third row by self weight.
    let mut keys = typing("Ljj");
    keys.push(key(KeyCode::Enter));
    let screen = text(&explore(SYSTEM_WIDE, 80, 24, keys));
    assert!(screen.contains("collapse lib libc.so.6"), "{screen}");
    assert!(!screen.contains("__libc_start_call_main"), "{screen}");
}

#[test]
fn c_colours_frames_by_library() {
    // In true colour, the frames of one library share a colour whatever their names:
    // `main` and `crc_main` of sysw, and the two libc frames under them.
    let run = |keys| {
        let app = App::new(profile(SYSTEM_WIDE), ColorMode::TrueColor);
        session(app, 200, 50, keys).0
    };
    let by_name = run(Vec::new());
    let by_lib = run(typing("C"));
    let colours = |buf: &ratatui::buffer::Buffer| -> std::collections::HashSet<Color> {
        let area = buf.area;
        (area.top()..area.bottom())
            .flat_map(|y| (area.left()..area.right()).map(move |x| (x, y)))
            .map(|(x, y)| buf[(x, y)].bg)
            .collect()
    };
    let (n, l) = (colours(&by_name).len(), colours(&by_lib).len());
    assert!(l < n, "{l} colours by library, {n} by name");
}

/// The README's screenshot is what the viewer draws at 80×24 for the keys it names, and
/// the README shows the same text.
#[test]
fn the_readme_screenshot_is_what_the_keys_draw() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shot = std::fs::read_to_string(root.join("assets/screenshot.txt")).unwrap();
    let mut keys = typing("/log_write_flush");
    keys.push(key(KeyCode::Enter));
    keys.extend(typing("n"));
    let drawn = text(&explore("stap-seed-b0e1.txt", 80, 24, keys));
    let trimmed: Vec<&str> = drawn.lines().map(str::trim_end).collect();
    assert_eq!(trimmed.join("\n").trim_end(), shot.trim_end());
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains(&shot), "README.md shows another screenshot");
    assert_eq!(shot.lines().count(), 24);
}

#[test]
fn kernel_frames_take_the_kernel_colour_from_their_library() {
    use flametui::input::{LoadOptions, load_reader};
    use flametui::view::color::{Hue, frame_style};
    // Without --kernel, no `_[k]`: the DSO says it is the kernel.
    let text = "cc 1 1.0: 1 cpu-clock: \n\t1 do_syscall_64+0x1 ([kernel.kallsyms])\n\t2 main+0x1 (/bin/cc)\n\n";
    let p = load_reader(text.as_bytes(), "k.txt", &LoadOptions::default())
        .unwrap()
        .main()
        .clone();
    let buf = session(App::new(p, ColorMode::TrueColor), 80, 24, Vec::new()).0;
    let area = buf.area;
    let cell = (area.top()..area.bottom())
        .find_map(|y| {
            let row: String = (area.left()..area.right())
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect();
            row.find("do_syscall_64")
                .map(|x| (u16::try_from(x).unwrap(), y))
        })
        .expect("the kernel frame on screen");
    let want = frame_style(ColorMode::TrueColor, "do_syscall_64", Hue::Kernel, false).bg;
    assert_eq!(Some(buf[cell].bg), want);
}
