//! Palimpsest's session model and its readers: one [`sources::SessionSource`] per agent format
//! (goose, Claude Code, Codex, coworker, message logs) reads files into [`model::Session`], and
//! nothing else. The bottom layer: it knows nothing of tokens, analysis, the index or any front
//! end, does no I/O beyond reading the files it is pointed at (and the reader snapshots and
//! SQLite copies it keeps in Palimpsest's own cache), and prints nothing.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

pub mod cachedb;
pub mod env;
pub mod error;
pub mod model;
pub mod sources;
#[doc(hidden)]
pub mod testkit;
pub mod tool;

pub use error::{Error, Result};
