//! Stage: application state. Events become [`Action`]s (through the [`keymap`] for keys),
//! [`update()`] applies them to an [`App`], and `ui::draw(&App)` only reads the result:
//!
//! ```text
//! crossterm Event ─▶ keymap / mouse ─▶ Action ─▶ update(&mut App) ─▶ ui::draw(&App)
//! ```
//!
//! Everything here is pure data and functions over it; the terminal lives in `terminal`.
//! Recomputations too heavy for a key press are [`jobs::Job`]s the shell runs on a thread;
//! their results come back through [`finish()`].

pub mod action;
pub mod back;
pub mod compare;
pub mod dispatch;
pub mod effects;
mod explore;
pub mod explorer;
pub mod finder;
pub(crate) mod graph_keys;
pub mod heat;
mod impact;
pub mod jobs;
pub mod keymap;
pub(crate) mod keys;
pub(crate) mod list;
mod live;
pub mod mode;
mod navigate;
pub mod recording;
pub mod sandwich;
mod screens;
pub mod search;
mod show;
pub mod source;
pub mod state;
pub mod table;
pub mod tasks;
pub mod text_input;
pub mod tools;
pub mod top;
pub mod transforms;
pub mod update;

pub use action::ToolAction;
pub use action::{Action, Dir};
pub use effects::Effect;
pub use explorer::{Areas, Explorer};
pub use mode::{Mode, Progress, Size};
pub use state::Screen;
pub use transforms::TransformStack;
pub use update::{finish, update};

use crate::profile::Profile;
use crate::view::color::ColorMode;
use crate::view::names::NameStyle;

/// Loading, or exploring a loaded profile.
#[derive(Debug)]
pub enum Phase {
    /// The input is still being read.
    Loading(Progress),
    /// The profile is on screen.
    Ready(Box<crate::widget::FlameState>),
    /// Two profiles compared.
    Compare(Box<compare::Compare>),
}

/// The whole state of the program.
#[derive(Debug)]
pub struct App {
    /// Where keys go.
    pub mode: Mode,
    /// Terminal size.
    pub size: Size,
    /// Colour depth in use.
    pub colors: ColorMode,
    /// Display name of the input.
    pub source: String,
    /// The files the profiles were read from: the viewer never writes over them.
    pub inputs: Vec<std::path::PathBuf>,
    /// Loading or exploring.
    pub phase: Phase,
    /// Set when the program should end.
    pub quit: bool,
    /// Why loading failed, reported after the terminal is restored.
    pub failure: Option<String>,
    /// Transforms, bottom-up toggle and sibling order of what is shown, kept across
    /// loading; [`TransformStack::apply`] computes a side from its original profile.
    pub view: TransformStack,
    /// What the shell should do (copy, write a file); `terminal` performs and drains these.
    pub effects: Vec<Effect>,
    /// First row of the help shown (it scrolls on small screens).
    pub help_scroll: u16,
    /// The input is still streaming in: how far it has come.
    pub streaming: Option<Progress>,
    /// Live updates are paused by the user.
    pub frozen: bool,
    /// The newest snapshot (or the final profile) held back while frozen.
    pub pending: Option<Box<Profile>>,
    /// Keys pressed while the input was still loading, applied when the graph appears.
    pub queued: Vec<Action>,
    /// Recomputations of what is shown that run in the background (large trees).
    pub jobs: jobs::Jobs,
    /// How names are shown (demangled, shortened).
    pub names: NameStyle,
    /// Frames are coloured by their library (`C`), not by their name.
    pub library_colors: bool,
    /// The metrics of each input shown (one shelf, or BEFORE and AFTER), for `m`.
    pub metrics: Vec<crate::profile::metrics::MetricShelf>,
    /// What to say with the metric wanted once it is shown (metrics passed over, a
    /// slice forgotten).
    pub metric_note: Option<String>,
    /// Source files read for the Source screen, and where they are looked for
    /// (`--source-path`, `--source-prefix`).
    pub sources: crate::source_files::SourceCache,
    /// The recording that produces the profile (`flametui record`), while there is one.
    pub recording: Option<recording::Recording>,
    /// `flametui top`: its ring of refreshes and mode.
    pub top: Option<top::TopState>,
}

impl App {
    /// An app waiting for `source` to load.
    pub fn loading(source: &str, colors: ColorMode) -> Self {
        Self {
            mode: Mode::Normal,
            size: Size::default(),
            colors,
            source: source.to_owned(),
            inputs: Vec::new(),
            phase: Phase::Loading(Progress::default()),
            quit: false,
            failure: None,
            view: TransformStack::default(),
            effects: Vec::new(),
            help_scroll: 0,
            streaming: None,
            frozen: false,
            pending: None,
            queued: Vec::new(),
            jobs: jobs::Jobs::default(),
            names: NameStyle::default(),
            library_colors: false,
            metrics: Vec::new(),
            metric_note: None,
            sources: crate::source_files::SourceCache::default(),
            recording: None,
            top: None,
        }
    }

    /// An app exploring a loaded profile.
    pub fn new(profile: Profile, colors: ColorMode) -> Self {
        let mut app = Self::loading(&profile.source, colors);
        update(&mut app, Action::Loaded(Box::new(profile)));
        app
    }

    /// An app comparing two loaded profiles (BEFORE, AFTER).
    pub fn compare(before: Profile, after: Profile, colors: ColorMode) -> Self {
        let mut app = Self::loading("", colors);
        update(&mut app, Action::LoadedPair(Box::new((before, after))));
        app
    }

    /// The explorer, once the profile is loaded (in compare mode, the pane keys go to).
    pub fn explorer(&self) -> Option<&Explorer> {
        match &self.phase {
            Phase::Ready(ex) => Some(ex),
            Phase::Compare(cmp) => Some(cmp.driver()),
            Phase::Loading(_) => None,
        }
    }

    /// The comparison, in compare mode.
    pub fn comparison(&self) -> Option<&compare::Compare> {
        match &self.phase {
            Phase::Compare(cmp) => Some(cmp),
            _ => None,
        }
    }

    /// True in compare mode.
    pub fn comparing(&self) -> bool {
        matches!(self.phase, Phase::Compare(_))
    }

    /// The loaded profile.
    pub fn profile(&self) -> Option<&Profile> {
        self.explorer().map(|ex| &*ex.profile)
    }
}

#[cfg(test)]
mod props_tests;
