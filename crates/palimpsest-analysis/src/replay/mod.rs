//! Replay compaction offline: run a session's history through a compaction policy at settings
//! other than the ones it ran with, and see what the model would have been left with.
//!
//! The policies work on the session model alone, so they apply to any format:
//! - [`goose`]: summarise everything but a kept tail (the keep-tail rule with its backward walk,
//!   and upstream's behaviour exactly at K = 0);
//! - [`coworker`]: OpenWorker's boundary, compacted block and tool-result cap;
//! - [`opencode`]: OpenCode's budgeted tail of user turns, and its prune of old tool outputs;
//! - [`gemini`]: Gemini CLI's (and Qwen Code's) kept fraction of the history, and its budget of
//!   function responses.
//!
//! [`simulate`] runs a whole recorded session forward under a policy; [`sweep`] does that over a
//! grid of settings; [`verify`] re-derives a recorded coworker session's compactions and diffs
//! them with the records. Token counts come from a counting function passed in ([`Counter`]),
//! so the caller chooses between [`crate::tokens::counter::CharEstimate`] and real BPE. Detecting where a session
//! *did* compact is `compaction`'s job; drawing the sweep is `charts::heatmap`'s.

use serde::{Deserialize, Serialize};

use crate::model::{Message, MessageKind, Part, Role};

pub mod cap;
pub mod coworker;
pub mod defaults;
pub mod digest;
pub mod explain;
pub mod files;
pub mod gemini;
pub mod generate;
pub mod goose;
pub mod opencode;
pub mod options;
pub mod pairing;
// Python's json.dumps is coworker's serialisation: the reader's, used here to size messages.
pub use crate::sources::coworker::pyjson;
pub mod simulate;
pub mod sweep;
pub mod tune;
pub mod tune_fleet;
pub mod tune_grid;
pub mod unrecorded;
pub mod verify;

/// A token counter over one message ([`crate::tokens::Counter`]): pass
/// `&crate::tokens::counter::CharEstimate`, a BPE counter, or a closure.
pub type Counter<'a> = &'a dyn crate::tokens::Counter;

/// Where the summary text of a replayed compaction comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "source")]
pub enum SummarySource {
    /// A placeholder standing for a summary of this many tokens (its size is what matters).
    Placeholder {
        /// The size the summary is taken to have.
        tokens: u64,
    },
    /// The summary the session really recorded at this point.
    Recorded {
        /// Its text.
        text: String,
    },
}

/// The key under [`Message::details`] that gives a placeholder's token size, so counting honours
/// the size chosen rather than the placeholder's few characters.
pub const PLACEHOLDER_TOKENS_KEY: &str = "placeholder_tokens";

impl SummarySource {
    /// The summary text (a short marker for placeholders).
    pub fn text(&self) -> String {
        match self {
            SummarySource::Placeholder { tokens } => {
                format!("<summary placeholder: {tokens} tokens>")
            }
            SummarySource::Recorded { text } => text.clone(),
        }
    }

    /// `details` to attach to the summary message, marking a placeholder's size.
    pub fn details(&self) -> Option<crate::model::CompactJson> {
        match self {
            SummarySource::Placeholder { tokens } => Some(crate::model::CompactJson::new(
                &serde_json::json!({ PLACEHOLDER_TOKENS_KEY: tokens }),
            )),
            SummarySource::Recorded { .. } => None,
        }
    }
}

/// Count a message, honouring a placeholder summary's chosen size.
pub fn count(m: &Message, counter: Counter<'_>) -> u64 {
    m.detail(PLACEHOLDER_TOKENS_KEY)
        .and_then(|v| v.as_u64())
        .unwrap_or_else(|| counter.count(m))
}

/// One message of a replayed context, as the CLI and app show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayedMessage {
    /// Provider role.
    pub role: Role,
    /// Summary, continuation, preserved copy, or an ordinary message kept verbatim.
    pub kind: MessageKind,
    /// Index of the stored message this is (or copies); `None` for messages the policy wrote.
    pub source_index: Option<usize>,
    /// The content.
    pub parts: Vec<Part>,
}

impl ReplayedMessage {
    /// A verbatim copy of a stored message.
    pub fn kept(m: &Message) -> Self {
        Self {
            role: m.role,
            kind: m.kind,
            source_index: Some(m.index),
            parts: m.parts.clone(),
        }
    }

    /// As a message of the request (index = position in the replayed context), for checks
    /// that work on messages (the pairing lint).
    pub fn to_message(&self, index: usize) -> Message {
        let mut m = Message::new(index, self.role, self.parts.clone());
        m.kind = self.kind;
        m
    }

    /// A message the policy wrote.
    pub fn written(role: Role, kind: MessageKind, text: String) -> Self {
        Self {
            role,
            kind,
            source_index: None,
            parts: vec![Part::Text { text }],
        }
    }
}

/// Messages that are the stream of a conversation rather than compaction machinery: a replay
/// runs these forward and writes its own summaries, continuations and copies.
pub fn is_original(m: &Message) -> bool {
    matches!(m.kind, MessageKind::Ordinary)
}

#[cfg(test)]
pub(crate) mod testkit;
