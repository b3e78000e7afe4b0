//! Stage: application state — which part of the screen the keyboard talks to. The keymap
//! is looked up per mode, so a key means one thing at a time.

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
        }
    }
}
