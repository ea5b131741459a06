//! A message log's items (messages, compaction records, Anthropic's top-level `system`) laid out
//! as a timeline: explicit records become [`CompactionRecord`]s, messages before the latest cut
//! are hidden from the model unless a hint says otherwise, and paths named by cap markers or
//! compacted blocks become links.

use std::path::Path;

use serde_json::{Value, json};

use super::convert::{convert, flatten_text, push_link};
use crate::error::{Error, Result};
use crate::model::{CompactionRecord, LinkKind, Message, MessageKind, Part, Role, Trigger};
use crate::sources::coworker::block::parse_transcript_path;
use crate::sources::coworker::cap::spill_markers_in_value;

/// One stored item of a log.
#[derive(Debug)]
pub enum Item {
    /// A message, or the error (naming file and line) and raw text of one that did not parse.
    Message {
        /// 1-based line (JSONL) or element number (JSON).
        line: usize,
        /// The value or (error, raw text).
        value: std::result::Result<Value, (String, String)>,
    },
    /// `{"compaction": {...}}`: an explicit compaction record.
    Compaction {
        /// 1-based line or element number.
        line: usize,
        /// The whole item.
        value: Value,
    },
    /// Anthropic's top-level `system` (or a `{"system": ...}` line).
    System {
        /// 1-based line, or 0 for a document's top-level key.
        line: usize,
        /// The `system` value (string or text blocks).
        value: Value,
    },
}

impl Item {
    /// Classify one line or array element.
    pub fn from_line(line: usize, value: std::result::Result<Value, (String, String)>) -> Self {
        match value {
            Ok(v) if v.get("role").is_none() && v.get("compaction").is_some() => {
                Item::Compaction { line, value: v }
            }
            Ok(v) if v.get("role").is_none() && v.get("system").is_some() => Item::System {
                line,
                value: v["system"].clone(),
            },
            value => Item::Message { line, value },
        }
    }

    /// Its line or element number.
    pub fn line(&self) -> usize {
        match self {
            Item::Message { line, .. }
            | Item::Compaction { line, .. }
            | Item::System { line, .. } => *line,
        }
    }

    /// Its stored JSON, as text.
    pub fn value_text(&self) -> Option<String> {
        match self {
            Item::Message { value: Ok(v), .. }
            | Item::Compaction { value: v, .. }
            | Item::System { value: v, .. } => Some(v.to_string()),
            Item::Message {
                value: Err((_, raw)),
                ..
            } => Some(raw.clone()),
        }
    }
}

/// The items of one JSON document (array, or object with `messages`, `system`, `compactions`),
/// and the document's other top-level keys.
pub fn document_items(path: &Path, v: Value) -> Result<(Vec<Item>, Option<Value>)> {
    match v {
        Value::Array(a) => Ok((
            a.into_iter()
                .enumerate()
                .map(|(i, v)| Item::from_line(i + 1, Ok(v)))
                .collect(),
            None,
        )),
        Value::Object(mut o) => {
            let Some(Value::Array(msgs)) = o.remove("messages") else {
                return Err(Error::format(path, "holds no `messages` array"));
            };
            let mut items = Vec::new();
            if let Some(sys) = o.remove("system") {
                items.push(Item::System {
                    line: 0,
                    value: sys,
                });
            }
            items.extend(
                msgs.into_iter()
                    .enumerate()
                    .map(|(i, v)| Item::from_line(i + 1, Ok(v))),
            );
            if let Some(Value::Array(recs)) = o.remove("compactions") {
                items.extend(recs.into_iter().enumerate().map(|(i, r)| Item::Compaction {
                    line: i + 1,
                    value: json!({ "compaction": r }),
                }));
            }
            Ok((items, Some(Value::Object(o))))
        }
        _ => Err(Error::format(path, "is not a JSON array of messages")),
    }
}

/// Which provider's shape a log is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI Chat Completions (`tool_calls`, `tool` role, `image_url` parts).
    OpenAi,
    /// Anthropic Messages (`tool_use` / `tool_result` / `thinking` blocks, top-level `system`).
    Anthropic,
    /// Evidence of both (a harness log of more than one provider).
    Mixed,
    /// Plain text only: either shape.
    Unknown,
}

/// Detect the shape of a log from its messages (and whether it had a top-level `system`).
pub fn detect_dialect(messages: &[Value], system_key: bool) -> Dialect {
    let mut openai = false;
    let mut anthropic = system_key;
    for m in messages {
        let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
        openai |= matches!(role, "tool" | "developer" | "function" | "system")
            || m.get("tool_calls").is_some()
            || m.get("tool_call_id").is_some();
        for b in m
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match b.get("type").and_then(Value::as_str).unwrap_or_default() {
                "image_url" | "input_audio" | "refusal" => openai = true,
                "tool_use" | "tool_result" | "thinking" | "redacted_thinking" => anthropic = true,
                "image" if b.get("source").is_some() => anthropic = true,
                _ => {}
            }
        }
    }
    match (openai, anthropic) {
        (true, true) => Dialect::Mixed,
        (true, false) => Dialect::OpenAi,
        (false, true) => Dialect::Anthropic,
        (false, false) => Dialect::Unknown,
    }
}

/// The laid-out log.
#[derive(Debug, Default)]
pub struct Built {
    /// The messages.
    pub messages: Vec<Message>,
    /// Explicit records, plus one per summary message no record names.
    pub compactions: Vec<CompactionRecord>,
    /// For each message, the item it came from.
    pub origin: Vec<Option<usize>>,
    /// The detected shape.
    pub dialect: Option<Dialect>,
}

/// Lay out the items of the log at `path`.
pub fn build(path: &Path, items: &[Item]) -> Built {
    let mut out = Built::default();
    let mut explicit = Vec::new();
    let mut records: Vec<(usize, &Value)> = Vec::new();
    let line_error = |line: usize, message: String| {
        Error::Line {
            path: path.to_owned(),
            line,
            message,
        }
        .to_string()
    };
    for (k, it) in items.iter().enumerate() {
        let idx = out.messages.len();
        let (m, hinted) = match it {
            Item::Compaction { value, line } => match value.get("compaction") {
                Some(r) if r.is_object() => {
                    records.push((idx, r));
                    continue;
                }
                _ => (
                    error_row(
                        idx,
                        line_error(*line, "`compaction` is not an object".into()),
                        value.to_string(),
                    ),
                    true,
                ),
            },
            Item::System { value, .. } => {
                let mut m = Message::new(
                    idx,
                    Role::System,
                    vec![Part::Text {
                        text: flatten_text(value),
                    }],
                );
                m.user_visible = false;
                (m, false)
            }
            Item::Message { line, value: Ok(v) } => match convert(v, idx, true) {
                Ok(mut c) => {
                    // Instructions are not part of the conversation a user reads.
                    if c.message.role == Role::System && !c.explicit_user {
                        c.message.user_visible = false;
                    }
                    (c.message, c.explicit_agent)
                }
                Err(why) => (error_row(idx, line_error(*line, why), v.to_string()), true),
            },
            Item::Message {
                value: Err((why, raw)),
                ..
            } => (error_row(idx, why.clone(), raw.clone()), true),
        };
        out.messages.push(m);
        out.origin.push(Some(k));
        explicit.push(hinted);
    }
    for m in &mut out.messages {
        links(m);
    }
    out.compactions = records
        .iter()
        .map(|(pos, r)| record(*pos, r, &out.messages))
        .collect();
    for (i, m) in out.messages.iter().enumerate() {
        if m.kind == MessageKind::Summary
            && !out
                .compactions
                .iter()
                .any(|c| c.summary_index == Some(i) || c.cut_index == i)
        {
            out.compactions.push(CompactionRecord {
                cut_index: i,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index: Some(i),
                kept: Vec::new(),
                raw: None,
                applied_index: None,
                archived: None,
            });
        }
    }
    out.compactions.sort_by_key(|c| c.cut_index);
    // The latest cut hides what came before it from the model; system instructions are
    // re-sent on every request, and an explicit hint always wins.
    if let Some(cut) = out.compactions.iter().map(|c| c.cut_index).max() {
        for (i, m) in out.messages.iter_mut().enumerate().take(cut) {
            if !explicit[i] && m.role != Role::System {
                m.agent_visible = false;
            }
        }
    }
    let values: Vec<Value> = items
        .iter()
        .filter_map(|i| match i {
            Item::Message { value: Ok(v), .. } => Some(v.clone()),
            _ => None,
        })
        .collect();
    let system_key = items.iter().any(|i| matches!(i, Item::System { .. }));
    out.dialect = Some(detect_dialect(&values, system_key));
    out
}

fn error_row(idx: usize, error: String, raw: String) -> Message {
    Message::unreadable(idx, "unparsed", raw, error)
}

/// An explicit record; `cut_index` defaults to where the record sits, `summary_index` to the
/// cut when the message there is a summary.
fn record(pos: usize, r: &Value, msgs: &[Message]) -> CompactionRecord {
    let num = |k: &str| r.get(k).and_then(Value::as_u64);
    let cut = num("cut_index").map_or(pos, |c| c as usize);
    let summary_index = num("summary_index").map(|s| s as usize).or_else(|| {
        msgs.get(cut)
            .filter(|m| m.kind == MessageKind::Summary)
            .map(|_| cut)
    });
    CompactionRecord {
        cut_index: cut,
        trigger: r
            .get("trigger")
            .and_then(|t| serde_json::from_value::<Trigger>(t.clone()).ok()),
        pre_tokens: num("pre_tokens"),
        post_tokens: num("post_tokens"),
        post_tokens_from_usage: false,
        summary_index,
        kept: r
            .get("kept")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .map(|k| k as usize)
                    .collect()
            })
            .unwrap_or_default(),
        raw: Some(r.clone()),
        applied_index: None,
        archived: None,
    }
}

/// A coworker-style compacted block is a summary; it and cap markers name files to link.
fn links(m: &mut Message) {
    let text = m.text();
    if m.kind == MessageKind::Ordinary && text.trim_start().starts_with("<compacted-history>") {
        m.kind = MessageKind::Summary;
    }
    if m.kind == MessageKind::Summary
        && let Some(p) = parse_transcript_path(&text)
    {
        push_link(m, LinkKind::Transcript, &p);
    }
    let mut markers = Vec::new();
    let mut paths = Vec::new();
    for p in &m.parts {
        if let Part::ToolResult { text, .. } = p {
            let text = text.text();
            match serde_json::from_str::<Value>(&text) {
                Ok(v @ (Value::Object(_) | Value::Array(_))) => {
                    spill_markers_in_value(&v, &mut markers, &mut paths)
                }
                _ => spill_markers_in_value(
                    &Value::String(text.into_owned()),
                    &mut markers,
                    &mut paths,
                ),
            }
        }
    }
    for p in markers
        .iter()
        .filter_map(|mk| mk.spill_path.clone())
        .chain(paths)
    {
        push_link(m, LinkKind::SpillFile, &p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialects_are_told_apart() {
        let openai = [json!({"role":"tool","tool_call_id":"c","content":"x"})];
        let anthropic = [
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}),
        ];
        let plain = [json!({"role":"user","content":"hi"})];
        assert_eq!(
            detect_dialect(&openai, false),
            Dialect::OpenAi,
            "tool role is OpenAI"
        );
        assert_eq!(
            detect_dialect(&anthropic, false),
            Dialect::Anthropic,
            "tool_result is Anthropic"
        );
        assert_eq!(
            detect_dialect(&plain, true),
            Dialect::Anthropic,
            "top-level system is Anthropic"
        );
        assert_eq!(
            detect_dialect(&plain, false),
            Dialect::Unknown,
            "plain text is either"
        );
    }
}
