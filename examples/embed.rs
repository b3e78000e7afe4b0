//! A host program with its own event loop: a list on the left, flametui's flame graph in a
//! pane on the right, fed live from a thread. Arrows move in the graph, Enter zooms,
//! Backspace goes back; Tab moves the focus to the list (↑/↓ pick a workload); `q` quits
//! (the graph gives `q` back to its host).
//!
//! `cargo run --example embed`

use std::fmt::Write as _;
use std::sync::mpsc;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind};
use flametui::profile::Profile;
use flametui::widget::{FlameGraph, FlameState, Outcome};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, List, ListState, Paragraph};

const WORKLOADS: [&str; 3] = ["parse", "render", "network"];

/// A thread that samples a made-up program, sending a profile of all it saw so far
/// every 200 ms (as a sampling profiler fed over a pipe would).
fn feed(tx: &mpsc::Sender<Profile>) {
    let mut folded = String::new();
    for tick in 0u64.. {
        let work = WORKLOADS[(tick % 3) as usize];
        let leaf = ["read", "hash", "alloc", "write"][(tick * 7 % 4) as usize];
        let _ = writeln!(folded, "app;main;{work};{leaf} {}", 1 + tick % 5);
        if tick % 4 == 0 {
            let Ok(p) = Profile::from_folded(&folded) else {
                continue;
            };
            if tx.send(p).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn main() -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || feed(&tx));
    let first = rx.recv().map_err(std::io::Error::other)?;
    let mut graph = FlameState::new(first);
    // The host keeps `q`; the graph keeps the rest of its keys.
    graph.keymap_mut().unbind(KeyCode::Char('q'));
    let mut list = ListState::default().with_selected(Some(0));
    let mut graph_focused = true;
    let mut said = String::from("arrows move, Enter zooms, Tab: list, q quits");

    let mut terminal = ratatui::init();
    crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
    let result = loop {
        // The newest profile wins; selection and zoom stay where their paths still are.
        if let Some(p) = rx.try_iter().last() {
            graph.replace_profile(p);
        }
        let drawn = terminal.draw(|f| {
            let [main, status] =
                Layout::vertical([Constraint::Fill(1), Constraint::Length(2)]).areas(f.area());
            let [left, right] =
                Layout::horizontal([Constraint::Length(16), Constraint::Fill(1)]).areas(main);
            let focus = |on: bool| if on { Modifier::BOLD } else { Modifier::DIM };
            let items = List::new(WORKLOADS)
                .block(
                    Block::bordered()
                        .title(" workloads ")
                        .style(Style::new().add_modifier(focus(!graph_focused))),
                )
                .highlight_symbol("> ");
            f.render_stateful_widget(items, left, &mut list);
            let pane = Block::bordered().title(" live flame graph ");
            let pane = pane.style(Style::new().add_modifier(focus(graph_focused)));
            f.render_stateful_widget(FlameGraph::default().block(pane), right, &mut graph);
            // The host draws its own side panel from the widget's tooltip.
            let tip = graph.tooltip();
            let facts = tip.facts.first().cloned().unwrap_or_default();
            f.render_widget(
                Paragraph::new(format!("{} · {facts}\n{said}", tip.title)),
                status,
            );
        });
        if let Err(e) = drawn {
            break Err(e);
        }
        if !event::poll(Duration::from_millis(100))? {
            continue;
        }
        let ev = event::read()?;
        match &ev {
            Event::Key(k) if k.kind == KeyEventKind::Press && k.code == KeyCode::Char('q') => {
                break Ok(());
            }
            Event::Key(k) if k.kind == KeyEventKind::Press && k.code == KeyCode::Tab => {
                graph_focused = !graph_focused;
            }
            Event::Key(k) if !graph_focused && k.kind == KeyEventKind::Press => {
                match k.code {
                    KeyCode::Up => list.select_previous(),
                    KeyCode::Down => list.select_next(),
                    _ => {}
                }
                let w = WORKLOADS[list.selected().unwrap_or(0).min(2)];
                graph.select_path(&["app", "main", w]);
            }
            _ => match graph.handle_event(&ev) {
                Outcome::Selected(path) => said = format!("selected {}", path.join(" → ")),
                Outcome::Changed => "view changed".clone_into(&mut said),
                _ => {}
            },
        }
    };
    crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture)?;
    ratatui::restore();
    result
}
