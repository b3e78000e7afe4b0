//! flametui: a terminal flame graph explorer.
//!
//! ```text
//! bytes ─▶ input::detect ─▶ input::{folded,perf,stap} (nom) ─▶ samples ─▶ profile::CallTree
//!       ─▶ export / report (text)                       ─▶ (viewer, later stages)
//! ```
#![forbid(unsafe_code)]

pub mod cli;
pub mod error;
pub mod export;
pub mod input;
pub mod profile;
pub mod report;
pub mod text;

pub use error::{Error, Result};
