//! flametui: a terminal flame graph explorer, and the crate behind it: profiles of perf,
//! SystemTap, folded stacks, pprof and more as a call tree with its samples
//! ([`profile`]), loaded by [`input`]; transforms, function tables and differences of two
//! profiles; and the flame graph as a ratatui widget ([`widget`]).
//!
//! ```
//! use flametui::profile::{Profile, diff, functions, transform::{Transform, apply}};
//! use regex::Regex;
//!
//! let before = Profile::from_folded("main;parse 60\nmain;render;draw 40\n")?;
//! let after = Profile::from_folded("main;parse 20\nmain;render;draw 80\n")?;
//! // The heaviest functions by self weight, as `--top` ranks them.
//! let top = functions::top_functions_in(&after.tree, flametui::profile::NodeId::ROOT, 1);
//! assert_eq!(after.tree.names().resolve(top[0].name), "draw");
//! // A transform is a pure function from tree to tree.
//! let hidden = apply(&after.tree, &Transform::Hide(Regex::new("^render$")?));
//! assert_eq!(flametui::export::folded_lines(&hidden), ["main;draw 80", "main;parse 20"]);
//! // What changed most between the two, in percentage points of each total.
//! let deltas = diff::function_deltas(&before.tree, &after.tree);
//! assert_eq!(deltas[0].name, "draw");
//! assert!((deltas[0].delta.points() - 40.0).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The program's pipeline:
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
//!   Callers, HeatMap, TaskList)       viewer's graph is one
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
pub mod record;
pub mod report;
pub mod source_files;
pub mod symbol;
pub mod terminal;
pub mod text;
pub mod timeline;
pub mod ui;
pub mod view;
pub mod widget;

pub use error::{Error, Result};
