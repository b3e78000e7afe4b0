//! Stage: application state — one graph action on one explorer: move, zoom, search, click.
//! The comparison applies it to the pane in use.

use super::explorer::Explorer;
use super::{Action, Mode};
use crate::widget::keymap::{Action as GraphAction, perform};

/// What a paste outside a prompt says (it is not taken as keys).
const NOTHING_TO_PASTE_INTO: &str = "Nothing to paste into: / opens the search prompt";

/// Applies a graph action to one explorer (compare mode applies it to the pane in use).
pub(crate) fn explore(ex: &mut Explorer, mode: &mut Mode, action: &Action) {
    if super::tools::intercept(ex, mode, action) {
        return;
    }
    if !matches!(action, Action::Hover(..)) {
        ex.hover = None;
        ex.tools.message = None;
    }
    // The graph's own actions are the widget's: one implementation for both.
    if let Some(graph) = GraphAction::of(action) {
        perform(ex, graph);
        return;
    }
    match *action {
        Action::Escape if ex.search.is_active() => ex.search.clear(),
        Action::Escape => ex.back(),
        Action::SearchStart => {
            ex.open_search();
            *mode = Mode::Search;
        }
        Action::SearchType(c) => ex.search_type(c),
        Action::Paste(ref text) if *mode == Mode::Search => ex.search_paste(text),
        Action::Paste(_) => ex.tools.message = Some(NOTHING_TO_PASTE_INTO.to_owned()),
        Action::SearchDelete => ex.search_delete(),
        Action::SearchRecall(older) => ex.recall_search(older),
        Action::SearchAccept => {
            ex.keep_search();
            *mode = ex.tools.home_mode();
        }
        Action::SearchCancel => {
            ex.search.clear();
            *mode = ex.tools.home_mode();
        }
        Action::ToggleCase => {
            ex.search.ignore_case = !ex.search.ignore_case;
            ex.run_search();
        }
        Action::Click(x, y) => {
            ex.click(x, y);
        }
        Action::DoubleClick(x, y) => {
            if ex.click(x, y) {
                ex.zoom_in();
            }
        }
        Action::Hover(x, y) => ex.hover_at(x, y),
        Action::Move(_)
        | Action::Scroll(_)
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        | Action::Zoom
        | Action::Back
        | Action::Forward
        | Action::Reset
        | Action::Flip
        | Action::NextMatch
        | Action::PrevMatch
        | Action::Drag(..)
        | Action::Release(..)
        | Action::Quit
        | Action::StopRecording
        | Action::TopInterval(_)
        | Action::TopTick(_)
        | Action::TopMode(_)
        | Action::TopWindow(_)
        | Action::ToggleHelp
        | Action::Resize(..)
        | Action::Progress(_)
        | Action::Loaded(_)
        | Action::StartSlice(_)
        | Action::Failed(_)
        | Action::Snapshot(_)
        | Action::ToggleFreeze
        | Action::LoadedPair(_)
        | Action::CycleView
        | Action::SwitchPane
        | Action::SwapShape
        | Action::ShowInGraph
        | Action::ToggleDemangle
        | Action::ToggleShortNames
        | Action::ToggleLibraryColors
        | Action::NextMetric
        | Action::Computing(..)
        | Action::Tool(_) => {}
    }
}
