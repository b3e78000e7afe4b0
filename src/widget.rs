//! Stage: library — the flame graph as a ratatui widget another terminal program embeds.
//!
//! [`FlameGraph`] is a [`StatefulWidget`] configured per frame (a block around it, icicle
//! or flame, colours); [`FlameState`] is what the host keeps between frames: the profile,
//! the selection, the zoom and its history, the search. Events go through
//! [`FlameState::handle_event`], which answers with an [`Outcome`]; hosts that map their
//! own keys call the semantic methods ([`FlameState::zoom_in`], [`FlameState::search`],
//! [`FlameState::select_path`], …) instead, and may change the [`KeyMap`] (give `q` back to
//! the host, say).
//!
//! The widget never touches the terminal, standard output or any global state, and draws
//! only inside the `Rect` it is given. Rendering lays the graph out for that rectangle
//! (kept in the state, as ratatui's `ListState` keeps its offset); the selection, zoom and
//! search change only through events and calls.
//!
//! ```
//! use flametui::widget::{FlameGraph, FlameState, Outcome};
//! use ratatui::{backend::TestBackend, Terminal};
//!
//! let profile = flametui::profile::Profile::from_folded("main;work;spin 7\nmain;idle 3\n")?;
//! let mut state = FlameState::new(profile);
//! let mut terminal = Terminal::new(TestBackend::new(40, 6))?;
//! terminal.draw(|f| f.render_stateful_widget(FlameGraph::default(), f.area(), &mut state))?;
//! // Down to `main`, then zoom into it.
//! state.select_path(&["main", "work"]);
//! assert_eq!(state.selected_path(), ["main", "work"]);
//! state.zoom_in();
//! assert_eq!(state.tooltip().title, "work");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, StatefulWidget, Widget};

use crate::app::explorer::{Areas, Explorer};
pub use crate::app::mode::Dir;
use crate::profile::diff::{find_path, path_names, points_by_node};
use crate::profile::{NodeId, Profile};
use crate::view::Target;
use crate::view::color::ColorMode;
use crate::view::delta::Paint;
pub use crate::view::tooltip::Tooltip;

/// The flame graph, configured per frame; its state is a [`FlameState`].
#[derive(Debug, Clone)]
pub struct FlameGraph<'a> {
    block: Option<Block<'a>>,
    colors: ColorMode,
    flame: Option<bool>,
}

impl Default for FlameGraph<'_> {
    /// No block, 24-bit colours, the state's orientation (icicle at first).
    fn default() -> Self {
        Self {
            block: None,
            colors: ColorMode::TrueColor,
            flame: None,
        }
    }
}

impl<'a> FlameGraph<'a> {
    /// Draws `block` around the graph (the graph fills its inner area).
    #[must_use]
    pub fn block(mut self, block: Block<'a>) -> Self {
        self.block = Some(block);
        self
    }

    /// The colours: 24-bit, 256, 16 or none ([`ColorMode::Mono`]).
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }

    /// Root at the bottom (`true`, a flame graph) or at the top (an icicle graph); by
    /// default the state's own choice, which [`Action::Flip`] toggles.
    #[must_use]
    pub fn flame(mut self, flame: bool) -> Self {
        self.flame = Some(flame);
        self
    }
}

impl StatefulWidget for FlameGraph<'_> {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let inner = match &self.block {
            Some(block) => {
                let inner = block.inner(area);
                block.render(area, buf);
                inner
            }
            None => area,
        };
        if let Some(flame) = self.flame {
            state.explorer.flame = flame;
        }
        state.place(inner);
        if !inner.is_empty() {
            self.render_placed(state, buf);
        }
    }
}

impl FlameGraph<'_> {
    /// Draws a state already laid out by its owner in the area it holds (the full-screen
    /// viewer lays its graph out after each action, then draws it from `&App`); the block
    /// is not drawn.
    pub fn render_placed(&self, state: &FlameState, buf: &mut Buffer) {
        let paint = match &state.baseline {
            Some((points, max)) => Paint::Delta(points, *max),
            None => Paint::Names,
        };
        crate::ui::flame::render_with(&state.explorer, self.colors, paint, buf);
    }
}

/// The function table of a [`FlameState`]'s profile: every function with its self and
/// total weight, sorted by self (`o` cycles self, total, name), filtered by the state's
/// search. It shares its state with the graph: Enter in the table
/// ([`FlameState::handle_table_event`]) selects the function's heaviest frame there.
#[derive(Debug, Clone)]
pub struct FunctionTable<'a> {
    block: Option<Block<'a>>,
    colors: ColorMode,
}

impl Default for FunctionTable<'_> {
    fn default() -> Self {
        Self {
            block: None,
            colors: ColorMode::TrueColor,
        }
    }
}

impl<'a> FunctionTable<'a> {
    /// Draws `block` around the table.
    #[must_use]
    pub fn block(mut self, block: Block<'a>) -> Self {
        self.block = Some(block);
        self
    }

    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for FunctionTable<'_> {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let inner = match &self.block {
            Some(block) => {
                let inner = block.inner(area);
                block.render(area, buf);
                inner
            }
            None => area,
        };
        state.table_area = inner;
        let ex = &mut state.explorer;
        ex.sync_table(ex.tools.generation);
        ex.tools
            .table
            .scroll_into_view(usize::from(inner.height.saturating_sub(1)));
        crate::ui::table::render_in(ex, inner, self.colors, buf);
    }
}

/// Callers and callees of the function selected in a [`FlameState`]'s graph, merged over
/// every call (speedscope's sandwich): callers above, callees below. Tab switches pane,
/// arrows move in it ([`FlameState::handle_callers_event`]).
#[derive(Debug, Clone)]
pub struct Callers {
    colors: ColorMode,
}

impl Default for Callers {
    fn default() -> Self {
        Self {
            colors: ColorMode::TrueColor,
        }
    }
}

impl Callers {
    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for Callers {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let ex = &mut state.explorer;
        let name = match ex.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(ex.profile.tree.node(id).name),
            _ => None,
        };
        let tree = &ex.profile.tree;
        let outdated = ex.tools.sandwich.as_ref().map(|s| s.name) != name;
        if outdated {
            ex.tools.sandwich = name.filter(|&n| !tree.names().is_task(n)).map(|n| {
                Box::new(crate::app::sandwich::state::Sandwich::new(
                    tree, &ex.index, n,
                ))
            });
        }
        ex.place_sandwich_in(area);
        crate::ui::sandwich::render(ex, self.colors, buf);
    }
}

/// What an event did to the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Not the graph's: the host may use it.
    Ignored,
    /// The view changed (zoom, scroll, search, flip): draw again.
    Changed,
    /// Another frame is selected: its path from the root, names as read.
    Selected(Vec<String>),
}

/// What a key does in the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Move the selection.
    Move(Dir),
    /// Zoom into the selected frame.
    ZoomIn,
    /// Back to the previous zoom.
    Back,
    /// Forward again after [`Action::Back`].
    Forward,
    /// The whole graph again.
    Reset,
    /// Root at the bottom or at the top.
    Flip,
    /// Next (or, `false`, previous) match of the search.
    NextMatch(bool),
    /// Scroll by rows (negative: up).
    Scroll(i32),
}

/// Keys of the graph, which the host may change: [`KeyMap::unbind`] gives a key back to
/// the host, [`KeyMap::bind`] adds one.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<(KeyCode, KeyModifiers, Action)>,
}

impl Default for KeyMap {
    /// The viewer's graph keys: arrows and `hjkl` move, Enter zooms, Backspace goes back,
    /// `]` forward, `0` resets, `f` flips, `n`/`N` walk the matches, PageUp/PageDown scroll.
    fn default() -> Self {
        let none = KeyModifiers::NONE;
        let shift = KeyModifiers::SHIFT;
        let b = |code, mods, action| (code, mods, action);
        Self {
            bindings: vec![
                b(KeyCode::Up, none, Action::Move(Dir::Up)),
                b(KeyCode::Down, none, Action::Move(Dir::Down)),
                b(KeyCode::Left, none, Action::Move(Dir::Left)),
                b(KeyCode::Right, none, Action::Move(Dir::Right)),
                b(KeyCode::Char('k'), none, Action::Move(Dir::Up)),
                b(KeyCode::Char('j'), none, Action::Move(Dir::Down)),
                b(KeyCode::Char('h'), none, Action::Move(Dir::Left)),
                b(KeyCode::Char('l'), none, Action::Move(Dir::Right)),
                b(KeyCode::Enter, none, Action::ZoomIn),
                b(KeyCode::Backspace, none, Action::Back),
                b(KeyCode::Char(']'), none, Action::Forward),
                b(KeyCode::Char('0'), none, Action::Reset),
                b(KeyCode::Char('f'), none, Action::Flip),
                b(KeyCode::Char('n'), none, Action::NextMatch(true)),
                b(KeyCode::Char('N'), shift, Action::NextMatch(false)),
                b(KeyCode::Char('N'), none, Action::NextMatch(false)),
                b(KeyCode::PageUp, none, Action::Scroll(-10)),
                b(KeyCode::PageDown, none, Action::Scroll(10)),
            ],
        }
    }
}

impl KeyMap {
    /// The action of a key, if it has one.
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        self.bindings
            .iter()
            .find(|(code, mods, _)| *code == key.code && *mods == key.modifiers)
            .map(|b| b.2)
    }

    /// Gives `code` (with any modifiers) back to the host: the graph ignores it.
    pub fn unbind(&mut self, code: KeyCode) {
        self.bindings.retain(|b| b.0 != code);
    }

    /// Binds `code` with `modifiers` to `action` (replacing what it did).
    pub fn bind(&mut self, code: KeyCode, modifiers: KeyModifiers, action: Action) {
        self.bindings.retain(|b| !(b.0 == code && b.1 == modifiers));
        self.bindings.push((code, modifiers, action));
    }
}

/// What the host keeps of a [`FlameGraph`] between frames.
#[derive(Debug)]
pub struct FlameState {
    explorer: Explorer,
    keymap: KeyMap,
    /// Where the function table was last drawn.
    table_area: Rect,
    /// Differential colours against a baseline: points per node and the largest.
    baseline: Option<(Vec<f64>, f64)>,
}

impl FlameState {
    /// A graph of `profile`, whole, nothing selected.
    #[must_use]
    pub fn new(profile: Profile) -> Self {
        Self {
            explorer: Explorer::new(profile),
            keymap: KeyMap::default(),
            table_area: Rect::default(),
            baseline: None,
        }
    }

    /// The profile shown.
    pub fn profile(&self) -> &Profile {
        &self.explorer.profile
    }

    /// The keys, to change.
    pub fn keymap_mut(&mut self) -> &mut KeyMap {
        &mut self.keymap
    }

    /// Handles a terminal event: a key of the [`KeyMap`], a click (select), a double click
    /// (zoom), the wheel (scroll). Mouse events outside the graph's last area, key releases
    /// and unbound keys are [`Outcome::Ignored`].
    pub fn handle_event(&mut self, event: &Event) -> Outcome {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => match self.keymap.action(key) {
                Some(action) => self.apply(action),
                None => Outcome::Ignored,
            },
            Event::Mouse(m) => {
                let graph = self.explorer.areas.graph;
                let inside = m.column >= graph.x
                    && m.column < graph.right()
                    && m.row >= graph.y
                    && m.row < graph.bottom();
                if !inside {
                    return Outcome::Ignored;
                }
                let before = self.explorer.selected;
                match m.kind {
                    MouseEventKind::Down(_) => {
                        self.explorer.click(m.column, m.row);
                    }
                    MouseEventKind::ScrollUp => self.explorer.scroll_rows(-3),
                    MouseEventKind::ScrollDown => self.explorer.scroll_rows(3),
                    _ => return Outcome::Ignored,
                }
                self.settle();
                self.outcome(before)
            }
            _ => Outcome::Ignored,
        }
    }

    /// Handles a key of the [`FunctionTable`]: ↑/↓ (and `k`/`j`), PageUp/PageDown, Home/End
    /// move in it, `o` changes the sort, Enter selects the function's heaviest frame in the
    /// graph ([`Outcome::Selected`]); a click on a row selects it. Other events are
    /// [`Outcome::Ignored`].
    pub fn handle_table_event(&mut self, event: &Event) -> Outcome {
        let page = i32::from(self.table_area.height.saturating_sub(2).max(1));
        let t = &mut self.explorer.tools.table;
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => match key.code {
                KeyCode::Up | KeyCode::Char('k') => t.step(-1),
                KeyCode::Down | KeyCode::Char('j') => t.step(1),
                KeyCode::PageUp => t.step(-page),
                KeyCode::PageDown => t.step(page),
                KeyCode::Home => t.edge(false),
                KeyCode::End => t.edge(true),
                KeyCode::Char('o') => t.sort = t.sort.next(),
                KeyCode::Enter => {
                    let before = self.explorer.selected;
                    let Some(name) = t.current() else {
                        return Outcome::Ignored;
                    };
                    if let Some(id) = self.explorer.index.heaviest(name) {
                        self.explorer.selected = Target::Frame(id);
                        self.settle();
                    }
                    return self.outcome(before);
                }
                _ => return Outcome::Ignored,
            },
            Event::Mouse(m) if matches!(m.kind, MouseEventKind::Down(_)) => {
                let a = self.table_area;
                let inside = m.column >= a.x && m.column < a.right() && m.row > a.y;
                if !inside || m.row >= a.bottom() {
                    return Outcome::Ignored;
                }
                let row = t.offset + usize::from(m.row - a.y - 1);
                if row >= t.len() {
                    return Outcome::Ignored;
                }
                t.selected = row;
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Changed
    }

    /// Handles a key of the [`Callers`] widget: Tab switches between callers and callees,
    /// arrows move in the pane. Other events are [`Outcome::Ignored`].
    pub fn handle_callers_event(&mut self, event: &Event) -> Outcome {
        let Some(s) = self.explorer.tools.sandwich.as_mut() else {
            return Outcome::Ignored;
        };
        let Event::Key(key) = event else {
            return Outcome::Ignored;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Ignored;
        }
        let dir = match key.code {
            KeyCode::Tab => {
                s.focus = 1 - s.focus.min(1);
                return Outcome::Changed;
            }
            KeyCode::Up => Dir::Up,
            KeyCode::Down => Dir::Down,
            KeyCode::Left => Dir::Left,
            KeyCode::Right => Dir::Right,
            _ => return Outcome::Ignored,
        };
        s.focused().step(dir);
        Outcome::Changed
    }

    /// The frame selected in the focused pane of [`Callers`], as shown.
    pub fn callers_selection(&self) -> Option<String> {
        let s = self.explorer.tools.sandwich.as_ref()?;
        s.panes[s.focus.min(1)].selected_name().map(str::to_owned)
    }

    /// The function selected in the table, as shown.
    pub fn table_selection(&self) -> Option<String> {
        let t = &self.explorer.tools.table;
        t.current().map(|n| self.explorer.shown(n).to_owned())
    }

    /// Does what `action` says.
    pub fn apply(&mut self, action: Action) -> Outcome {
        let before = self.explorer.selected;
        let ex = &mut self.explorer;
        match action {
            Action::Move(dir) => ex.move_selection(dir),
            Action::ZoomIn => ex.zoom_in(),
            Action::Back => ex.back(),
            Action::Forward => ex.forward(),
            Action::Reset => ex.reset(),
            Action::Flip => ex.flame = !ex.flame,
            Action::NextMatch(forward) => ex.jump(forward),
            Action::Scroll(rows) => ex.scroll_rows(rows),
        }
        self.settle();
        self.outcome(before)
    }

    /// Zooms into the selected frame.
    pub fn zoom_in(&mut self) -> Outcome {
        self.apply(Action::ZoomIn)
    }

    /// Back to the previous zoom.
    pub fn zoom_out(&mut self) -> Outcome {
        self.apply(Action::Back)
    }

    /// The whole graph again.
    pub fn reset(&mut self) -> Outcome {
        self.apply(Action::Reset)
    }

    /// Marks the frames whose name matches `regex` (as shown: demangled); an empty one
    /// clears the search. Returns how many frames match.
    ///
    /// # Errors
    /// The regex is not valid: why, in one line.
    pub fn search(&mut self, regex: &str, ignore_case: bool) -> Result<usize, String> {
        let s = &mut self.explorer.search;
        regex.clone_into(&mut s.query);
        s.ignore_case = ignore_case;
        self.explorer.run_search();
        self.settle();
        if let Some(e) = &self.explorer.search.error {
            return Err(e.clone());
        }
        Ok(self
            .explorer
            .search
            .matches
            .as_ref()
            .map_or(0, crate::view::search::Matches::len))
    }

    /// Selects the frame at `path` (names from the root, as read); false when there is
    /// none.
    pub fn select_path<S: AsRef<str>>(&mut self, path: &[S]) -> bool {
        let Some(id) = find_path(&self.explorer.profile.tree, path) else {
            return false;
        };
        self.explorer.selected = Target::Frame(id);
        self.settle();
        true
    }

    /// The selected frame's path from the root (empty at the root).
    pub fn selected_path(&self) -> Vec<String> {
        match self.explorer.selected {
            Target::Frame(id) => path_of(&self.explorer.profile, id),
            Target::Span { .. } => Vec::new(),
        }
    }

    /// The facts about the selection the viewer shows in its status line (name, weight,
    /// shares, library, …), for a host drawing its own side panel.
    pub fn tooltip(&self) -> Tooltip {
        self.explorer.describe(&self.explorer.selected)
    }

    /// Shows `profile` instead (live data), keeping the selection and the zoom where the
    /// same frame paths are still there.
    pub fn replace_profile(&mut self, profile: Profile) {
        let keep = |ex: &Explorer, id: NodeId| path_of(&ex.profile, id);
        let selected = match self.explorer.selected {
            Target::Frame(id) => Some(keep(&self.explorer, id)),
            Target::Span { .. } => None,
        };
        let zoom = (self.explorer.zoom.root != NodeId::ROOT)
            .then(|| keep(&self.explorer, self.explorer.zoom.root));
        let flame = self.explorer.flame;
        let search = (
            std::mem::take(&mut self.explorer.search.query),
            self.explorer.search.ignore_case,
        );
        let areas = self.explorer.areas;
        self.explorer = Explorer::new(profile);
        self.explorer.flame = flame;
        self.explorer.areas = areas;
        if let Some(path) = zoom
            && self.select_path(&path)
        {
            self.explorer.zoom_in();
        }
        if let Some(path) = selected {
            self.select_path(&path);
        }
        if !search.0.is_empty() {
            let _ = self.search(&search.0, search.1);
        }
        // A baseline's colours were of the old tree.
        self.baseline = None;
        self.settle();
    }

    /// Colours frames by their change from `baseline` (red grew, blue shrank, in
    /// percentage points of each total), as the viewer's differential view; `None` goes
    /// back to colours by name.
    pub fn set_baseline(&mut self, baseline: Option<&Profile>) {
        self.baseline = baseline.map(|b| {
            let points = points_by_node(&self.explorer.profile.tree, &b.tree, true);
            let max = points.iter().fold(0.0_f64, |m, p| m.max(p.abs()));
            (points, max)
        });
    }

    /// Lays the graph out in `area` (the inner area of the block).
    fn place(&mut self, area: Rect) {
        if self.explorer.areas.graph != area {
            self.explorer.areas = Areas {
                graph: area,
                ..Areas::default()
            };
        }
        self.settle();
    }

    /// Brings layout and selection in step with the state.
    fn settle(&mut self) {
        let areas = self.explorer.areas;
        self.explorer.refresh_in(areas);
    }

    fn outcome(&self, before: Target) -> Outcome {
        if self.explorer.selected == before {
            Outcome::Changed
        } else {
            Outcome::Selected(self.selected_path())
        }
    }
}

/// The explorer behind the graph: the full-screen viewer holds its graph as a
/// [`FlameState`] and reaches the rest of its screens through it.
impl std::ops::Deref for FlameState {
    type Target = Explorer;

    fn deref(&self) -> &Explorer {
        &self.explorer
    }
}

impl std::ops::DerefMut for FlameState {
    fn deref_mut(&mut self) -> &mut Explorer {
        &mut self.explorer
    }
}

impl From<Explorer> for FlameState {
    fn from(explorer: Explorer) -> Self {
        Self {
            explorer,
            keymap: KeyMap::default(),
            table_area: Rect::default(),
            baseline: None,
        }
    }
}

/// The names of frame `id`'s path from the root.
fn path_of(profile: &Profile, id: NodeId) -> Vec<String> {
    path_names(&profile.tree, id)
        .into_iter()
        .map(str::to_owned)
        .collect()
}
