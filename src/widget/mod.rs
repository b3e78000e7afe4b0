//! Stage: library — the flame graph as a ratatui widget another terminal program embeds.
//!
//! [`FlameGraph`] is a [`StatefulWidget`] configured per frame (a block around it, icicle
//! or flame, colours, a [`Theme`] for the selection and the matches); [`FlameState`] is what the host keeps between frames: the profile,
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

use crossterm::event::{Event, KeyEventKind, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, StatefulWidget, Widget};

use crate::app::explorer::{Areas, Explorer};
pub use crate::app::mode::Dir;
use crate::profile::diff::{find_path, path_names, points_by_node};
use crate::profile::{NodeId, Profile};
use crate::view::Target;
pub use crate::view::color::{ColorMode, Theme};
use crate::view::delta::Paint;
pub use crate::view::tooltip::Tooltip;
pub use callers::Callers;
pub use heat::HeatMap;
pub use keymap::{Action, KeyMap};
pub use table::FunctionTable;
pub use tasks::TaskList;

mod callers;
mod heat;
pub(crate) mod keymap;
mod table;
mod tasks;

/// The flame graph, configured per frame; its state is a [`FlameState`].
#[derive(Debug, Clone)]
pub struct FlameGraph<'a> {
    block: Option<Block<'a>>,
    colors: ColorMode,
    theme: Theme,
    flame: Option<bool>,
}

impl Default for FlameGraph<'_> {
    /// No block, 24-bit colours, the state's orientation (icicle at first).
    fn default() -> Self {
        Self {
            block: None,
            colors: ColorMode::TrueColor,
            theme: Theme::default(),
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

    /// How the selection and the search's matches are marked (the viewer's by default).
    #[must_use]
    pub fn theme(mut self, theme: Theme) -> Self {
        self.theme = theme;
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
        let inner = framed(self.block.as_ref(), area, buf);
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
            Some(b) => Paint::Delta(&b.points, b.max),
            None => Paint::Names,
        };
        crate::ui::flame::render_with(&state.explorer, (self.colors, &self.theme), paint, buf);
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
    /// The event was the widget's, and could not be done: why, to show the user.
    Refused(String),
}

/// What the host keeps of a [`FlameGraph`] between frames.
#[derive(Debug)]
pub struct FlameState {
    pub(super) explorer: Explorer,
    keymap: KeyMap,
    /// Where the function table was last drawn.
    pub(super) table_area: Rect,
    /// The view of the recording shown: its time range (from the heat map).
    pub(super) view: crate::app::transforms::state::TransformStack,
    /// Differential colours against a baseline.
    baseline: Option<Baseline>,
}

/// A baseline's tree, and the change of each node of the graph's tree from it.
#[derive(Debug)]
struct Baseline {
    tree: crate::profile::CallTree,
    /// Percentage points per node of the shown tree (by `NodeId`): of the tree they
    /// were computed for, so computed again whenever the graph's tree changes.
    points: Vec<f64>,
    /// The largest change, which gets the full colour.
    max: f64,
}

impl Baseline {
    fn of(tree: crate::profile::CallTree, shown: &crate::profile::CallTree) -> Self {
        let points = points_by_node(shown, &tree, true);
        let max = points.iter().fold(0.0_f64, |m, p| m.max(p.abs()));
        Self { tree, points, max }
    }
}

impl FlameState {
    /// A graph of `profile`, whole, nothing selected.
    #[must_use]
    pub fn new(profile: Profile) -> Self {
        Explorer::new(profile).into()
    }

    /// The profile shown.
    pub fn profile(&self) -> &Profile {
        &self.explorer.profile
    }

    /// The keys, to change.
    pub fn keymap_mut(&mut self) -> &mut KeyMap {
        &mut self.keymap
    }

    /// Handles a terminal event: a key of the [`KeyMap`], a click (select), the wheel
    /// (scroll). Mouse events outside the graph's last area, key releases and unbound keys
    /// are [`Outcome::Ignored`].
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

    /// Does what `action` says.
    pub fn apply(&mut self, action: Action) -> Outcome {
        let before = self.explorer.selected;
        keymap::perform(&mut self.explorer, action);
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
        // A time range of the old recording means nothing in the new one.
        self.view = crate::app::transforms::state::TransformStack::default();
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
        self.baseline = baseline.map(|b| Baseline::of(b.tree.clone(), &self.explorer.profile.tree));
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

    /// Shows the view of the recording (its time range and tasks) in the graph.
    pub(super) fn apply_view(&mut self) {
        let view = self.view.clone();
        self.explorer.apply_view(&view);
        // The baseline's colours are by node of the tree shown, which is another now.
        if let Some(b) = self.baseline.take() {
            self.baseline = Some(Baseline::of(b.tree, &self.explorer.profile.tree));
        }
        self.settle();
    }

    /// Brings layout and selection in step with the state.
    pub(super) fn settle(&mut self) {
        let areas = self.explorer.areas;
        self.explorer.refresh_in(areas);
    }

    pub(super) fn outcome(&self, before: Target) -> Outcome {
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
            view: crate::app::transforms::state::TransformStack::default(),
            baseline: None,
        }
    }
}

/// Draws `block` (if any) around `area`, clipped to the buffer, and gives what is inside.
fn framed(block: Option<&Block<'_>>, area: Rect, buf: &mut Buffer) -> Rect {
    let area = area.intersection(buf.area);
    match block {
        Some(block) => {
            let inner = block.inner(area);
            block.render(area, buf);
            inner
        }
        None => area,
    }
}

/// The names of frame `id`'s path from the root.
fn path_of(profile: &Profile, id: NodeId) -> Vec<String> {
    path_names(&profile.tree, id)
        .into_iter()
        .map(str::to_owned)
        .collect()
}
