//! Palimpsest's core: read agent sessions of several formats into one model, find where their
//! context was compacted, replay compaction under other settings, count tokens and diagnose
//! stuck workers.
//!
//! This crate does no I/O beyond reading the files it is pointed at (and its own token cache),
//! prints nothing and knows nothing of the CLI or the app: both are thin layers over [`api`].
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

pub mod analysis;
pub mod api;
mod cachedb;
pub mod charts;
pub mod compaction;
pub mod compare;
pub mod cost;
pub mod env;
pub mod error;
pub mod export;
pub mod follow;
pub mod index;
pub mod markdown;
pub mod model;
pub mod replay;
pub mod report;
pub mod rpc;
pub mod sources;
pub mod tokens;
pub mod tool;
pub mod views;
pub mod watch;

pub use error::{Error, Result};
