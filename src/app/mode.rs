//! Stage: application state — plain values of the screen: which part the keyboard talks
//! to ([`Mode`]: the keymap is looked up per mode, so a key means one thing at a time), the
//! terminal size, a direction, how far loading has come. Below everything else in `app/`.

use std::time::Duration;

/// Input focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Mode {
    /// Keys move, zoom and scroll the graph.
    #[default]
    Normal,
    /// Keys edit the search prompt.
    Search,
    /// The help overlay is open.
    Help,
    /// Compare mode: keys move in the table of functions sorted by change.
    DeltaTable,
    /// Keys move in the function table.
    Table,
    /// Keys type into the fuzzy finder.
    Finder,
    /// Keys move in the callers / callees view.
    Sandwich,
    /// Keys edit a one-line prompt (export path, exclude regex).
    Prompt,
    /// Keys move in the heat map.
    Heat,
    /// Keys move in the task list.
    Tasks,
    /// Keys type the task list's filter.
    TaskFilter,
    /// Keys move in the source lines of a frame.
    Source,
}

impl Mode {
    /// Name shown in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Mode::Normal => "Graph",
            Mode::Search => "Search prompt",
            Mode::Help => "Help",
            Mode::DeltaTable => "Delta table",
            Mode::Table => "Function table",
            Mode::Finder => "Fuzzy finder",
            Mode::Sandwich => "Callers / callees",
            Mode::Prompt => "Prompt",
            Mode::Heat => "Heat map",
            Mode::Tasks => "Tasks",
            Mode::TaskFilter => "Task filter",
            Mode::Source => "Source lines",
        }
    }
}

/// Terminal size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    /// Columns.
    pub width: u16,
    /// Rows.
    pub height: u16,
}

/// How far reading the input has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Bytes read so far (compressed bytes for gzip input).
    pub bytes: u64,
    /// Size of the input, when it is a regular file.
    pub total: Option<u64>,
    /// Time since reading started.
    pub elapsed: Duration,
}

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
