//! Stage: application state — the verbs. Keys, mouse events, resizes and loading progress
//! all become one of these before `update` sees them.

use std::time::Duration;

use super::heat::state::HeatKey;
pub use super::mode::Dir;
use super::mode::Progress;
use super::source::state::SourceKey;
use super::tasks::state::TaskKey;
use crate::profile::Profile;

/// Something that changes the [`super::App`].
#[derive(Debug, Clone)]
pub enum Action {
    /// Leave the program.
    Quit,
    /// Stop the recording under way (`flametui record`: Ctrl-C), keeping what it recorded.
    StopRecording,
    /// `flametui top`: a refresh interval read, with what the shell measured of it.
    TopInterval(Box<(crate::profile::Profile, Facts)>),
    /// `flametui top`: the shell's clock, since start.
    TopTick(std::time::Duration),
    /// `flametui top`: show mode 1 (accumulate), 2 (window), 3 (decay) or 4 (diff).
    TopMode(u8),
    /// `flametui top`: a longer (`true`) or shorter window.
    TopWindow(bool),
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

/// A verb of the analysis tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolAction {
    /// Open or close the function table.
    Table,
    /// Open the table of libraries (DSOs, modules), or switch the table between functions
    /// and libraries.
    Libraries,
    /// Open the fuzzy finder.
    Finder,
    /// Open or close the callers / callees of the selected function.
    Sandwich,
    /// Bottom-up (inverted) view on or off.
    Invert,
    /// Siblings alphabetical or heaviest first.
    Order,
    /// Drop the stacks through the selected function.
    Exclude,
    /// Ask for a regex, then drop the stacks with a matching frame.
    ExcludeRegex,
    /// Keep only the stacks through the selected function, re-rooted at it.
    Focus,
    /// Remove the selected function's frames (its callees move up to its callers).
    Hide,
    /// Merge directly recursive frames.
    CollapseRecursion,
    /// Merge inlined frames into the frames they are inlined into.
    MergeInlined,
    /// Undo the last transform.
    Undo,
    /// Ask for a path, then write the view there.
    Export,
    /// Open or close the heat map.
    Heat,
    /// A key of the heat map.
    HeatKey(HeatKey),
    /// Open or close the source lines of the selected frame.
    Source,
    /// A key of the source lines.
    SourceKey(SourceKey),
    /// Open or close the task list.
    Tasks,
    /// A key of the task list.
    TaskKey(TaskKey),
    /// Group the towers by the next of thread name, process, thread, folded name.
    Group,
    /// Copy the selected function's name.
    CopyName,
    /// Copy the selected frame's stack, root first, joined by `;`.
    CopyStack,
    /// Lists: move the selection by rows.
    Step(i32),
    /// Lists: a page down (`true`) or up.
    Page(bool),
    /// Lists: the last (`true`) or first row.
    Edge(bool),
    /// Table: next sort column.
    Sort,
    /// Table and finder: show the function in the graph. Prompt: do it.
    Accept,
    /// Callers / callees: keys go to the other pane.
    Pane,
    /// Callers / callees: move the selection.
    Move(Dir),
    /// Callers / callees: show the selected frame's function instead.
    Recenter,
    /// Close the table, finder, callers / callees or prompt.
    Close,
    /// Type into the finder or prompt.
    Type(char),
    /// Paste into the finder or prompt (a bracketed paste: one edit).
    Paste(String),
    /// Delete the last character.
    Backspace,
    /// Clear the input.
    ClearLine,
    /// Scroll the help by rows.
    HelpScroll(i32),
    /// The shell's report on an effect (what was copied or written, or why not).
    Notify(String),
    /// The shell kept a file that an export would have replaced: ask before replacing it.
    Exists(String),
}

impl ToolAction {
    /// Whether the action does something while two profiles are compared: the transforms
    /// (applied to both, a typed regex too), copying, the finder (over both) and its keys,
    /// the export of the differential view, and the help. The function table, callers /
    /// callees, heat map, task list and grouping work on one profile.
    pub fn works_while_comparing(&self) -> bool {
        matches!(
            self,
            Self::Finder
                | Self::Step(_)
                | Self::Page(_)
                | Self::Edge(_)
                | Self::Accept
                | Self::Close
                | Self::Type(_)
                | Self::Paste(_)
                | Self::Backspace
                | Self::ClearLine
                | Self::Invert
                | Self::Order
                | Self::Exclude
                | Self::Focus
                | Self::Hide
                | Self::CollapseRecursion
                | Self::MergeInlined
                | Self::Undo
                | Self::CopyName
                | Self::CopyStack
                | Self::HelpScroll(_)
                | Self::Notify(_)
                | Self::ExcludeRegex
                | Self::Export
                | Self::Exists(_)
        )
    }
}

/// What the shell measured about a refresh.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Facts {
    /// How long the interval lasted (wall clock).
    pub wall: std::time::Duration,
    /// Since `top` started, when it came.
    pub at: std::time::Duration,
    /// CPU time flametui itself used over the interval, as a share of one core (0.05 is
    /// 5%); `None` when it could not be read.
    pub cpu: Option<f64>,
}
