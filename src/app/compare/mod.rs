//! Stage: application state — two profiles compared. One [`Explorer`] per side. Keys go to
//! one of them, the *driver*: the active pane side by side, and the same side gives the
//! differential graph its shape (so switching views keeps the selection). The other side
//! follows the driver by stack *path* (names from the root, never node ids): zoom,
//! selection, scroll, orientation and search. When the selected path does not exist on the
//! other side, that is recorded so the screen can say so.
//!
//! ```text
//! Action ─▶ Compare::apply ─▶ view keys, delta table, mouse
//!                          ─▶ graph keys: explore::explore(driver)
//!        ─▶ Compare::refresh ─▶ areas ─▶ driver layout ─▶ follow (other side, by path)
//!                            ─▶ status: both sides' weights, shares, Δ pp, self
//! ```

mod export;
mod facts;
pub mod finder;
mod follow;
pub(crate) mod keys;
mod live;
mod place;
mod table;
pub mod transforms;

use std::sync::Arc;

use ratatui::layout::Rect;

use self::place::pick;
pub use self::table::DeltaTable;
use super::explore::explore;
use super::explorer::{Explorer, Hover};
use super::transforms::TransformStack;
use super::{Action, Dir, Mode, Size};
use crate::profile::diff::{function_deltas, points_by_node};
use crate::profile::{CallTree, NodeId, Profile};
use crate::view::Target;
use crate::view::delta::Paint;
use crate::view::tooltip::TipLine;

/// Width from which side-by-side panes are left and right instead of top and bottom.
pub const WIDE: u16 = 160;
/// Columns of a pane's label (` BEFORE `).
pub const LABEL_WIDTH: u16 = 9;
/// Columns of the note that the selection is not in a pane's profile.
pub const NOTE_WIDTH: u16 = 18;
/// Lines of facts about the selection (fewer on short screens).
pub const STATUS_LINES: u16 = 4;

/// One of the two profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first profile (the baseline).
    Before,
    /// The second profile.
    After,
}

impl Side {
    /// The other profile.
    #[must_use]
    pub fn other(self) -> Self {
        match self {
            Side::Before => Side::After,
            Side::After => Side::Before,
        }
    }

    /// `BEFORE` or `AFTER`.
    pub fn label(self) -> &'static str {
        match self {
            Side::Before => "BEFORE",
            Side::After => "AFTER",
        }
    }

    fn index(self) -> usize {
        match self {
            Side::Before => 0,
            Side::After => 1,
        }
    }

    /// Both sides, BEFORE first.
    pub const BOTH: [Side; 2] = [Side::Before, Side::After];
}

/// What compare mode shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Two panes, each drawn from its own profile.
    SideBySide,
    /// One graph coloured by change of share.
    Differential,
    /// Functions sorted by change of share.
    Table,
}

impl View {
    /// All views, in the order `v` cycles them.
    pub const ALL: [View; 3] = [View::SideBySide, View::Differential, View::Table];

    /// Name shown in the header.
    pub fn title(self) -> &'static str {
        match self {
            View::SideBySide => "side by side",
            View::Differential => "differential",
            View::Table => "delta table",
        }
    }

    fn next(self) -> Self {
        match self {
            View::SideBySide => View::Differential,
            View::Differential => View::Table,
            View::Table => View::SideBySide,
        }
    }
}

/// Screen areas of compare mode beyond those of each side's explorer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompareAreas {
    /// Top line: the two files and the views.
    pub header: Rect,
    /// Each pane's label, by side (empty when the pane is not drawn).
    pub labels: [Rect; 2],
    /// Each pane's "not in …" note, by side (empty unless the selection is missing there).
    pub notes: [Rect; 2],
    /// The column between left and right panes (empty otherwise).
    pub divider: Rect,
    /// The delta table.
    pub table: Rect,
    /// Where the panes or the table go.
    pub region: Rect,
    /// Everything between the top line and the footer: where the finder popup goes.
    pub body: Rect,
}

/// Two profiles on screen.
#[derive(Debug)]
pub struct Compare {
    /// The BEFORE profile.
    pub before: Explorer,
    /// The AFTER profile.
    pub after: Explorer,
    /// The view on screen.
    pub view: View,
    /// The graph view the table returns to.
    pub graph_view: View,
    /// The side keys go to: the active pane side by side, the shape of the differential
    /// graph (BEFORE's shape shows the frames that vanished).
    pub active: Side,
    /// Δ share in pp per node of each side's tree (by [`Side`] index).
    points: [Vec<f64>; 2],
    /// Largest |Δ| of any frame, which gets the full colour.
    pub max_points: f64,
    /// Functions sorted by change.
    pub table: DeltaTable,
    /// The fuzzy finder, while open.
    pub finder: Option<finder::CompareFinder>,
    /// The side where the selected path does not exist, if any.
    pub missing: Option<Side>,
    /// Screen areas.
    pub areas: CompareAreas,
    /// Facts about the selection (both sides), wrapped.
    pub status: Vec<TipLine>,
    /// The cell under the mouse, with its two-sided tooltip.
    pub hover: Option<Hover>,
    size: Size,
    /// Both profiles as read, once transforms have been applied to them.
    originals: Option<(Arc<Profile>, Arc<Profile>)>,
    /// The view both sides are shown through.
    applied: TransformStack,
    /// For two ranges of one recording: the explorer and view to go back to (`T`).
    pub home: Option<Home>,
}

/// Where a comparison of two ranges of one recording came from.
#[derive(Debug)]
pub struct Home {
    /// The explorer of the recording, on its heat map.
    pub explorer: Box<crate::widget::FlameState>,
    /// Its view (with its slice).
    pub view: TransformStack,
}

impl Compare {
    /// Starts side by side on the whole graphs, keys in the AFTER pane.
    pub fn new(before: Profile, after: Profile) -> Self {
        Self::shared(Arc::new(before), Arc::new(after))
    }

    /// As [`Compare::new`], on profiles that may be shared (with their originals).
    pub fn shared(before: Arc<Profile>, after: Arc<Profile>) -> Self {
        let points = [
            points_by_node(&before.tree, &after.tree, false),
            points_by_node(&after.tree, &before.tree, true),
        ];
        let max_points = points.iter().flatten().fold(0.0_f64, |m, p| m.max(p.abs()));
        let table = DeltaTable::new(function_deltas(&before.tree, &after.tree));
        Self {
            before: Explorer::shared(before),
            after: Explorer::shared(after),
            view: View::SideBySide,
            graph_view: View::SideBySide,
            active: Side::After,
            points,
            max_points,
            table,
            finder: None,
            missing: None,
            areas: CompareAreas::default(),
            status: Vec::new(),
            hover: None,
            size: Size::default(),
            originals: None,
            applied: TransformStack::default(),
            home: None,
        }
    }

    /// One side's explorer.
    pub fn side(&self, side: Side) -> &Explorer {
        match side {
            Side::Before => &self.before,
            Side::After => &self.after,
        }
    }

    fn side_mut(&mut self, side: Side) -> &mut Explorer {
        match side {
            Side::Before => &mut self.before,
            Side::After => &mut self.after,
        }
    }

    /// The side keys go to: the active pane side by side, the shape of the differential
    /// graph.
    pub fn driver_side(&self) -> Side {
        self.active
    }

    /// The explorer keys go to.
    pub fn driver(&self) -> &Explorer {
        self.side(self.driver_side())
    }

    /// The explorer keys go to, to change.
    pub(crate) fn driver_mut(&mut self) -> &mut Explorer {
        self.side_mut(self.driver_side())
    }

    /// How the differential graph is painted: Δ pp per node of the driver's tree.
    pub fn paint(&self) -> Paint<'_> {
        Paint::Delta(&self.points[self.driver_side().index()], self.max_points)
    }

    /// Δ share in pp of a node of one side's tree (by path, against the other side).
    pub fn points_at(&self, side: Side, id: NodeId) -> f64 {
        self.points[side.index()]
            .get(id.0 as usize)
            .copied()
            .unwrap_or(0.0)
    }

    /// Sides whose graph is on screen.
    pub fn panes(&self) -> Vec<Side> {
        match self.view {
            View::SideBySide => Side::BOTH.to_vec(),
            View::Differential => vec![self.driver_side()],
            View::Table => Vec::new(),
        }
    }

    /// Applies one action.
    pub fn apply(&mut self, mode: &mut Mode, action: &Action) {
        if !matches!(action, Action::Hover(..)) {
            self.hover = None;
            // A message (copied, not available) lasts until the next key, whichever view
            // or side it goes to.
            self.before.tools.message = None;
            self.after.tools.message = None;
        }
        match *action {
            Action::CycleView => {
                self.view = self.view.next();
                if self.view != View::Table {
                    self.graph_view = self.view;
                }
            }
            Action::SwitchPane | Action::SwapShape if self.view != View::Table => {
                self.active = self.active.other();
            }
            Action::ShowInGraph => self.show_in_graph(mode),
            Action::Hover(x, y) => self.hover_at(x, y),
            Action::Click(_, y) | Action::DoubleClick(_, y) if self.view == View::Table => {
                let double = matches!(action, Action::DoubleClick(..));
                if self.table.click(self.areas.table, y) && double {
                    self.show_in_graph(mode);
                }
            }
            Action::Click(x, y) | Action::DoubleClick(x, y) => {
                if let Some(side) = self.pane_at(x, y)
                    && self.view == View::SideBySide
                {
                    self.active = side;
                }
                explore(self.driver_mut(), mode, action);
            }
            _ if self.view == View::Table => self.apply_table(mode, action),
            Action::NextMatch | Action::PrevMatch => {
                if self.only_other_matches() {
                    self.switch_driver();
                }
                explore(self.driver_mut(), mode, action);
            }
            _ => explore(self.driver_mut(), mode, action),
        }
    }

    /// True when the search matches frames of the other side only.
    pub fn only_other_matches(&self) -> bool {
        let d = self.driver_side();
        let found = |s: Side| {
            self.side(s)
                .search
                .matches
                .as_ref()
                .is_some_and(|m| !m.is_empty())
        };
        !found(d) && found(d.other())
    }

    /// Keys go to the other side from now on: the other pane, or the other shape.
    fn switch_driver(&mut self) {
        self.active = self.active.other();
    }

    fn apply_table(&mut self, mode: &mut Mode, action: &Action) {
        let page = isize::try_from(self.areas.table.height.saturating_sub(2).max(1)).unwrap_or(1);
        match *action {
            Action::Move(Dir::Up) => self.table.step(-1),
            Action::Move(Dir::Down) => self.table.step(1),
            Action::Scroll(rows) => self.table.step(rows as isize),
            Action::PageUp => self.table.step(-page),
            Action::PageDown => self.table.step(page),
            Action::Top => self.table.step(isize::MIN / 2),
            Action::Bottom => self.table.step(isize::MAX / 2),
            Action::Escape if self.driver().search.is_active() => {
                self.driver_mut().search.clear();
            }
            Action::Escape => self.view = self.graph_view,
            Action::SearchStart
            | Action::SearchType(_)
            | Action::Paste(_)
            | Action::SearchDelete
            | Action::SearchAccept
            | Action::SearchCancel
            | Action::SearchRecall(_)
            | Action::ToggleCase => explore(self.driver_mut(), mode, action),
            _ => {}
        }
    }

    /// Back to the graph with the table's function selected (its heaviest frame) and all its
    /// frames highlighted; on the other side when the driver's profile lacks it.
    fn show_in_graph(&mut self, mode: &mut Mode) {
        if let Some(name) = self.table.current().map(|r| r.name.clone()) {
            self.show_function(&name, mode);
        }
    }

    /// Back to the graph view, on the side that has the function (the one keys go to when
    /// both have it), with its frames highlighted and its heaviest frame selected.
    fn show_function(&mut self, name: &str, mode: &mut Mode) {
        self.view = self.graph_view;
        let d = self.driver_side();
        if heaviest(&self.side(d).profile.tree, name).is_none() {
            self.switch_driver();
        }
        *mode = Mode::Normal;
        // Lay the graph view out first, so that revealing the frame knows the width.
        self.refresh(self.size, mode);
        let ex = self.driver_mut();
        // The search matches the names as shown.
        let shown = ex.names.style().apply(name).into_owned();
        ex.search.query = format!("^{}$", regex::escape(&shown));
        ex.search.ignore_case = false;
        ex.run_search();
        if let Some(id) = heaviest(&ex.profile.tree, name) {
            ex.select(Target::Frame(id));
            ex.reveal(id);
        }
    }

    /// The side whose graph is under a screen position.
    fn pane_at(&self, x: u16, y: u16) -> Option<Side> {
        self.panes()
            .into_iter()
            .find(|&s| self.side(s).areas.graph.contains((x, y).into()))
    }

    fn hover_at(&mut self, x: u16, y: u16) {
        self.hover = self.pane_at(x, y).and_then(|side| {
            let target = self.side(side).hit(x, y)?;
            Some(Hover {
                x,
                y,
                tip: self.describe(side, &target),
                target,
            })
        });
    }

    /// Brings both sides, the areas and the status in step with the state; called after
    /// every action. The mode follows the view (the table has keys of its own).
    pub fn refresh(&mut self, size: Size, mode: &mut Mode) {
        self.size = size;
        match (self.view, *mode) {
            (View::Table, Mode::Normal) => *mode = Mode::DeltaTable,
            (View::SideBySide | View::Differential, Mode::DeltaTable) => *mode = Mode::Normal,
            _ => {}
        }
        let search = &self.driver().search;
        let (query, ignore_case) = (search.query.clone(), search.ignore_case);
        self.table.filter(&query, ignore_case);
        let d = self.driver_side();
        let mut areas = self.place(*mode);
        for _ in 0..2 {
            let selected = self.driver().selected;
            let [own, _] = pick(&areas, d);
            self.driver_mut().refresh_in(own);
            if self.driver().selected == selected {
                break;
            }
            areas = self.place(*mode);
        }
        self.follow();
        let [_, other] = pick(&areas, d);
        let passive = self.side_mut(d.other());
        passive.refresh_in(other);
        if self.missing == Some(d.other()) {
            self.side_mut(d.other()).selected_cell = None;
        }
        let rows = usize::from(self.areas.table.height.saturating_sub(1));
        self.table.scroll_to_selection(rows);
        if let Some(f) = self.finder.as_mut() {
            f.state
                .scroll_into_view(crate::app::finder::state::list_rows(self.areas.body));
        }
        let status = self.status.clone();
        self.driver_mut().status = status;
    }
}

/// The heaviest frame of the function called `name`.
pub fn heaviest(tree: &CallTree, name: &str) -> Option<NodeId> {
    let want = tree.names().lookup(name)?;
    tree.ids()
        .skip(1)
        .filter(|&id| tree.node(id).name == want && tree.node(id).total > 0)
        .fold(None, |best: Option<NodeId>, id| match best {
            Some(b) if tree.node(b).total >= tree.node(id).total => Some(b),
            _ => Some(id),
        })
}

#[cfg(test)]
mod prompt_tests;
#[cfg(test)]
mod tests;
