//! Palimpsest's api: one function per view ([`api`]) over the layers below it — the session
//! model and its readers (`palimpsest-model`), token counts (`palimpsest-tokens`), compactions,
//! replay, cost and the post-mortem (`palimpsest-analysis`), the fleet index
//! (`palimpsest-index`) — and what only a front end asks for: the window's panels and
//! charts, HTML reports, comparing two runs, following sessions live, the app's command list.
//! The CLI and the app are thin layers over [`api`]; the crates below are named here under the
//! module names they had, so `palimpsest_core::model::Session` is the model's own type.
//!
//! Nothing here prints, and nothing here knows the CLI or the app.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

pub use palimpsest_analysis::{analysis, compaction, cost, replay};
pub use palimpsest_index as index;
pub use palimpsest_index::export;
pub use palimpsest_model::{env, error, model, sources, tool};
pub use palimpsest_tokens as tokens;

pub mod api;
pub mod charts;
pub mod compare;
pub mod follow;
pub mod markdown;
pub mod otlp;
pub mod report;
pub mod rpc;
pub mod service;
pub mod views;
pub mod watch;

pub use error::{Error, Result};
