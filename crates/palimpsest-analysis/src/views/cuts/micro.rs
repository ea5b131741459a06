//! What a microcompact did. Claude Code's microcompact drops no message and writes no summary:
//! it replaces the text of earlier tool results, named by `microcompactMetadata.compactedToolIds`,
//! with `[Old tool result content cleared]`. So its view is not dropped | summary | kept but the
//! results it cleared — which call, which files they carried, how many tokens each held — and
//! the tokens saved, as recorded (`tokensSaved`) beside our count. The reader already put the
//! stored text back into each result's `raw` (`sources::claude::visibility`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::FileCarrier;
use crate::model::{CompactionRecord, Message, Part, Role, Session};
use crate::tokens::Counter;

/// One tool result a microcompact cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ClearedResult {
    /// The message holding the result.
    pub index: usize,
    /// The call's id.
    pub call_id: String,
    /// The message holding the call, when it is in the session.
    pub call_index: Option<usize>,
    /// The tool that made it.
    pub tool: Option<String>,
    /// Files whose content it carried.
    pub paths: Vec<String>,
    /// Our count of the text it held before it was cleared.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_counted: u64,
}

/// `tokensSaved` as the agent recorded it.
pub fn tokens_saved_recorded(record: &CompactionRecord) -> Option<u64> {
    record
        .raw
        .as_ref()
        .and_then(|m| m.get("tokensSaved"))
        .and_then(Value::as_u64)
}

/// The stored text of a cleared result: `raw.content` as a string, or its text blocks.
fn stored_text(raw: &Value) -> String {
    match raw.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Every result `record` (a microcompact) cleared, in stored order.
pub fn cleared(
    session: &Session,
    record: &CompactionRecord,
    carriers: &[FileCarrier],
    counter: &dyn Counter,
) -> Vec<ClearedResult> {
    let ids = record.cleared_calls();
    let mut out = Vec::new();
    for m in session.messages.iter().take(record.cut_index) {
        for p in &m.parts {
            let Part::ToolResult { call_id, raw, .. } = p else {
                continue;
            };
            if !ids.contains(call_id) {
                continue;
            }
            let call = session.messages.iter().find_map(|c| {
                c.parts.iter().find_map(|q| match q {
                    Part::ToolCall { id, name, .. } if id == call_id => {
                        Some((c.index, name.clone()))
                    }
                    _ => None,
                })
            });
            let text = stored_text(&raw.value());
            let probe = Message::new(
                m.index,
                Role::User,
                vec![Part::ToolResult {
                    call_id: call_id.clone(),
                    text: text.into(),
                    is_error: false,
                    raw: Value::Null.into(),
                }],
            );
            out.push(ClearedResult {
                index: m.index,
                call_id: call_id.clone(),
                call_index: call.as_ref().map(|c| c.0),
                tool: call.map(|c| c.1),
                paths: carriers
                    .iter()
                    .find(|c| c.index == m.index)
                    .map(|c| c.paths.clone())
                    .unwrap_or_default(),
                tokens_counted: counter.count(&probe),
            });
        }
    }
    out
}
