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
#![forbid(unsafe_code)]

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

pub use error::{Error, Result};
