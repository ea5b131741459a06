//! What happened to a session's context and why a worker got stuck, from the session model and
//! the token counts: where each compaction cut and what it dropped (`compaction`), the same
//! compaction replayed under other settings (`replay`), what it cost (`cost`), the post-mortem
//! (`analysis`), and the views made of them that the index keeps and the window shows first
//! (`views`: timeline rows, the cut view, the token report). Nothing here reads the index or
//! knows a front end; it prints nothing.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

// The layers below, under the names every module of this crate uses.
#[cfg(test)]
use palimpsest_model::testkit;
#[allow(unused_imports)]
use palimpsest_model::{Error, Result};
use palimpsest_model::{env, error, model, sources, tool};
use palimpsest_tokens as tokens;

pub mod analysis;
pub mod compaction;
pub mod cost;
pub mod replay;
pub mod views;
