//! The back stack through the keys: Esc goes back where the user came from, as it was.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tests::{app_of, ch, press};
use crate::app::state::Screen;
use crate::app::{Action, App, Mode, update};

const STACKS: &str = "main;commit;fsync 30\nmain;flush;fsync 10\nmain;select;exec 55\nmain 5\n";

fn app() -> App {
    app_of(STACKS, "t.folded")
}

fn esc() -> KeyEvent {
    KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
}

fn screen(app: &App) -> (Mode, Screen) {
    (app.mode, app.explorer().unwrap().tools.screen)
}

#[test]
fn esc_from_callers_returns_to_the_table_at_the_same_row() {
    let mut a = app();
    press(&mut a, &[ch('t'), ch('j'), ch('j'), ch('j')]);
    let (row, name) = {
        let t = &a.explorer().unwrap().tools.table;
        (t.selected, t.current())
    };
    assert_eq!(row, 3);
    press(&mut a, &[ch('s')]);
    assert_eq!(screen(&a), (Mode::Sandwich, Screen::Sandwich));
    assert_eq!(a.explorer().unwrap().tools.back.len(), 1);
    // Moving in the panes changes nothing of the table kept.
    press(&mut a, &[ch('k'), esc()]);
    assert_eq!(screen(&a), (Mode::Table, Screen::Table));
    let t = &a.explorer().unwrap().tools.table;
    assert_eq!((t.selected, t.current()), (row, name));
    assert!(a.explorer().unwrap().tools.sandwich.is_none());
    // The table was opened from the graph: Esc goes there, and the stack is empty.
    press(&mut a, &[esc()]);
    assert_eq!(screen(&a), (Mode::Normal, Screen::Graph));
    assert!(a.explorer().unwrap().tools.back.is_empty());
}

#[test]
fn the_table_scroll_is_restored_too() {
    let mut a = app();
    press(&mut a, &[ch('t'), ch('G')]);
    let before = {
        let t = &a.explorer().unwrap().tools.table;
        (t.selected, t.offset)
    };
    // `s` with `s` again closes the callers the same way as Esc.
    press(&mut a, &[ch('s'), ch('s')]);
    assert_eq!(screen(&a), (Mode::Table, Screen::Table));
    let t = &a.explorer().unwrap().tools.table;
    assert_eq!((t.selected, t.offset), before);
}

#[test]
fn showing_a_function_in_the_graph_forgets_the_stack() {
    let mut a = app();
    press(&mut a, &[ch('t'), ch('j'), ch('s')]);
    assert_eq!(a.explorer().unwrap().tools.back.len(), 1);
    // Esc back to the table, Enter shows the function in the graph: home again.
    press(
        &mut a,
        &[esc(), KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)],
    );
    assert_eq!(screen(&a), (Mode::Normal, Screen::Graph));
    assert!(a.explorer().unwrap().tools.back.is_empty());
}

#[test]
fn callers_from_the_graph_go_back_to_the_graph() {
    let mut a = app();
    update(&mut a, Action::Move(crate::app::Dir::Down));
    press(&mut a, &[ch('s')]);
    assert_eq!(screen(&a), (Mode::Sandwich, Screen::Sandwich));
    assert!(a.explorer().unwrap().tools.back.is_empty());
    press(&mut a, &[esc()]);
    assert_eq!(screen(&a), (Mode::Normal, Screen::Graph));
}
