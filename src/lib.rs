//! flametui: a terminal flame graph explorer.
//!
//! ```text
//! bytes ─▶ input::detect ─▶ input::{folded,perf,stap} (nom) ─▶ samples ─▶ profile::CallTree
//!                                                                   └──▶ profile::SampleTable
//!       ─▶ timeline (--time, --comms, …: profile::slice_tree, heat map)
//!       ─▶ export / report (text)
//!       ─▶ view::layout(&CallTree, &Viewport) ─▶ FrameLayout ─▶ ui::draw(&App) ─▶ terminal
//! keys/mouse ─▶ app::keymap ─▶ Action ─▶ app::update(&mut App)
//! ```
//!
//! Inside `app/`, imports run one way (a test fails on any circle, and on a screen that
//! reaches another's logic), top to bottom:
//!
//! ```text
//! widget (FlameGraph, FunctionTable,  the library's widgets over one FlameState; the
//!   Callers)                          viewer's graph is one
//! app::update, app::dispatch          the App: loading, compare mode, where an action goes
//!   app::jobs, app::compare           background views; two profiles side by side
//!   app::tools, app::screens,         the router of one explorer's screens; the status line
//!   app::impact, app::keymap, …
//!   app::{table,finder,sandwich,      one screen each: its logic (mod.rs), taking the explorer
//!         heat,tasks,search}
//!   app::explore, app::navigate, …    graph keys on one explorer
//!   app::explorer                     a loaded profile on screen, holding app::state::Tools
//!   app::state, app::*::state,        plain data: each screen's state, the prompt, the
//!   app::action, app::transforms::state  actions, the view (transform stack)
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod cli;
pub mod error;
pub mod export;
pub mod input;
pub mod output;
pub mod profile;
pub mod report;
pub mod symbol;
pub mod terminal;
pub mod text;
pub mod timeline;
pub mod ui;
pub mod view;
pub mod widget;

pub use error::{Error, Result};
