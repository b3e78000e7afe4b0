//! Stage: application state — what the explorer keeps of its tools: which screen fills
//! the graph area, the open prompt, and each screen's own state ([`Tools`]). Plain data,
//! below the explorer that holds it and the screens that change it.

use std::sync::Arc;

use crate::app::back::BackStack;
use crate::app::finder::state::FinderState;
use crate::app::heat::state::{HeatState, Strip};
use crate::app::mode::Mode;
use crate::app::sandwich::state::Sandwich;
use crate::app::search::state::SearchHistory;
use crate::app::table::state::TableState;
use crate::app::tasks::state::TaskState;
use crate::app::transforms::state::TransformStack;
use crate::profile::{NameId, Profile};

/// What fills the graph area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Screen {
    /// The flame graph.
    #[default]
    Graph,
    /// The function table.
    Table,
    /// Callers and callees of one function.
    Sandwich,
    /// The heat map of the samples over time.
    Heat,
    /// The processes and threads that ran.
    Tasks,
    /// The source lines of the selected frame.
    Source,
}

/// What a one-line prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// A path to export the view to.
    Export,
    /// A regex of frames whose stacks are excluded.
    Exclude,
    /// A time range of the heat map, in seconds (`2.0,2.74`).
    Range,
}

impl PromptKind {
    /// Text before the input.
    pub fn label(self) -> &'static str {
        match self {
            PromptKind::Export => "Export to (.svg / .folded): ",
            PromptKind::Exclude => "Exclude stacks matching: ",
            PromptKind::Range => "Range in seconds (start,end): ",
        }
    }

    /// What the input is called in the status line.
    pub fn what(self) -> &'static str {
        match self {
            PromptKind::Export => "The export path",
            PromptKind::Exclude => "The exclude regex",
            PromptKind::Range => "The range",
        }
    }
}

/// A one-line prompt in the footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What it asks for.
    pub kind: PromptKind,
    /// What was typed.
    pub text: String,
    /// `text` is the suggestion it opened with: typing replaces it, ⌫ edits it.
    pub suggested: bool,
    /// Export: the file named by `text` is there, and Enter replaces it (set when the
    /// shell found it; editing the name clears it).
    pub replace: bool,
}

/// State of the tools, per explorer.
#[derive(Debug, Default)]
pub struct Tools {
    /// What fills the graph area.
    pub screen: Screen,
    /// The profile as read, when the view differs from it.
    pub original: Option<Arc<Profile>>,
    /// The view the profile is shown through (breadcrumbs in the header).
    pub applied: TransformStack,
    /// Bumped whenever the tree is recomputed.
    pub generation: u64,
    /// Function table.
    pub table: TableState,
    /// Fuzzy finder.
    pub finder: FinderState,
    /// Callers / callees, when open.
    pub sandwich: Option<Box<Sandwich>>,
    /// Callers / callees asked for and not shown yet (`app::jobs` builds them).
    pub wanted_sandwich: Option<NameId>,
    /// The heat map, once opened (its cursor and ranges are kept while it is closed).
    pub heat: Option<HeatState>,
    /// The task list (its marks and filter are kept while it is closed).
    pub tasks: TaskState,
    /// The source lines of a frame, when open.
    pub source: Option<Box<crate::app::source::state::SourceView>>,
    /// The timeline strip of the graph view.
    pub strip: Strip,
    /// The open prompt.
    pub prompt: Option<Prompt>,
    /// One-line report for the status area (what was copied or written, or why not).
    pub message: Option<String>,
    /// The queries searched for, for `/` and ↑/↓ in its prompt.
    pub searches: SearchHistory,
    /// The screens the user came from, for Esc (empty on the graph).
    pub back: BackStack<Place>,
}

/// A screen left for another, as it was: where Esc returns to.
#[derive(Debug)]
pub struct Place {
    /// The screen.
    pub screen: Screen,
    /// The function table's selected row, first row shown and rows (functions or libraries).
    pub table: (usize, usize, bool),
    /// Callers / callees, when the place is that screen.
    pub sandwich: Option<Box<Sandwich>>,
}

impl Tools {
    /// The mode keys return to when a prompt or the help closes.
    pub fn home_mode(&self) -> Mode {
        match self.screen {
            Screen::Graph => Mode::Normal,
            Screen::Table => Mode::Table,
            Screen::Sandwich => Mode::Sandwich,
            Screen::Heat => Mode::Heat,
            Screen::Tasks => Mode::Tasks,
            Screen::Source => Mode::Source,
        }
    }

    /// Shows `screen`. The screen left is kept on the back stack with its selection, unless
    /// it is the graph (where the stack starts: going to the graph forgets it).
    pub(crate) fn enter(&mut self, screen: Screen) {
        if screen == self.screen {
            return;
        }
        if screen == Screen::Graph {
            self.back.clear();
            self.sandwich = None;
        } else if self.screen == Screen::Graph {
            self.back.clear();
        } else {
            let t = &self.table;
            let place = Place {
                screen: self.screen,
                table: (t.selected, t.offset, t.by_library),
                sandwich: self.sandwich.take(),
            };
            self.back.push(place);
        }
        self.screen = screen;
    }

    /// Esc: back to the screen the user came from, as it was (the graph when there is none);
    /// returns the mode of the screen shown.
    pub(crate) fn go_back(&mut self) -> Mode {
        if self.screen == Screen::Sandwich {
            // A recentring still being computed is not wanted any more either.
            self.wanted_sandwich = None;
        }
        if let Some(place) = self.back.pop() {
            self.screen = place.screen;
            self.sandwich = place.sandwich;
            if place.screen == Screen::Table {
                let t = &mut self.table;
                (t.selected, t.offset, t.by_library) = place.table;
            }
        } else {
            self.screen = Screen::Graph;
            self.sandwich = None;
        }
        self.home_mode()
    }

    /// The tree was recomputed: everything derived from it is stale.
    pub(crate) fn rebuilt(&mut self) {
        self.generation += 1;
        self.table.invalidate();
        self.finder = FinderState::default();
        self.sandwich = None;
        // Source lines are of a frame of the old tree (of the old metric, perhaps).
        self.source = None;
        // Callers / callees kept for Esc are of the old tree too.
        self.back
            .retain(|p| !matches!(p.screen, Screen::Sandwich | Screen::Source));
        if matches!(self.screen, Screen::Sandwich | Screen::Source) {
            self.screen = Screen::Graph;
            self.back.clear();
        }
    }
}
