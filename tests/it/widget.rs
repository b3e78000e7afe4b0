//! The flame graph as a widget of another program (`flametui::widget`): it draws only in
//! the rectangle it is given, answers events with outcomes, and keeps its place when the
//! host feeds it new data.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use flametui::profile::Profile;
use flametui::widget::{Action, Dir, FlameGraph, FlameState, Outcome};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Paragraph};

use crate::support::{profile, text};

const HOST_TEXT: &str = "host list\n> one\n  two\n  three";

/// A host's frame: its own text on the left, the graph in a bordered pane on the right,
/// a line of its own under both.
fn host_frame(state: &mut FlameState, w: u16, h: u16) -> (Buffer, Rect) {
    host(w, h, Some(state))
}

/// The host's frame, with the graph in its pane when there is a state.
fn host(w: u16, h: u16, state: Option<&mut FlameState>) -> (Buffer, Rect) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut pane = Rect::default();
    terminal
        .draw(|f| {
            let [top, bottom] =
                Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(f.area());
            let [left, right] =
                Layout::horizontal([Constraint::Length(14), Constraint::Fill(1)]).areas(top);
            f.render_widget(Paragraph::new(HOST_TEXT), left);
            f.render_widget(Paragraph::new("host status line"), bottom);
            pane = right;
            if let Some(state) = state {
                let graph = FlameGraph::default().block(Block::bordered().title(" flame graph "));
                f.render_stateful_widget(graph, right, state);
            }
        })
        .unwrap();
    (terminal.backend().buffer().clone(), pane)
}

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn click(column: u16, row: u16, kind: MouseEventKind) -> Event {
    Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })
}

#[test]
fn the_graph_draws_only_in_its_pane_and_the_host_text_stays() {
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    let (buf, pane) = host_frame(&mut state, 80, 16);
    // Every cell outside the pane is what the host drew (or blank).
    let (alone, _) = host(80, 16, None);
    for y in 0..16 {
        for x in 0..80 {
            if !pane.contains((x, y).into()) {
                assert_eq!(buf[(x, y)], alone[(x, y)], "cell {x},{y} outside the pane");
            }
        }
    }
    insta::assert_snapshot!("widget_in_a_pane_80x16", text(&buf));
}

#[test]
fn keys_and_clicks_give_outcomes_and_the_host_keeps_its_keys() {
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    let (_, pane) = host_frame(&mut state, 80, 16);
    // Down from the root selects the first tower.
    let Outcome::Selected(path) = state.handle_event(&key(KeyCode::Down)) else {
        panic!("no selection")
    };
    assert_eq!(path, state.selected_path());
    assert_eq!(path.len(), 1);
    assert_eq!(state.tooltip().title, path[0]);
    // A key the graph has no use for, and one the host took back, are the host's.
    assert_eq!(
        state.handle_event(&key(KeyCode::Char('q'))),
        Outcome::Ignored
    );
    state.keymap_mut().unbind(KeyCode::Char('j'));
    assert_eq!(
        state.handle_event(&key(KeyCode::Char('j'))),
        Outcome::Ignored
    );
    state.keymap_mut().bind(
        KeyCode::Char('J'),
        KeyModifiers::NONE,
        Action::Move(Dir::Down),
    );
    assert!(matches!(
        state.handle_event(&key(KeyCode::Char('J'))),
        Outcome::Selected(p) if p.len() == 2
    ));
    // Zooming changes the view, not the selection.
    assert_eq!(state.zoom_in(), Outcome::Changed);
    // A click outside the pane is the host's; inside, on the first graph row (the
    // block's border takes one row), it selects.
    let outside = click(2, 2, MouseEventKind::Down(MouseButton::Left));
    assert_eq!(state.handle_event(&outside), Outcome::Ignored);
    let (_, pane2) = host_frame(&mut state, 80, 16);
    assert_eq!(pane, pane2);
    let inside = click(
        pane.x + 2,
        pane.y + 1,
        MouseEventKind::Down(MouseButton::Left),
    );
    assert!(matches!(state.handle_event(&inside), Outcome::Selected(_)));
}

#[test]
fn search_and_select_by_path() {
    let mut state = FlameState::new(
        Profile::from_folded("main;work;spin 7\nmain;idle 3\nmain;work 2\n").unwrap(),
    );
    assert_eq!(state.search("^(spin|idle)$", false), Ok(2));
    assert!(state.search("(", false).is_err());
    assert_eq!(state.search("", false), Ok(0));
    assert!(state.select_path(&["main", "work", "spin"]));
    assert!(!state.select_path(&["main", "nope"]));
    assert_eq!(state.selected_path(), ["main", "work", "spin"]);
    let tip = state.tooltip();
    assert_eq!(tip.title, "spin");
    assert!(tip.facts.iter().any(|f| f == "58.33% of total"), "{tip:?}");
}

/// Live data: a new profile keeps the selection and the zoom where their paths are still
/// there, and the search.
#[test]
fn replacing_the_profile_keeps_selection_zoom_and_search() {
    let first = Profile::from_folded("main;work;spin 7\nmain;idle 3\n").unwrap();
    let mut state = FlameState::new(first);
    let _ = host_frame(&mut state, 60, 10);
    assert!(state.select_path(&["main", "work"]));
    state.zoom_in();
    assert!(state.select_path(&["main", "work", "spin"]));
    assert_eq!(state.search("idle", false), Ok(1));
    let later = Profile::from_folded("main;work;spin 70\nmain;idle 30\nmain;new 5\n").unwrap();
    state.replace_profile(later);
    let _ = host_frame(&mut state, 60, 10);
    assert_eq!(state.selected_path(), ["main", "work", "spin"]);
    assert_eq!(state.profile().tree.total(), 105);
    // Zoomed into `work`: the zoom's share is the frame's whole.
    let tip = state.tooltip();
    assert!(tip.facts.iter().any(|f| f == "100.00% of zoom"), "{tip:?}");
    assert_eq!(state.search("idle", false), Ok(1));
    // A path that is gone leaves the root selected.
    state.replace_profile(Profile::from_folded("other 1\n").unwrap());
    assert!(state.selected_path().is_empty());
}

/// Differential colours: frames that grew and shrank are painted apart from the rest.
#[test]
fn a_baseline_paints_by_change() {
    let before = Profile::from_folded("main;grew 1\nmain;shrank 9\n").unwrap();
    let after = Profile::from_folded("main;grew 9\nmain;shrank 1\n").unwrap();
    let mut state = FlameState::new(after);
    let (plain, _) = host_frame(&mut state, 60, 8);
    state.set_baseline(Some(&before));
    let (painted, _) = host_frame(&mut state, 60, 8);
    assert_eq!(text(&plain), text(&painted), "the same frames");
    assert_ne!(plain, painted, "other colours");
    state.set_baseline(None);
    let (back, _) = host_frame(&mut state, 60, 8);
    assert_eq!(back, plain);
}

/// The function table is a widget of the same shape, over the same state: Enter in it
/// selects the function's heaviest frame in the graph beside it.
#[test]
fn the_function_table_beside_the_graph_shares_their_state() {
    use flametui::widget::FunctionTable;
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    let draw = |state: &mut FlameState| {
        let mut terminal = Terminal::new(TestBackend::new(100, 14)).unwrap();
        terminal
            .draw(|f| {
                let [left, right] =
                    Layout::horizontal([Constraint::Length(50), Constraint::Fill(1)])
                        .areas(f.area());
                let table = FunctionTable::default().block(Block::bordered().title(" functions "));
                f.render_stateful_widget(table, left, state);
                let graph = FlameGraph::default().block(Block::bordered().title(" graph "));
                f.render_stateful_widget(graph, right, state);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let first = draw(&mut state);
    insta::assert_snapshot!("widget_table_and_graph_100x14", text(&first));
    // The heaviest function by self first: down one row, then Enter.
    assert_eq!(
        state.handle_table_event(&key(KeyCode::Down)),
        Outcome::Changed
    );
    let chosen = state.table_selection().unwrap();
    let Outcome::Selected(path) = state.handle_table_event(&key(KeyCode::Enter)) else {
        panic!("Enter selected nothing")
    };
    assert_eq!(path.last(), Some(&chosen));
    assert_eq!(state.tooltip().title, chosen);
    // `o` sorts by total: the first row is then the heaviest in total.
    state.handle_table_event(&key(KeyCode::Char('o')));
    let _ = draw(&mut state);
    assert_eq!(
        state.handle_table_event(&key(KeyCode::Home)),
        Outcome::Changed
    );
    assert_eq!(state.table_selection().as_deref(), Some("[gzip]"));
    // The graph's keys are not the table's.
    assert_eq!(
        state.handle_table_event(&key(KeyCode::Char('f'))),
        Outcome::Ignored
    );
    // A click on a row of the table selects it.
    let row = click(5, 3, MouseEventKind::Down(MouseButton::Left));
    assert_eq!(state.handle_table_event(&row), Outcome::Changed);
}

/// Callers and callees of the graph's selected function, as a widget over the same state:
/// it follows the selection, and Tab and arrows move in its panes.
#[test]
fn callers_and_callees_of_the_selection() {
    use flametui::widget::Callers;
    let folded = "app;main;parse;alloc 5\napp;main;render;alloc 3\napp;main;render;draw 2\n";
    let mut state = FlameState::new(Profile::from_folded(folded).unwrap());
    let draw = |state: &mut FlameState| {
        let mut terminal = Terminal::new(TestBackend::new(60, 12)).unwrap();
        terminal
            .draw(|f| {
                let [top, bottom] =
                    Layout::vertical([Constraint::Length(2), Constraint::Fill(1)]).areas(f.area());
                f.render_widget(Paragraph::new("host header"), top);
                f.render_stateful_widget(Callers::default(), bottom, state);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    // Nothing selected: nothing drawn, keys are the host's.
    let empty = draw(&mut state);
    assert!(
        text(&empty).lines().skip(2).all(|l| l.trim().is_empty()),
        "{}",
        text(&empty)
    );
    assert_eq!(
        state.handle_callers_event(&key(KeyCode::Tab)),
        Outcome::Ignored
    );
    assert!(state.select_path(&["app", "main", "parse", "alloc"]));
    let shown = draw(&mut state);
    insta::assert_snapshot!("widget_callers_60x12", text(&shown));
    let screen = text(&shown);
    assert!(screen.starts_with("host header"), "{screen}");
    assert!(screen.contains("Callers of alloc"), "{screen}");
    // Callers: both `parse` and `render` call `alloc`, merged above it.
    assert!(
        screen.contains("parse") && screen.contains("render"),
        "{screen}"
    );
    assert_eq!(
        state.handle_callers_event(&key(KeyCode::Tab)),
        Outcome::Changed
    );
    assert_eq!(
        state.handle_callers_event(&key(KeyCode::Down)),
        Outcome::Changed
    );
    let _ = draw(&mut state);
    assert!(state.callers_selection().is_some());
    // Another selection, another function.
    assert!(state.select_path(&["app", "main", "render"]));
    let screen = text(&draw(&mut state));
    assert!(screen.contains("Callers of render"), "{screen}");
}

/// The heat map as a widget over the graph's state: a range marked on it and shown is the
/// graph's view; `a` gives the whole recording back. A profile without times says why.
#[test]
fn a_range_of_the_heat_map_is_shown_in_the_graph() {
    use flametui::widget::HeatMap;
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    let whole = state.profile().tree.total();
    let draw = |state: &mut FlameState| {
        let mut terminal = Terminal::new(TestBackend::new(80, 16)).unwrap();
        terminal
            .draw(|f| {
                let [top, bottom] =
                    Layout::vertical([Constraint::Length(8), Constraint::Fill(1)]).areas(f.area());
                f.render_stateful_widget(HeatMap::default(), top, state);
                f.render_stateful_widget(FlameGraph::default(), bottom, state);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let first = draw(&mut state);
    insta::assert_snapshot!("widget_heat_and_graph_80x16", text(&first));
    // Enter without a range: refused, with the reason.
    assert!(matches!(
        state.handle_heat_event(&key(KeyCode::Enter)),
        Outcome::Refused(why) if why.contains("Mark a range")
    ));
    for code in [
        KeyCode::Char(' '),
        KeyCode::Right,
        KeyCode::Right,
        KeyCode::Char(' '),
    ] {
        assert_eq!(state.handle_heat_event(&key(code)), Outcome::Changed);
        let _ = draw(&mut state);
    }
    assert_eq!(
        state.handle_heat_event(&key(KeyCode::Enter)),
        Outcome::Changed
    );
    let range = state.time_range().expect("a range shown");
    let part = state.profile().tree.total();
    assert!(part > 0 && part < whole, "{part} of {whole} in {range:?}");
    assert_eq!(
        state.handle_heat_event(&key(KeyCode::Char('a'))),
        Outcome::Changed
    );
    assert_eq!(state.time_range(), None);
    assert_eq!(state.profile().tree.total(), whole);
    // Folded stacks have no times.
    let mut untimed = FlameState::new(Profile::from_folded("a;b 1\n").unwrap());
    let screen = text(&draw(&mut untimed));
    assert!(screen.starts_with("No timeline"), "{screen}");
    assert_eq!(
        untimed.handle_heat_event(&key(KeyCode::Enter)),
        Outcome::Ignored
    );
}

/// The task list as a widget over the graph's state: Enter shows only the selected task
/// in the graph, `a` every task again; input without tasks says why.
#[test]
fn a_task_of_the_list_is_shown_in_the_graph() {
    use flametui::widget::TaskList;
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    let whole = state.profile().tree.total();
    let draw = |state: &mut FlameState| {
        let mut terminal = Terminal::new(TestBackend::new(80, 12)).unwrap();
        terminal
            .draw(|f| {
                let [top, bottom] =
                    Layout::vertical([Constraint::Length(6), Constraint::Fill(1)]).areas(f.area());
                f.render_stateful_widget(TaskList::default(), top, state);
                f.render_stateful_widget(FlameGraph::default(), bottom, state);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let first = draw(&mut state);
    insta::assert_snapshot!("widget_tasks_and_graph_80x12", text(&first));
    assert_eq!(
        state.handle_tasks_event(&key(KeyCode::Down)),
        Outcome::Changed
    );
    assert_eq!(
        state.handle_tasks_event(&key(KeyCode::Enter)),
        Outcome::Changed
    );
    assert_eq!(
        state.shown_tasks().map(std::collections::BTreeSet::len),
        Some(1)
    );
    let part = state.profile().tree.total();
    assert!(part > 0 && part < whole, "{part} of {whole}");
    let _ = draw(&mut state);
    assert_eq!(
        state.handle_tasks_event(&key(KeyCode::Char('a'))),
        Outcome::Changed
    );
    assert!(state.shown_tasks().is_none());
    assert_eq!(state.profile().tree.total(), whole);
    assert_eq!(
        state.handle_tasks_event(&key(KeyCode::Char('f'))),
        Outcome::Ignored
    );
    let mut untimed = FlameState::new(Profile::from_folded("a;b 1\n").unwrap());
    let screen = text(&draw(&mut untimed));
    assert!(screen.starts_with("No task information"), "{screen}");
    assert_eq!(
        untimed.handle_tasks_event(&key(KeyCode::Enter)),
        Outcome::Refused("No task to show: the filter keeps none (Esc clears it)".to_owned())
    );
}

/// A baseline's colours follow the graph when a heat-map range changes what it shows:
/// the same as a graph of that range painted against the baseline from the start.
#[test]
fn a_baseline_still_paints_the_graph_of_a_range() {
    use flametui::widget::HeatMap;
    let before = Profile::from_folded("gzip;[gzip] 9\nhead;read 1\n").unwrap();
    let mut state = FlameState::new(profile("perf-gzip-fp.txt.gz"));
    state.set_baseline(Some(&before));
    let graph = |state: &mut FlameState| {
        let mut terminal = Terminal::new(TestBackend::new(80, 16)).unwrap();
        terminal
            .draw(|f| {
                let [top, bottom] =
                    Layout::vertical([Constraint::Length(8), Constraint::Fill(1)]).areas(f.area());
                f.render_stateful_widget(HeatMap::default(), top, state);
                f.render_stateful_widget(FlameGraph::default(), bottom, state);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let _ = graph(&mut state);
    for code in [
        KeyCode::Char(' '),
        KeyCode::Down,
        KeyCode::Char(' '),
        KeyCode::Enter,
    ] {
        state.handle_heat_event(&key(code));
        let _ = graph(&mut state);
    }
    assert!(state.time_range().is_some());
    let shown = graph(&mut state);
    let mut fresh = FlameState::new(state.profile().clone());
    fresh.set_baseline(Some(&before));
    let mut terminal = Terminal::new(TestBackend::new(80, 8)).unwrap();
    terminal
        .draw(|f| f.render_stateful_widget(FlameGraph::default(), f.area(), &mut fresh))
        .unwrap();
    let alone = terminal.backend().buffer();
    for y in 0..8 {
        for x in 0..80 {
            assert_eq!(
                shown[(x, y + 8)],
                alone[(x, y)],
                "cell {x},{y} of the graph"
            );
        }
    }
}

/// A host's theme marks the selection and the matches its way; without one, the viewer's
/// marks (reverse video for the selection) are drawn.
#[test]
fn a_theme_marks_the_selection_and_the_matches() {
    use flametui::widget::{ColorMode, Theme};
    use ratatui::style::{Color, Modifier, Style};
    let draw = |state: &mut FlameState, graph: FlameGraph<'_>| {
        let mut terminal = Terminal::new(TestBackend::new(40, 4)).unwrap();
        terminal
            .draw(|f| f.render_stateful_widget(graph, f.area(), state))
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let mut state = FlameState::new(Profile::from_folded("main;work 3\nmain;idle 1\n").unwrap());
    assert!(state.select_path(&["main"]));
    assert_eq!(state.search("^idle$", false), Ok(1));
    // Icicle: `main` on row 1 over the whole width, `idle` and `work` on row 2.
    let plain = draw(
        &mut state,
        FlameGraph::default().colors(ColorMode::TrueColor),
    );
    assert!(plain[(0, 1)].modifier.contains(Modifier::REVERSED));
    let idle_x = (0..40).find(|&x| plain[(x, 2)].symbol() == "i").unwrap();
    assert!(plain[(idle_x, 2)].modifier.contains(Modifier::UNDERLINED));
    let theme = Theme::default()
        .selected(Style::new().bg(Color::Yellow).fg(Color::Black))
        .matched(Style::new().fg(Color::Green).add_modifier(Modifier::ITALIC));
    let themed = draw(&mut state, FlameGraph::default().theme(theme));
    assert!(!themed[(0, 1)].modifier.contains(Modifier::REVERSED));
    assert_eq!(themed[(0, 1)].bg, Color::Yellow);
    assert_eq!(themed[(idle_x, 2)].fg, Color::Green);
    assert!(themed[(idle_x, 2)].modifier.contains(Modifier::ITALIC));
    // Outside the selection and the matches, the theme changes nothing.
    let work_x = (0..40).find(|&x| plain[(x, 2)].symbol() == "w").unwrap();
    assert_eq!(themed[(work_x, 2)], plain[(work_x, 2)]);
}
