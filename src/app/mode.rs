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
    /// Time since the last byte came (a pipe whose writer holds its data back).
    pub idle: Duration,
}

impl Progress {
    /// A pipe that has said nothing for this long while open gets a word on why.
    pub const SILENT: Duration = Duration::from_secs(3);

    /// Why a pipe may stay silent, once it has for [`Progress::SILENT`]: perf record
    /// writes its pipe only when a CPU's buffer is half full, or at the end.
    pub fn silence(&self) -> Option<String> {
        (self.total.is_none() && self.idle >= Self::SILENT).then(|| {
            format!(
                "nothing new for {} s: perf record writes a pipe only as its buffers fill \
                 (perf record --no-buffering, or flametui record, sends samples as they come)",
                self.idle.as_secs()
            )
        })
    }
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

#[cfg(test)]
mod progress_tests {
    use super::*;

    #[test]
    fn only_a_pipe_silent_for_seconds_gets_a_word() {
        let p = |total, idle| Progress {
            bytes: 3_500,
            total,
            elapsed: Duration::from_secs(9),
            idle: Duration::from_secs(idle),
        };
        assert!(p(None, 2).silence().is_none());
        assert!(
            p(Some(10_000), 9).silence().is_none(),
            "a file is not waited for"
        );
        let why = p(None, 3).silence().unwrap();
        assert!(why.starts_with("nothing new for 3 s"), "{why}");
        assert!(why.contains("--no-buffering"), "{why}");
    }
}
