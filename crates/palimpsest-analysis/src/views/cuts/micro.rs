//! What a microcompact did. Claude Code's microcompact drops no message and writes no summary:
//! it replaces the text of earlier tool results, named by `microcompactMetadata.compactedToolIds`,
//! with `[Old tool result content cleared]`. So its view is not dropped | summary | kept but the
//! results it cleared — which call, which files they carried, how many tokens each held — and
//! the tokens saved, as recorded (`tokensSaved`) beside our count. The reader already put the
//! stored text back into each result's `raw` (`sources::claude::visibility`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{CompactionRecord, Message, Part, ResultHolders, Role, Session, Trigger};
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

/// Where each tool call and its results are in a session, by call id, found once for all of
/// its microcompacts (a scan per microcompact, and per result for its call, made a session of
/// hundreds of them quadratic).
pub struct Calls<'a> {
    /// Where each call's results are.
    results: ResultHolders<'a>,
    /// The message holding each call, and the call's tool: the first such call.
    calls: HashMap<&'a str, (usize, &'a str)>,
}

impl<'a> Calls<'a> {
    /// Every call and result of `session`.
    pub fn new(session: &'a Session) -> Self {
        let mut calls: HashMap<&str, (usize, &str)> = HashMap::new();
        for m in &session.messages {
            for p in &m.parts {
                if let Part::ToolCall { id, name, .. } = p {
                    calls.entry(id.as_str()).or_insert((m.index, name.as_str()));
                }
            }
        }
        Calls {
            results: ResultHolders::of(&session.messages),
            calls,
        }
    }
}

/// The results `record` (a microcompact) cleared, in stored order: each one's message, call
/// id and stored block.
fn cleared_parts<'s>(
    session: &'s Session,
    record: &CompactionRecord,
    calls: &Calls<'_>,
) -> Vec<(&'s Message, &'s str, &'s crate::model::CompactJson)> {
    let ids: HashSet<String> = record.cleared_calls().into_iter().collect();
    let holders = calls
        .results
        .of_calls(ids.iter().map(String::as_str), record.cut_index);
    let mut out = Vec::new();
    for pos in holders {
        let m = &session.messages[pos];
        for p in &m.parts {
            if let Part::ToolResult { call_id, raw, .. } = p
                && ids.contains(call_id)
            {
                out.push((&**m, call_id.as_str(), raw));
            }
        }
    }
    out
}

/// The stored blocks of every result the microcompacts of `session` cleared, to look their
/// counts up at once ([`Counter::recall`]) rather than one by one.
pub fn cleared_sources<'s>(session: &'s Session, calls: &Calls<'_>) -> Vec<&'s [u8]> {
    session
        .compactions
        .iter()
        .filter(|r| matches!(r.trigger, Some(Trigger::Micro | Trigger::Replacement)))
        .flat_map(|r| cleared_parts(session, r, calls))
        .map(|(_, _, raw)| raw.held())
        .collect()
}

/// Every result `record` (a microcompact) cleared, in stored order.
pub fn cleared(
    session: &Session,
    record: &CompactionRecord,
    calls: &Calls<'_>,
    carried: &HashMap<usize, &[String]>,
    counter: &dyn Counter,
) -> Vec<ClearedResult> {
    cleared_parts(session, record, calls)
        .into_iter()
        .map(|(m, call_id, raw)| {
            let call = calls.calls.get(call_id);
            // The stored block is what the text is read from (`raw` keeps it compact, often
            // packed): a count kept under it spares unpacking and parsing it at every update.
            let probe = || {
                Message::new(
                    m.index,
                    Role::User,
                    vec![Part::ToolResult {
                        call_id: call_id.to_owned(),
                        text: crate::model::Body::plain(stored_text(&raw.value())),
                        is_error: false,
                        raw: Value::Null.into(),
                    }],
                )
            };
            ClearedResult {
                index: m.index,
                call_id: call_id.to_owned(),
                call_index: call.map(|c| c.0),
                tool: call.map(|c| c.1.to_owned()),
                paths: carried
                    .get(&m.index)
                    .map(|p| p.to_vec())
                    .unwrap_or_default(),
                tokens_counted: counter.count_from(raw.held(), &probe),
            }
        })
        .collect()
}
