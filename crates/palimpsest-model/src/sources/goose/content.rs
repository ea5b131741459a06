//! goose message content → [`Part`]s, and goose's `metadata` → visibility.
//!
//! Shared by the SQLite reader and the legacy `.jsonl` reader: both store the same serde shapes
//! (goose-format.md §2). The rule is tolerance: an item we do not model is kept as
//! [`Part::Other`] with its tag, never dropped and never fatal (goose itself fails the whole
//! session on an unknown tag). Which *kind* a message is (summary, continuation, …) is left to
//! `kinds`.

use serde_json::{Map, Value};

use crate::model::{Message, MessageKind, Part, Role};

/// goose `created` values above this are milliseconds (goose HEAD divides them by 1000).
const MS_THRESHOLD: i64 = 10_000_000_000;

/// A goose `created` / `created_timestamp` value (seconds, or milliseconds when > 10^10) in
/// Unix milliseconds.
pub fn created_ms(raw: i64) -> i64 {
    if raw > MS_THRESHOLD {
        raw
    } else {
        raw.saturating_mul(1000)
    }
}

/// goose's role strings. goose skips rows of any other role; we keep them (as `user`) and let
/// the caller mark the message with an error, so nothing stored disappears.
pub fn role(raw: &str) -> Option<Role> {
    match raw {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// Visibility from a goose metadata object: `(user_visible, agent_visible)`.
///
/// goose gives both fields no serde default, so a NULL, unparsable or partial object falls
/// back to the default `(true, true)` as a whole — we do exactly the same.
pub fn visibility(meta: Option<&Value>) -> (bool, bool) {
    let Some(obj) = meta.and_then(Value::as_object) else {
        return (true, true);
    };
    match (
        obj.get("userVisible").and_then(Value::as_bool),
        obj.get("agentVisible").and_then(Value::as_bool),
    ) {
        (Some(u), Some(a)) => (u, a),
        _ => (true, true),
    }
}

/// The metadata keys beyond visibility (HEAD's `usage`, `inference`, `turnContext`, …), kept as
/// message details; `None` when there are none.
pub fn extra_metadata(meta: Option<&Value>) -> Option<Value> {
    let obj = meta?.as_object()?;
    let extra: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| k.as_str() != "userVisible" && k.as_str() != "agentVisible")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!extra.is_empty()).then(|| Value::Object(extra))
}

/// Map a goose `content` array to parts. A value that is not an array is kept whole as one
/// `other` part (the caller reports it).
pub fn parts(content: &Value) -> Vec<Part> {
    match content {
        Value::Array(items) => items.iter().map(part).collect(),
        other => vec![Part::Other {
            original_type: "content".into(),
            raw: other.clone(),
        }],
    }
}

fn str_field<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// One content item.
pub fn part(item: &Value) -> Part {
    let tag = str_field(item, "type");
    match tag {
        "text" => Part::Text {
            text: str_field(item, "text").to_owned(),
        },
        "image" => Part::Image {
            mime: str_field(item, "mimeType").to_owned(),
            size: str_field(item, "data").len(),
        },
        "toolRequest" => tool_request(item),
        "toolResponse" => tool_response(item),
        "thinking" => Part::Thinking {
            text: str_field(item, "thinking").to_owned(),
            redacted: false,
        },
        // Early-2026 goose stored reasoning under its own tag; HEAD migrates it to thinking.
        "reasoning" => Part::Thinking {
            text: str_field(item, "text").to_owned(),
            redacted: false,
        },
        "redactedThinking" => Part::Thinking {
            text: String::new(),
            redacted: true,
        },
        _ => Part::Other {
            original_type: if tag.is_empty() {
                "unknown".into()
            } else {
                tag.to_owned()
            },
            raw: item.clone(),
        },
    }
}

/// `toolRequest`: `{"id", "toolCall": {"status":"success","value":{"name","arguments"}}}`.
/// An error wrapper (`{"status":"error","error":"-32602: …"}`, arguments goose could not parse)
/// becomes a call with an empty name and `{"error": "<message>"}` as arguments: the model did
/// issue a call, and the error is what is left of it.
fn tool_request(item: &Value) -> Part {
    let id = str_field(item, "id").to_owned();
    let call = item.get("toolCall").unwrap_or(&Value::Null);
    if str_field(call, "status") == "error" {
        return Part::ToolCall {
            id,
            name: String::new(),
            arguments: serde_json::json!({ "error": str_field(call, "error") }).into(),
        };
    }
    let value = call.get("value").unwrap_or(&Value::Null);
    Part::ToolCall {
        id,
        name: str_field(value, "name").to_owned(),
        arguments: value
            .get("arguments")
            .cloned()
            .unwrap_or(Value::Null)
            .into(),
    }
}

/// `toolResponse`: the result is a bare array of MCP items (≤ v1.15) or a CallToolResult
/// object `{"content":[…],"isError"?}` (≥ v1.16); `status: error` is a harness-level failure.
fn tool_response(item: &Value) -> Part {
    let call_id = str_field(item, "id").to_owned();
    let result = item.get("toolResult").cloned().unwrap_or(Value::Null);
    let (text, is_error) = if str_field(&result, "status") == "error" {
        (str_field(&result, "error").to_owned(), true)
    } else {
        let value = result.get("value").unwrap_or(&Value::Null);
        let (items, is_error) = match value {
            Value::Array(items) => (items.as_slice(), false),
            Value::Object(obj) => (
                obj.get("content")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default(),
                obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
            ),
            _ => (&[][..], false),
        };
        let texts: Vec<&str> = items
            .iter()
            .filter(|i| str_field(i, "type") == "text")
            .map(|i| str_field(i, "text"))
            .collect();
        (texts.join("\n"), is_error)
    };
    Part::ToolResult {
        call_id,
        text: text.into(),
        is_error,
        raw: result.into(),
    }
}

/// Build a message from goose's stored pieces (role string, content value, metadata value).
/// Kinds are all `Ordinary` here; `kinds::classify` sets them once the whole session is known.
pub fn message(
    index: usize,
    role_raw: &str,
    content: &Value,
    meta: Option<&Value>,
    created: Option<i64>,
) -> Message {
    let (user_visible, agent_visible) = visibility(meta);
    let mut m = Message::new(index, role(role_raw).unwrap_or(Role::User), parts(content));
    m.kind = MessageKind::Ordinary;
    m.created = created.map(created_ms);
    m.user_visible = user_visible;
    m.agent_visible = agent_visible;
    m.details = extra_metadata(meta).map(Into::into);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_result_array_and_object_forms_read_the_same() {
        let old = part(
            &json!({"type":"toolResponse","id":"t","toolResult":{"status":"success",
            "value":[{"type":"text","text":"a"},{"type":"image","data":"xx","mimeType":"image/png"},{"type":"text","text":"b"}]}}),
        );
        let new = part(
            &json!({"type":"toolResponse","id":"t","toolResult":{"status":"success",
            "value":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}}),
        );
        for p in [&old, &new] {
            match p {
                Part::ToolResult { text, is_error, .. } => {
                    assert_eq!(text, "a\nb", "text items are joined with a newline");
                    assert!(!is_error, "a success wrapper is not an error");
                }
                other => panic!("toolResponse must map to a tool result, got {other:?}"),
            }
        }
    }

    #[test]
    fn error_shapes_are_flagged() {
        let is_error = part(
            &json!({"type":"toolResponse","id":"t","toolResult":{"status":"success",
            "value":{"content":[{"type":"text","text":"permission denied"}],"isError":true}}}),
        );
        let status = part(&json!({"type":"toolResponse","id":"t",
            "toolResult":{"status":"error","error":"-32603: Tool not found: foo__bar"}}));
        assert!(
            matches!(is_error, Part::ToolResult { is_error: true, ref text, .. } if text == "permission denied"),
            "isError:true is a tool-level failure: {is_error:?}"
        );
        assert!(
            matches!(status, Part::ToolResult { is_error: true, ref text, .. } if text == "-32603: Tool not found: foo__bar"),
            "status:error keeps the error string as the result text: {status:?}"
        );
        let call = part(&json!({"type":"toolRequest","id":"c7",
            "toolCall":{"status":"error","error":"-32602: Could not parse tool arguments"}}));
        assert_eq!(
            call,
            Part::ToolCall {
                id: "c7".into(),
                name: String::new(),
                arguments: json!({"error": "-32602: Could not parse tool arguments"}).into()
            },
            "an error-wrapped tool request keeps its id and the error"
        );
    }

    #[test]
    fn visibility_falls_back_as_goose_does() {
        assert_eq!(visibility(None), (true, true), "NULL metadata is default");
        assert_eq!(
            visibility(Some(&json!({"userVisible": false}))),
            (true, true),
            "a partial object falls back to the default as a whole"
        );
        assert_eq!(
            visibility(Some(
                &json!({"userVisible": false, "agentVisible": true, "usage": {}})
            )),
            (false, true),
            "extra keys do not disturb the two flags"
        );
    }

    #[test]
    fn seconds_and_milliseconds() {
        assert_eq!(created_ms(1_765_495_266), 1_765_495_266_000, "seconds");
        assert_eq!(created_ms(1_765_495_266_123), 1_765_495_266_123, "ms kept");
    }

    #[test]
    fn unknown_and_legacy_items_are_kept() {
        for tag in [
            "summarizationRequested",
            "conversationCompacted",
            "systemNotification",
            "actionRequired",
            "frontendToolRequest",
            "toolConfirmationRequest",
            "error",
            "somethingFromTheFuture",
        ] {
            let item = json!({"type": tag, "msg": "x"});
            assert_eq!(
                part(&item),
                Part::Other {
                    original_type: tag.into(),
                    raw: item.clone()
                },
                "{tag} must be kept whole as an other part"
            );
        }
    }
}
