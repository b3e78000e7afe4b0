//! Stage: application state — live updates. While `perf script | flametui -` is still
//! streaming, newer snapshots of the profile replace the tree on screen; what the user is
//! looking at (zoom, selection, search, orientation) is carried over by stack path, since
//! node ids change from one tree to the next, and an open tool stays open on the new tree.

use super::Mode;
use super::explorer::Explorer;
use super::sandwich::Sandwich;
use super::state::{Screen, Tools};
use super::transforms::TransformStack;
use crate::input::stap::ON_CPU;
use crate::profile::diff::{find_path, path_names};
use crate::profile::{CallTree, NameId, NodeId, Profile};
use crate::view::{Target, Viewport};
use std::sync::Arc;

impl Explorer {
    /// Shows `profile` (a newer snapshot of the same input) in place of the current one.
    pub fn replace_profile(
        &mut self,
        profile: impl Into<Arc<Profile>>,
        view: &TransformStack,
        mode: &mut Mode,
    ) {
        let tree = &self.profile.tree;
        let path_of = |id: NodeId| -> Vec<String> {
            path_names(tree, id)
                .into_iter()
                .map(str::to_owned)
                .collect()
        };
        let selected = match self.selected {
            Target::Frame(id) => Some(path_of(id)),
            Target::Span { .. } => None,
        };
        let zoom = (self.zoom.is_frame(&self.index) && self.zoom.root != NodeId::ROOT)
            .then(|| path_of(self.zoom.root));
        // Back / forward history, by path (a zoom on a range of a frame keeps its frame).
        let history = |list: &[Viewport]| -> Vec<Vec<String>> {
            list.iter().map(|v| path_of(v.root)).collect()
        };
        let (back, forward) = (history(&self.back), history(&self.forward));
        // What is carried over is known: the old tree's index and totals go before the new
        // ones are made (with a piped input, the last snapshot's were most of the extra
        // memory a pipe cost over a file).
        self.index = crate::view::index::TreeIndex::default();
        self.functions = Vec::new();
        self.half_functions = Vec::new();
        let mut fresh = Explorer::with_view_shared(profile.into(), view);
        fresh.flame = self.flame;
        fresh.scroll = self.scroll;
        fresh.search.query = std::mem::take(&mut self.search.query);
        fresh.search.ignore_case = self.search.ignore_case;
        let tree = &fresh.profile.tree;
        if let Some(id) = zoom.and_then(|p| find_moved(tree, &p)) {
            fresh.zoom = Viewport::frame(&fresh.index, id);
        }
        if let Some(id) = selected.and_then(|p| find_moved(tree, &p)) {
            fresh.selected = Target::Frame(id);
        }
        let remap = |paths: Vec<Vec<String>>| -> Vec<Viewport> {
            paths
                .iter()
                .map(|p| {
                    let id = if p.is_empty() {
                        Some(NodeId::ROOT)
                    } else {
                        find_moved(tree, p)
                    };
                    Viewport::frame(&fresh.index, id.unwrap_or(NodeId::ROOT))
                })
                .collect()
        };
        fresh.back = remap(back);
        fresh.forward = remap(forward);
        let old = std::mem::replace(self, fresh);
        self.run_search();
        self.carry_tools(old, mode);
    }

    /// Keeps the open tool across a new snapshot: the table (same sort, rows recomputed),
    /// the finder (same query, re-ranked), callers / callees of the same function (closed
    /// when the function is not in the new tree), the prompt and the last message.
    fn carry_tools(&mut self, old: Explorer, mode: &mut Mode) {
        let Tools {
            screen,
            table,
            finder,
            sandwich,
            prompt,
            message,
            heat,
            mut back,
            ..
        } = old.tools;
        // Ids differ between trees: a function is found again by its name.
        let names = old.profile.tree.names();
        let renamed = |id: NameId, tree: &CallTree| tree.names().lookup(names.resolve(id));
        self.tools.prompt = prompt;
        self.tools.message = message;
        self.tools.screen = screen;
        // Esc still goes back; callers / callees kept for it are of the old tree.
        back.retain(|p| !matches!(p.screen, Screen::Sandwich | Screen::Source));
        self.tools.back = back;
        // The heat map keeps its cursor, ranges and time scale; its cells grow.
        self.tools.heat = heat.map(|h| super::heat::HeatState {
            scale: None,
            grid: None,
            matches: None,
            ..h
        });
        // The table: same sort, rows of the new tree, the same function selected.
        self.tools.table.sort = table.sort;
        if screen == Screen::Table {
            self.sync_table(self.tools.generation);
            let kept = table
                .current()
                .and_then(|id| renamed(id, &self.profile.tree));
            let t = &mut self.tools.table;
            if let Some(at) = kept.and_then(|id| t.rows.iter().position(|f| f.name == id)) {
                t.selected = at;
                t.offset = table.offset.min(at);
            }
        }
        if *mode == Mode::Finder {
            self.open_finder();
            self.tools.finder.query = finder.query;
            self.run_finder();
            // The same hit stays selected, so Enter picks what the user chose.
            let kept = finder.hits.get(finder.selected);
            let kept = kept.and_then(|h| renamed(h.name, &self.profile.tree));
            let f = &mut self.tools.finder;
            if let Some(at) = kept.and_then(|id| f.hits.iter().position(|h| h.name == id)) {
                f.selected = at;
                f.offset = finder.offset.min(at);
            }
        }
        if screen == Screen::Sandwich {
            let kept = sandwich
                .as_ref()
                .and_then(|s| renamed(s.name, &self.profile.tree));
            if let Some(id) = kept {
                let mut fresh = Sandwich::new(&self.profile.tree, &self.index, id);
                // Keys keep going to the pane they went to.
                fresh.focus = sandwich.as_ref().map_or(0, |s| s.focus);
                self.tools.sandwich = Some(Box::new(fresh));
            } else {
                self.tools.screen = Screen::Graph;
                self.tools.back.clear();
                if *mode == Mode::Sandwich {
                    *mode = Mode::Normal;
                }
            }
        }
        self.place_tools();
    }
}

/// The frame at `path` in a newer snapshot. SystemTap input gains `[on-cpu]` and
/// `[off-cpu]` roots when its first off-CPU stack arrives, and the stacks before it were
/// on-CPU ones: a path not found as it was is looked for under `[on-cpu]`.
fn find_moved(tree: &CallTree, path: &[String]) -> Option<NodeId> {
    find_path(tree, path).or_else(|| {
        let moved: Vec<&str> = std::iter::once(ON_CPU)
            .chain(path.iter().map(String::as_str))
            .collect();
        find_path(tree, &moved)
    })
}

#[cfg(test)]
mod tests {
    use crate::app::{Action, App, Dir, Phase, update};
    use crate::input::{LoadOptions, load_reader};
    use crate::profile::Profile;
    use crate::view::Target;
    use crate::view::color::ColorMode;

    fn profile(text: &str) -> Box<Profile> {
        Box::new(
            load_reader(text.as_bytes(), "-", &LoadOptions::default())
                .unwrap()
                .main()
                .clone(),
        )
    }

    fn selected_path(app: &App) -> String {
        let ex = app.explorer().unwrap();
        match ex.selected {
            Target::Frame(id) => ex.profile.tree.path_string(id),
            Target::Span { .. } => "span".to_owned(),
        }
    }

    #[test]
    fn snapshots_replace_the_tree_and_keep_selection_zoom_and_search() {
        let mut app = App::loading("<stdin>", ColorMode::Mono);
        update(&mut app, Action::Resize(80, 24));
        update(
            &mut app,
            Action::Snapshot(profile("main;read 5\nmain;parse;lex 3\n")),
        );
        assert!(matches!(app.phase, Phase::Ready(_)) && app.streaming.is_some());
        for a in [
            Action::Move(Dir::Down),
            Action::Move(Dir::Down),
            Action::Zoom,
        ] {
            update(&mut app, a);
        }
        for c in "lex".chars() {
            update(&mut app, Action::SearchType(c));
        }
        assert_eq!(selected_path(&app), "main;read");
        // A newer snapshot: more samples, a new branch; the view carries over by path.
        update(
            &mut app,
            Action::Snapshot(profile("main;read 9\nmain;parse;lex 7\nmain;zip 2\n")),
        );
        let ex = app.explorer().unwrap();
        assert_eq!(ex.profile.tree.total(), 18);
        assert_eq!(selected_path(&app), "main;read");
        assert_eq!(ex.profile.tree.path_string(ex.zoom.root), "main;read");
        assert!(ex.search.matches.as_ref().is_some_and(|m| !m.is_empty()));
        // Zoom back still goes where it went before the snapshot.
        assert_eq!(ex.back.len(), 1);
        assert_eq!(ex.back[0].root, crate::profile::NodeId::ROOT);
        // Frozen: newer snapshots wait; resuming shows the newest.
        update(&mut app, Action::ToggleFreeze);
        update(&mut app, Action::Snapshot(profile("main;read 20\n")));
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 18);
        update(
            &mut app,
            Action::Loaded(profile("main;read 30\nmain;zip 3\n")),
        );
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 18);
        assert!(app.streaming.is_none());
        update(&mut app, Action::ToggleFreeze);
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 33);
        assert_eq!(selected_path(&app), "main;read");
    }

    #[test]
    fn an_open_tool_stays_open_across_snapshots() {
        use crate::app::{Mode, Screen, ToolAction};
        let tool = |app: &mut App, t: ToolAction| update(app, Action::Tool(t));
        let mut app = App::loading("<stdin>", ColorMode::Mono);
        update(&mut app, Action::Resize(80, 24));
        let first = "main;read 5\nmain;parse;lex 3\nmain;zip 1\n";
        update(&mut app, Action::Snapshot(profile(first)));
        // The function table, its selection on `parse` (by self weight: read, lex, zip/parse…).
        tool(&mut app, ToolAction::Table);
        let name = |app: &App| {
            let ex = app.explorer().unwrap();
            let id = ex.tools.table.current().unwrap();
            ex.profile.tree.names().resolve(id).to_owned()
        };
        tool(&mut app, ToolAction::Step(1));
        let chosen = name(&app);
        update(
            &mut app,
            Action::Snapshot(profile("main;zip 1\nmain;read 9\nmain;parse;lex 7\n")),
        );
        assert_eq!(app.mode, Mode::Table);
        assert_eq!(app.explorer().unwrap().tools.screen, Screen::Table);
        assert_eq!(name(&app), chosen);
        tool(&mut app, ToolAction::Close);
        // The finder keeps its query and ranks the new tree.
        tool(&mut app, ToolAction::Finder);
        tool(&mut app, ToolAction::Type('l'));
        tool(&mut app, ToolAction::Type('x'));
        update(
            &mut app,
            Action::Snapshot(profile("main;read 9\nmain;parse;lex 8\n")),
        );
        assert_eq!(app.mode, Mode::Finder);
        let f = &app.explorer().unwrap().tools.finder;
        assert_eq!(f.query, "lx");
        assert_eq!(f.hits.len(), 1);
        // The selected hit stays selected by name while ranks change.
        tool(&mut app, ToolAction::ClearLine);
        tool(&mut app, ToolAction::Step(2));
        let hit = |app: &App| {
            let ex = app.explorer().unwrap();
            let f = &ex.tools.finder;
            ex.profile
                .tree
                .names()
                .resolve(f.hits[f.selected].name)
                .to_owned()
        };
        let chosen = hit(&app);
        update(
            &mut app,
            Action::Snapshot(profile("main;parse;lex 30\nmain;read 9\nmain;zip 1\n")),
        );
        assert_eq!(hit(&app), chosen);
        tool(&mut app, ToolAction::Close);
        // Callers / callees of `lex` stay while lex is there, close when it is gone.
        tool(&mut app, ToolAction::Finder);
        for c in "lex".chars() {
            tool(&mut app, ToolAction::Type(c));
        }
        tool(&mut app, ToolAction::Accept);
        tool(&mut app, ToolAction::Sandwich);
        assert_eq!(app.mode, Mode::Sandwich);
        tool(&mut app, ToolAction::Pane);
        update(
            &mut app,
            Action::Snapshot(profile("main;read 9\nmain;parse;lex 9\n")),
        );
        assert_eq!(app.mode, Mode::Sandwich);
        let s = app.explorer().unwrap().tools.sandwich.as_ref().unwrap();
        assert_eq!(s.focus, 1);
        update(&mut app, Action::Snapshot(profile("main;read 10\n")));
        assert_eq!(app.mode, Mode::Normal);
        assert_eq!(app.explorer().unwrap().tools.screen, Screen::Graph);
    }

    #[test]
    fn the_view_follows_stacks_moved_under_on_cpu() {
        // SystemTap: the first off-CPU stack splits the profile into [on-cpu] / [off-cpu].
        let mut app = App::loading("<stdin>", ColorMode::Mono);
        update(&mut app, Action::Resize(80, 24));
        update(
            &mut app,
            Action::Snapshot(profile("main;read 5\nmain;parse 3\n")),
        );
        for a in [
            Action::Move(Dir::Down),
            Action::Zoom,
            Action::Move(Dir::Down),
        ] {
            update(&mut app, a);
        }
        assert_eq!(selected_path(&app), "main;read");
        let split = "[on-cpu];main;read 6\n[on-cpu];main;parse 3\n[off-cpu];main;wait 9\n";
        update(&mut app, Action::Snapshot(profile(split)));
        assert_eq!(selected_path(&app), "[on-cpu];main;read");
        let ex = app.explorer().unwrap();
        assert_eq!(ex.profile.tree.path_string(ex.zoom.root), "[on-cpu];main");
    }
}
