//! Integration tests of the interactive viewer, in one binary to keep link time low:
//! whole-frame snapshots driven through `terminal::run` (the loop the binary uses) and
//! end-to-end sessions of the real binary in tmux.
// Test helpers may fail loudly: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod analysis;
#[allow(dead_code)]
#[path = "../shared/busy.rs"]
mod busy;
mod compare;
mod demo;
mod e2e;
mod first_run;
mod heat;
mod hostile_names;
mod jobs;
mod libraries;
mod names;
mod pprof;
mod readable;
mod record;
mod sinks;
mod snapshots;
mod source;
mod support;
mod tasks;
mod widget;
