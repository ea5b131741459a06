//! Request of `get_markdown` (a message, a summary or a whole cut as Markdown, for "Copy as
//! Markdown"); declared beside the others in [`super::with_commands`].

use serde::{Deserialize, Serialize};

/// What `get_markdown` writes: a message, a cut's summary or a whole cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum MarkdownOf {
    /// The message with this stored index.
    Message(usize),
    /// The summary of the cut at this position in the session's compactions (0-based).
    Summary(usize),
    /// The whole cut at this position: dropped, summary, kept verbatim.
    Cut(usize),
}

/// Request of `get_markdown`: one message or cut as Markdown, for the clipboard.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetMarkdownReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// What to write.
    pub of: MarkdownOf,
}
