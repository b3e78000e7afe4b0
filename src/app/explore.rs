//! Stage: application state — one graph action on one explorer: move, zoom, search, click.
//! The comparison applies it to the pane in use.

use super::explorer::Explorer;
use super::{Action, Mode};

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
    match *action {
        Action::Move(dir) => ex.move_selection(dir),
        Action::Scroll(rows) => ex.scroll_rows(rows),
        Action::PageUp => ex.page(false),
        Action::PageDown => ex.page(true),
        Action::Top => ex.scroll_edge(true),
        Action::Bottom => ex.scroll_edge(false),
        Action::Zoom => ex.zoom_in(),
        Action::Forward => ex.forward(),
        Action::Reset => ex.reset(),
        Action::Flip => ex.flame = !ex.flame,
        Action::Escape if ex.search.is_active() => ex.search.clear(),
        Action::Back | Action::Escape => ex.back(),
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
        Action::NextMatch => ex.jump(true),
        Action::PrevMatch => ex.jump(false),
        Action::Click(x, y) => {
            ex.click(x, y);
        }
        Action::DoubleClick(x, y) => {
            if ex.click(x, y) {
                ex.zoom_in();
            }
        }
        Action::Hover(x, y) => ex.hover_at(x, y),
        Action::Drag(..)
        | Action::Release(..)
        | Action::Quit
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
