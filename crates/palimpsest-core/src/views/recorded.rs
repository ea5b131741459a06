//! The Requests tab's recorded requests: what the logs beside a session hold for it, each log
//! that is one of its requests beside the request rebuilt from the session. Made by
//! [`crate::api::recorded`].

use serde::{Deserialize, Serialize};

use crate::compaction::recorded::RecordedComparison;
use crate::error::Problem;

/// What the logs beside a session hold for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RecordedSet {
    /// The folder the logs were read from (goose), or the request log read (Aider), when one
    /// held any.
    pub dir: Option<String>,
    /// How many requests it held (goose: one log each; Aider: those of the session's span).
    pub logs: usize,
    /// The logs that are this session's requests, newest first.
    pub matched: Vec<RecordedComparison>,
    /// Logs that could not be read, naming the file and line.
    pub problems: Vec<Problem>,
}
