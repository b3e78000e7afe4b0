//! Stage: application state — the verbs. Keys, mouse events, resizes and loading progress
//! all become one of these before `update` sees them.

use std::time::Duration;

use super::Progress;
use super::tools::ToolAction;
use crate::profile::Profile;

/// A direction on screen (what it means in the tree depends on flame vs icicle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Up the screen.
    Up,
    /// Down the screen.
    Down,
    /// Previous frame in the row.
    Left,
    /// Next frame in the row.
    Right,
}

/// Something that changes the [`super::App`].
#[derive(Debug, Clone)]
pub enum Action {
    /// Leave the program.
    Quit,
    /// Open or close the help overlay.
    ToggleHelp,
    /// Move the selection.
    Move(Dir),
    /// Scroll by rows, negative is up the screen.
    Scroll(i32),
    /// Scroll up a page.
    PageUp,
    /// Scroll down a page.
    PageDown,
    /// Scroll to the top of the screen's content.
    Top,
    /// Scroll to the bottom.
    Bottom,
    /// Zoom into the selection.
    Zoom,
    /// Back to the previous zoom.
    Back,
    /// Forward again after going back.
    Forward,
    /// Show the whole graph.
    Reset,
    /// Toggle flame (root at the bottom) and icicle (root on top).
    Flip,
    /// Clear the search if there is one, else go back.
    Escape,
    /// Open the search prompt.
    SearchStart,
    /// Type a character into the prompt.
    SearchType(char),
    /// Text pasted at once (a bracketed paste): one edit of the prompt open, whichever it
    /// is (`app::text_input`).
    Paste(String),
    /// Delete the last character of the prompt.
    SearchDelete,
    /// Close the prompt, keeping the search.
    SearchAccept,
    /// Close the prompt and clear the search.
    SearchCancel,
    /// Show an older (`true`) or newer kept query in the prompt.
    SearchRecall(bool),
    /// Toggle case-insensitive search.
    ToggleCase,
    /// Show mangled C++ and Rust names demangled, or as the input spells them.
    ToggleDemangle,
    /// Fold template and argument lists of the names shown into `…`, or show them whole.
    ToggleShortNames,
    /// Colour frames by their library (DSO, module) instead of by name.
    ToggleLibraryColors,
    /// Show the next metric of the input (perf event, pprof sample type, SystemTap half).
    NextMetric,
    /// Select the next match.
    NextMatch,
    /// Select the previous match.
    PrevMatch,
    /// Mouse click at a screen position.
    Click(u16, u16),
    /// Second click at the same position.
    DoubleClick(u16, u16),
    /// Mouse moved to a screen position.
    Hover(u16, u16),
    /// Mouse moved with the left button held.
    Drag(u16, u16),
    /// The left button was released.
    Release(u16, u16),
    /// The view starts on this slice of the recording (time and task flags).
    StartSlice(crate::profile::slice::Slice),
    /// The terminal was resized.
    Resize(u16, u16),
    /// More of the input was read.
    Progress(Progress),
    /// A snapshot of the profile read so far (streaming input).
    Snapshot(Box<Profile>),
    /// Stop or resume applying snapshots while the input streams.
    ToggleFreeze,
    /// The input is loaded.
    Loaded(Box<Profile>),
    /// The input could not be loaded.
    Failed(String),
    /// Two profiles to compare are loaded: BEFORE, AFTER.
    LoadedPair(Box<(Profile, Profile)>),
    /// Compare mode: next view (side by side, differential, delta table).
    CycleView,
    /// Compare mode: keys go to the other pane.
    SwitchPane,
    /// Compare mode: the differential graph takes the shape of the other profile.
    SwapShape,
    /// Compare mode: show the delta table's function in the graph.
    ShowInGraph,
    /// Function table, finder, callers / callees, transforms, export and copy.
    Tool(ToolAction),
    /// Background job `id` (see `app::jobs`) has been running this long.
    Computing(u64, Duration),
}
