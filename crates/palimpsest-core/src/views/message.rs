//! The inspector's view of one message: the whole message, its stored text and the line diffs
//! of its edit calls. Made by [`crate::api::message_detail`] (or by offset through the index,
//! [`crate::service::cache::message_indexed`]).

use serde::{Deserialize, Serialize};

use crate::model::Message;

/// Response of `get_message`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MessageDetail {
    /// The whole message as read.
    pub message: Message,
    /// The stored text of the row or line, when asked for and the source can give it.
    pub raw: Option<String>,
    /// What the message's edit calls change, as line diffs (`analysis::edits`).
    #[serde(default)]
    pub edits: Vec<crate::analysis::edits::EditDiff>,
    /// Read by its records' byte offsets through the fleet index, the session not loaded.
    #[serde(default)]
    pub from_index: bool,
}
