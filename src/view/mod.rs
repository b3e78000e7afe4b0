//! Stage: call tree → what the screen shows. Pure functions over the tree:
//!
//! ```text
//! CallTree ─▶ index (offsets, subtree heights) ─▶ layout(&Viewport, width) ─▶ FrameLayout
//!          ─▶ search (regex over distinct names) ─▶ highlights, n/N order
//!          ─▶ tooltip (facts about one frame)   ─▶ color (palette per name and mode)
//!          ─▶ delta (compare: colour by change of share, in percentage points)
//! ```
//!
//! Nothing here touches the terminal; `ui` turns these values into a ratatui buffer.

pub mod clip;
pub mod color;
pub mod delta;
pub mod disasm;
pub mod heatmap;
pub mod index;
pub mod layout;
pub mod listings;
pub mod names;
pub mod search;
pub mod source;
pub mod tooltip;
pub mod totals;
pub mod viewport;
pub mod width;

pub use index::TreeIndex;
pub use layout::{Cell, CellKind, FrameLayout, Group, Row, Target, Viewport, layout};
