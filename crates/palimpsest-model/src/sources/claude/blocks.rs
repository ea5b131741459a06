//! Content blocks of Claude Code lines as [`Part`]s, and the size cap on kept details.
//!
//! `build` decides which line becomes which message; this file only converts one block at a
//! time. Large stored values (an Edit result carries a whole file) are replaced by a size note
//! ([`lazy`]): the raw view (`SessionSource::raw`) re-reads the line when someone wants them.

use serde_json::Value;

use crate::model::Part;

pub use crate::sources::lazy::{lazy, lazy_within};

/// A string field of a JSON object.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn image(b: &Value) -> Part {
    let src = b.get("source");
    Part::Image {
        mime: src
            .and_then(|s| s.get("media_type"))
            .and_then(Value::as_str)
            .unwrap_or("image/*")
            .to_owned(),
        size: src
            .and_then(|s| s.get("data"))
            .and_then(Value::as_str)
            .map_or(0, str::len),
    }
}

fn other(b: &Value) -> Part {
    Part::Other {
        original_type: str_of(b, "type").unwrap_or("unknown").to_owned(),
        raw: lazy(b),
    }
}

/// One block of a user line's content.
pub fn user_block(b: &Value) -> Part {
    match str_of(b, "type") {
        Some("text") => Part::Text {
            text: str_of(b, "text").unwrap_or("").to_owned(),
        },
        Some("image") => image(b),
        Some("tool_result") => tool_result(b),
        _ => other(b),
    }
}

/// A `tool_result` block. When `content` is a plain string, `text` is that string verbatim and
/// `raw` omits it (no second copy); array content is kept in `raw` as stored.
fn tool_result(b: &Value) -> Part {
    let content = b.get("content");
    let text = match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| match str_of(i, "type") {
                Some("text") => str_of(i, "text").map(str::to_owned),
                Some(t) => Some(format!("[{t}]")),
                None => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let mut raw = b.clone();
    if let (Value::Object(o), Some(Value::String(_))) = (&mut raw, content) {
        o.remove("content");
    } else if let Value::Object(o) = &mut raw
        && let Some(c) = o.get_mut("content")
    {
        *c = lazy(c);
    }
    Part::ToolResult {
        call_id: str_of(b, "tool_use_id").unwrap_or("").to_owned(),
        text: text.into(),
        is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
        raw: raw.into(),
    }
}

/// One block of an assistant line's content.
pub fn assistant_block(b: &Value) -> Part {
    match str_of(b, "type") {
        Some("text") => Part::Text {
            text: str_of(b, "text").unwrap_or("").to_owned(),
        },
        Some("thinking") => Part::Thinking {
            text: str_of(b, "thinking").unwrap_or("").to_owned(),
            redacted: false,
        },
        Some("redacted_thinking") => Part::Thinking {
            text: String::new(),
            redacted: true,
        },
        Some("tool_use") => Part::ToolCall {
            id: str_of(b, "id").unwrap_or("").to_owned(),
            name: str_of(b, "name").unwrap_or("").to_owned(),
            arguments: b.get("input").cloned().unwrap_or(Value::Null).into(),
        },
        // Third-party models behind Claude Code write their tool results into assistant
        // lines: a result all the same.
        Some("tool_result") => tool_result(b),
        Some("image") => image(b),
        _ => other(b),
    }
}

/// A line's `toolUseResult` bigger than this is replaced by a size note. It repeats the tool
/// result's content in structured form (a Read's file, a Bash command's output, an Edit's whole
/// original file) and was the largest part of a loaded session: 40 % of the real transcripts'
/// kept content, kept whole up to `DETAIL_BUDGET`. Small ones (a subagent's id, a path and
/// its line counts, a short output) stay.
pub const RESULT_DETAIL_BUDGET: usize = 1024;
