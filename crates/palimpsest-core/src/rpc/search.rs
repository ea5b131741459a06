//! Requests of the fleet commands that go through the index (`search`); declared beside the
//! others in [`super::with_commands`], kept here so `rpc` stays one screen per concern.

use serde::{Deserialize, Serialize};

/// Request of `search`: every part of every session under `paths` holding `query`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchReq {
    /// A literal (case-insensitive), or a regex when `regex`.
    pub query: String,
    /// `query` is a regular expression.
    pub regex: bool,
    /// The sources shown (their paths); the index is brought up to date for them first.
    pub paths: Vec<String>,
    /// At most this many hits.
    pub limit: usize,
}
