//! Stage: application state — one loaded profile being explored: zoom history, selection,
//! scroll and search, plus the layout, screen areas and status text that `update` keeps in
//! step with them, so that drawing only reads.

use std::sync::Arc;

use ratatui::layout::Rect;

use super::mode::{Mode, Size};
use super::search::state::SearchState;
use crate::profile::NameId;
use crate::profile::Profile;
use crate::profile::functions::{FunctionTotals, function_totals, function_totals_in};
use crate::profile::scope::{is_halved, unit_scopes};
use crate::profile::threads::spawn_or_run;
use crate::profile::{CallTree, NodeId};
use crate::view::layout::extend;
use crate::view::names::{NameStyle, NameTable};
use crate::view::tooltip::{Context, TipLine, Tooltip};
use crate::view::{FrameLayout, Target, TreeIndex, Viewport, layout};

/// Where each part of the screen goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    /// File, format, total, breadcrumbs.
    pub header: Rect,
    /// The timeline strip under the header (empty without timestamps, on the heat map
    /// and on short screens).
    pub strip: Rect,
    /// The flame graph.
    pub graph: Rect,
    /// Facts about the selection.
    pub status: Rect,
    /// Search results (empty when there is no search).
    pub search: Rect,
    /// Key hints or the search prompt.
    pub footer: Rect,
}

impl Areas {
    /// Everything between header and footer (graph, status, search line): where popups go,
    /// so that they fit on short screens too.
    pub fn body(&self) -> Rect {
        [self.graph, self.status, self.search]
            .into_iter()
            .filter(|r| !r.is_empty())
            .reduce(Rect::union)
            .unwrap_or_default()
    }
}

/// The mouse is over a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    /// Mouse column.
    pub x: u16,
    /// Mouse row.
    pub y: u16,
    /// The cell under it.
    pub target: Target,
    /// Its tooltip.
    pub tip: Tooltip,
}

/// A loaded profile on screen.
#[derive(Debug)]
pub struct Explorer {
    /// The profile shown, shared: when the view is the profile as read, it is the original
    /// too, which a background recomputation reads while keys keep reading this one.
    pub profile: Arc<Profile>,
    /// Offsets and heights of its frames.
    pub index: TreeIndex,
    /// Per-function totals, indexed by name.
    pub functions: Vec<FunctionTotals>,
    /// For on/off-CPU input, each half with the function totals within it (the finder
    /// shows a share per half, since the units differ); empty otherwise.
    pub half_functions: Vec<(NodeId, Vec<FunctionTotals>)>,
    /// Root at the bottom (flame) instead of on top (icicle).
    pub flame: bool,
    /// What fills the width.
    pub zoom: Viewport,
    /// Earlier zooms.
    pub back: Vec<Viewport>,
    /// Zooms undone with back.
    pub forward: Vec<Viewport>,
    /// The selection.
    pub selected: Target,
    /// The cell showing the selection, as (depth, index in row).
    pub selected_cell: Option<(u32, usize)>,
    /// The cell under the mouse.
    pub hover: Option<Hover>,
    /// First depth shown on the root side of the graph.
    pub scroll: u32,
    /// The search.
    pub search: SearchState,
    /// Cells of the visible rows.
    pub layout: FrameLayout,
    /// Screen areas.
    pub areas: Areas,
    /// Status lines about the selection, wrapped.
    pub status: Vec<TipLine>,
    /// Function table, finder, callers / callees, transforms, prompt and messages.
    pub tools: super::state::Tools,
    /// The last action scrolled the graph itself (wheel, page, top / bottom): a selection
    /// scrolled out of view follows onto the screen, rather than the screen onto it.
    pub(crate) scrolled: bool,
    /// The names as shown (demangled, shortened), beside the tree's own.
    pub names: NameTable,
    /// Frames are coloured by their library, not their name (the app's `C`).
    pub library_colors: bool,
    layout_rows: u32,
}

/// Screens at least this tall show the timeline strip (when the input has timestamps).
const STRIP_FROM_HEIGHT: u16 = 16;

/// Trees with this many nodes are indexed and totalled on two threads.
const PARALLEL_NODES: usize = 200_000;

/// Function totals within each half of on/off-CPU input (none for other input).
pub fn half_function_totals(tree: &CallTree) -> Vec<(NodeId, Vec<FunctionTotals>)> {
    if !is_halved(tree) {
        return Vec::new();
    }
    unit_scopes(tree)
        .into_iter()
        .map(|h| (h, function_totals_in(tree, h)))
        .collect()
}

impl Explorer {
    /// Starts on the whole graph with the root selected.
    pub fn new(profile: Profile) -> Self {
        Self::shared(Arc::new(profile))
    }

    /// As [`Explorer::new`], on a profile that may be shared (with a job, or as the
    /// original of a view).
    pub fn shared(profile: Arc<Profile>) -> Self {
        let tree = &profile.tree;
        // Two passes over the whole tree: side by side when it is large (a third of the
        // time of a view change on 3 M nodes), in turn otherwise.
        let (index, (functions, half_functions)) = if tree.len() >= PARALLEL_NODES {
            std::thread::scope(|s| {
                let totals =
                    spawn_or_run(s, || (function_totals(tree), half_function_totals(tree)));
                let index = TreeIndex::new(tree);
                (index, totals.join())
            })
        } else {
            let index = TreeIndex::new(tree);
            (index, (function_totals(tree), half_function_totals(tree)))
        };
        let zoom = Viewport::whole(&index);
        let layout = layout(&profile.tree, &index, &zoom, 0, 0);
        let names = NameTable::new(profile.tree.names(), NameStyle::default());
        Self {
            profile,
            index,
            functions,
            half_functions,
            flame: false,
            zoom,
            back: Vec::new(),
            forward: Vec::new(),
            selected: Target::Frame(crate::profile::NodeId::ROOT),
            selected_cell: None,
            hover: None,
            scroll: 0,
            search: SearchState::default(),
            layout,
            areas: Areas::default(),
            status: Vec::new(),
            tools: super::state::Tools::default(),
            scrolled: false,
            names,
            library_colors: false,
            layout_rows: 0,
        }
    }

    /// The shown text of name `id` of the tree (demangled, maybe shortened).
    pub fn shown(&self, id: NameId) -> &str {
        self.names.resolve(self.profile.tree.names(), id)
    }

    /// The shown text of frame `id`'s name.
    pub fn shown_frame(&self, id: NodeId) -> &str {
        self.shown(self.profile.tree.node(id).name)
    }

    /// The whole name of `id` in the style shown, never shortened: what `y` copies.
    pub fn full_name(&self, id: NameId) -> std::borrow::Cow<'_, str> {
        self.names
            .style()
            .full(self.profile.tree.names().resolve(id))
    }

    /// Shows names in `style` from now on (the search runs again on the new text).
    pub fn restyle(&mut self, style: NameStyle) {
        if self.names.style() != style {
            self.names = NameTable::new(self.profile.tree.names(), style);
            self.run_search();
            if self.tools.screen == super::state::Screen::Table {
                self.tools.rebuilt();
            }
        }
    }

    /// The facts about a target.
    pub fn describe(&self, target: &Target) -> Tooltip {
        let cx = Context {
            profile: &self.profile,
            index: &self.index,
            functions: &self.functions,
            viewport: &self.zoom,
            names: &self.names,
        };
        crate::view::tooltip::describe(&cx, target)
    }

    /// Brings layout, areas, status and selection in step with the state; called after
    /// every action.
    pub fn refresh(&mut self, size: Size, mode: Mode) {
        self.sync_tools();
        // The status area's height follows the selection, and the graph's height the
        // status: place again until the selection stays (a scrolled-away selection moves
        // once, a normalised one once more at most).
        for _ in 0..3 {
            self.place(size, mode);
            self.relayout();
            self.clamp_scroll();
            self.relayout();
            let normalized = self.normalize_selection();
            if !self.keep_selection_in_view() && !normalized {
                break;
            }
        }
        self.selected_cell = self.layout.locate(&self.index, &self.selected);
        self.place_tools();
    }

    /// As [`Explorer::refresh`], with the screen areas given (a compare pane): the caller
    /// owns the status lines.
    pub(crate) fn refresh_in(&mut self, areas: Areas) {
        self.areas = areas;
        for _ in 0..3 {
            self.relayout();
            self.clamp_scroll();
            self.relayout();
            let normalized = self.normalize_selection();
            if !self.keep_selection_in_view() && !normalized {
                break;
            }
        }
        self.selected_cell = self.layout.locate(&self.index, &self.selected);
    }

    fn place(&mut self, size: Size, mode: Mode) {
        let (w, h) = (size.width, size.height);
        let max_status = usize::from((h / 3).max(2));
        self.status = self.status_tip().lines(usize::from(w), max_status);
        let status_h = u16::try_from(self.status.len()).unwrap_or(0);
        let search_h = u16::from(
            mode == Mode::Search || self.search.is_active() || self.tools.message.is_some(),
        );
        let footer = Rect::new(0, h.saturating_sub(1), w, h.min(1));
        let search = Rect::new(0, footer.y.saturating_sub(search_h), w, search_h);
        let status = Rect::new(0, search.y.saturating_sub(status_h), w, status_h);
        let header = Rect::new(0, 0, w, h.min(1));
        let timed = self.original().samples.has_timeline()
            && self.tools.screen != super::state::Screen::Heat
            && h >= STRIP_FROM_HEIGHT;
        let strip = Rect::new(0, header.bottom(), w, u16::from(timed));
        let graph_h = status.y.saturating_sub(strip.bottom());
        let graph = Rect::new(0, strip.bottom(), w, graph_h);
        if timed {
            self.place_strip(w);
        }
        self.areas = Areas {
            header,
            strip,
            graph,
            status,
            search,
            footer,
        };
    }

    /// Lays out the rows on screen (and one more, for moving down), if anything changed:
    /// anew for another zoom or width, else only the rows the layout lacks (a status line
    /// more or less moves the graph's bottom; extra rows laid out do no harm).
    pub(crate) fn relayout(&mut self) {
        let rows = self.scroll + u32::from(self.areas.graph.height) + 1;
        let tree = &self.profile.tree;
        let same = self.layout.viewport == self.zoom && self.layout.width == self.areas.graph.width;
        if !same {
            self.layout = layout(tree, &self.index, &self.zoom, self.areas.graph.width, rows);
            self.layout_rows = rows;
        } else if rows > self.layout_rows {
            extend(&mut self.layout, tree, &self.index, rows);
            self.layout_rows = rows;
        }
    }

    fn clamp_scroll(&mut self) {
        let max = self
            .layout
            .total_rows()
            .saturating_sub(u32::from(self.areas.graph.height));
        self.scroll = self.scroll.min(max);
    }

    /// Keeps the selection on something drawn: a group selection follows the cell that now
    /// shows it; a selection outside the zoom falls back to the zoomed frame.
    fn normalize_selection(&mut self) -> bool {
        let (lo, hi) = self.selected.interval(&self.index);
        let next = if self.zoom.overlaps(lo, hi) {
            match self.selected {
                Target::Frame(_) => self.selected,
                // At another width the group may start later, or its frames stand
                // alone: the first cell over it, else the frame holding it.
                Target::Span { depth, lo, hi } => self
                    .layout
                    .locate(&self.index, &self.selected)
                    .and_then(|(d, i)| self.layout.row(d)?.cells.get(i))
                    .or_else(|| {
                        self.layout.row(depth)?.cells.iter().find(|c| {
                            let (s, e) = c.interval(&self.index);
                            s < hi && lo < e
                        })
                    })
                    .map_or_else(
                        || {
                            let vp = Viewport::span(&self.profile.tree, &self.index, depth, lo, hi);
                            Target::Frame(vp.root)
                        },
                        |c| c.target(depth),
                    ),
            }
        } else {
            Target::Frame(self.zoom.root)
        };
        let changed = next != self.selected;
        self.selected = next;
        changed
    }

    /// Keeps the selected frame on a row drawn, once the graph area is known: scrolls to
    /// it, or, when the user scrolled it out of view, selects the cell of the edge row
    /// nearest to it. True when the selection changed (the status must be placed again).
    fn keep_selection_in_view(&mut self) -> bool {
        let scrolled = std::mem::take(&mut self.scrolled);
        let h = self.graph_rows();
        let depth = self.selected.depth(&self.index);
        if h == 0 || (self.scroll..self.scroll + h).contains(&depth) {
            return false;
        }
        let edge = if depth < self.scroll {
            self.scroll
        } else {
            self.scroll + h - 1
        };
        if scrolled && let Some(t) = self.nearest_cell(edge) {
            self.selected = t;
            return true;
        }
        self.ensure_visible(depth);
        self.relayout();
        false
    }

    /// The cell of row `depth` whose weight interval is nearest the selection's.
    fn nearest_cell(&self, depth: u32) -> Option<Target> {
        let (lo, _) = self.selected.interval(&self.index);
        let pos = lo.clamp(self.zoom.lo, self.zoom.hi);
        let cells = &self.layout.row(depth)?.cells;
        let distance = |c: &&crate::view::Cell| {
            let (s, e) = c.interval(&self.index);
            if pos < s {
                s - pos
            } else {
                pos.saturating_sub(e.saturating_sub(1))
            }
        };
        cells.iter().min_by_key(distance).map(|c| c.target(depth))
    }

    /// Rows the graph area shows.
    pub fn graph_rows(&self) -> u32 {
        u32::from(self.areas.graph.height)
    }

    /// Screen row of a depth, if it is on screen.
    pub fn screen_y(&self, depth: u32) -> Option<u16> {
        let g = self.areas.graph;
        let off = depth.checked_sub(self.scroll)?;
        let off = u16::try_from(off).ok().filter(|&o| o < g.height)?;
        Some(if self.flame {
            g.bottom() - 1 - off
        } else {
            g.y + off
        })
    }

    /// Depth shown on a screen row.
    pub fn depth_at(&self, y: u16) -> Option<u32> {
        let g = self.areas.graph;
        if y < g.y || y >= g.bottom() {
            return None;
        }
        let off = if self.flame {
            g.bottom() - 1 - y
        } else {
            y - g.y
        };
        Some(self.scroll + u32::from(off))
    }

    /// Hit-testing: the target under a screen position.
    pub fn hit(&self, x: u16, y: u16) -> Option<Target> {
        let g = self.areas.graph;
        if x < g.x || x >= g.right() {
            return None;
        }
        let depth = self.depth_at(y)?;
        let (_, cell) = self.layout.cell_at(depth, x - g.x)?;
        Some(cell.target(depth))
    }

    /// Scrolls so that `depth` is on screen.
    pub(crate) fn ensure_visible(&mut self, depth: u32) {
        let h = self.graph_rows().max(1);
        if depth < self.scroll {
            self.scroll = depth;
        } else if depth >= self.scroll + h {
            self.scroll = depth + 1 - h;
        }
    }
}
