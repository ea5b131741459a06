//! One provider-shaped message into a [`Message`]: OpenAI Chat Completions (`tool_calls`, the
//! `tool` role), Anthropic Messages (`tool_use` / `tool_result` / `thinking` blocks) and the
//! coworker extensions (`notice` role, sidecar keys). Shared by the message-log and coworker
//! readers; visibility across compactions is left to them.
//!
//! Keys that are not content either provider receives become [`Message::details`]: a harness's
//! sidecars (`usage`, `timing`, `reasoning`, …) are shown, never counted as context.

use serde_json::{Map, Value};

use crate::model::{Link, LinkKind, Message, MessageKind, Part, Role};

/// Keys that hold content in one of the provider shapes.
const CONTENT_KEYS: &[&str] = &[
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "function_call",
    "refusal",
    "reasoning_content",
];

/// The message-log interchange hints (docs/FORMATS.md, "Message logs and the interchange").
const HINT_KEYS: &[&str] = &[
    "agent_visible",
    "user_visible",
    "kind",
    "id",
    "links",
    "is_error",
];

/// A converted message and which visibility flags the input set explicitly.
#[derive(Debug)]
pub struct Converted {
    /// The message; visible to both sides unless a hint or the `notice` role says otherwise.
    pub message: Message,
    /// True when the input carried an `agent_visible` hint (compaction rules must not override it).
    pub explicit_agent: bool,
    /// True when the input carried a `user_visible` hint.
    pub explicit_user: bool,
}

/// Convert one stored message. `hints` enables the message-log hint keys; without it they are
/// ordinary details. Errors say what is wrong with the value (the caller adds file and line).
pub fn convert(v: &Value, index: usize, hints: bool) -> Result<Converted, String> {
    let obj = v.as_object().ok_or("not a JSON object")?;
    let role_name = obj
        .get("role")
        .and_then(Value::as_str)
        .ok_or("no `role` string")?;
    if role_name == "notice" {
        return Ok(notice(obj, index));
    }
    let role = match role_name {
        "system" | "developer" => Role::System,
        "user" | "human" => Role::User,
        "assistant" | "model" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        other => return Err(format!("unknown role `{other}`")),
    };
    let mut parts = Vec::new();
    if let Some(r) = obj.get("reasoning_content").and_then(Value::as_str) {
        parts.push(Part::Thinking {
            text: r.to_owned(),
            redacted: false,
        });
    }
    let content = obj.get("content").unwrap_or(&Value::Null);
    if role == Role::Tool {
        let call_id = obj
            .get("tool_call_id")
            .or_else(|| obj.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let text = flatten_text(content);
        let is_error = obj
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || looks_like_error(&text);
        parts.push(Part::ToolResult {
            call_id: call_id.to_owned(),
            // The text is kept once: the stored content notes it (the raw view has it whole).
            raw: crate::sources::lazy::result_raw(content, &text).into(),
            text: text.into(),
            is_error,
        });
    } else {
        content_parts(content, &mut parts);
    }
    if let Some(r) = obj.get("refusal").and_then(Value::as_str) {
        parts.push(Part::Text { text: r.to_owned() });
    }
    if let Some(calls) = obj.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            let f = c.get("function").unwrap_or(c);
            parts.push(Part::ToolCall {
                id: str_of(c, "id"),
                name: str_of(f, "name"),
                arguments: arguments(f.get("arguments")).into(),
            });
        }
    }
    if let Some(f) = obj.get("function_call") {
        parts.push(Part::ToolCall {
            id: String::new(),
            name: str_of(f, "name"),
            arguments: arguments(f.get("arguments")).into(),
        });
    }
    let mut m = Message::new(index, role, parts);
    m.created = created_of(obj);
    let mut explicit_agent = false;
    let mut explicit_user = false;
    if hints {
        if let Some(b) = obj.get("agent_visible").and_then(Value::as_bool) {
            m.agent_visible = b;
            explicit_agent = true;
        }
        if let Some(b) = obj.get("user_visible").and_then(Value::as_bool) {
            m.user_visible = b;
            explicit_user = true;
        }
        if let Some(k) = obj.get("kind") {
            m.kind = serde_json::from_value::<MessageKind>(k.clone())
                .map_err(|_| format!("unknown kind {k}"))?;
        }
        m.id = obj.get("id").and_then(Value::as_str).map(str::to_owned);
        if let Some(links) = obj.get("links") {
            m.links = serde_json::from_value::<Vec<Link>>(links.clone())
                .map_err(|e| format!("bad `links`: {e}"))?;
        }
    }
    let skip = |k: &str| CONTENT_KEYS.contains(&k) || (hints && HINT_KEYS.contains(&k));
    m.details = details(obj, skip).map(Into::into);
    Ok(Converted {
        message: m,
        explicit_agent,
        explicit_user,
    })
}

/// A coworker `notice`: shown to the user, never sent to the model.
fn notice(obj: &Map<String, Value>, index: usize) -> Converted {
    let text = obj
        .get("text")
        .or_else(|| obj.get("content"))
        .map(flatten_text)
        .unwrap_or_default();
    let mut m = Message::new(index, Role::System, vec![Part::Text { text }]);
    m.kind = MessageKind::Notification;
    m.agent_visible = false;
    m.created = created_of(obj);
    m.details = details(obj, |k| k == "role" || k == "text").map(Into::into);
    Converted {
        message: m,
        explicit_agent: true,
        explicit_user: false,
    }
}

fn details(obj: &Map<String, Value>, skip: impl Fn(&str) -> bool) -> Option<Value> {
    let rest: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| !skip(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!rest.is_empty()).then_some(Value::Object(rest))
}

/// `ts` (Unix seconds, coworker) or `timestamp` / `created_at` (RFC 3339), as Unix ms.
fn created_of(obj: &Map<String, Value>) -> Option<i64> {
    if let Some(ts) = obj.get("ts").and_then(Value::as_f64) {
        return Some((ts * 1000.0).round() as i64);
    }
    ["timestamp", "created_at"].iter().find_map(|k| {
        let s = obj.get(*k)?.as_str()?;
        chrono::DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|d| d.timestamp_millis())
    })
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// OpenAI sends arguments as a JSON string; parse it when it holds JSON, keep it otherwise.
fn arguments(a: Option<&Value>) -> Value {
    match a {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// A result whose text is a JSON object with an `error` key (coworker's denied, lost and
/// failed calls) reports a failure.
fn looks_like_error(text: &str) -> bool {
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(text)
            .ok()
            .is_some_and(|v| v.get("error").is_some())
}

/// The text of a content value: a string as is, text blocks joined with newlines.
pub fn flatten_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.clone()),
                _ => b.get("text").and_then(Value::as_str).map(str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The parts of a `content` value of either provider shape.
fn content_parts(content: &Value, parts: &mut Vec<Part>) {
    match content {
        Value::Null => {}
        Value::String(s) if s.is_empty() => {}
        Value::String(s) => parts.push(Part::Text { text: s.clone() }),
        Value::Array(blocks) => parts.extend(blocks.iter().map(block)),
        other => parts.push(Part::Other {
            original_type: "content".into(),
            raw: other.clone(),
        }),
    }
}

fn block(b: &Value) -> Part {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or_default();
    match ty {
        "text" | "input_text" | "output_text" => Part::Text {
            text: str_of(b, "text"),
        },
        "refusal" => Part::Text {
            text: str_of(b, "refusal"),
        },
        "thinking" => Part::Thinking {
            text: str_of(b, "thinking"),
            redacted: false,
        },
        "redacted_thinking" => Part::Thinking {
            text: String::new(),
            redacted: true,
        },
        "tool_use" | "server_tool_use" => Part::ToolCall {
            id: str_of(b, "id"),
            name: str_of(b, "name"),
            arguments: b.get("input").cloned().unwrap_or(Value::Null).into(),
        },
        "tool_result" => {
            let text = flatten_text(b.get("content").unwrap_or(&Value::Null));
            Part::ToolResult {
                call_id: str_of(b, "tool_use_id"),
                // The text is kept once: the stored block notes it (the raw view has it whole).
                raw: crate::sources::lazy::result_raw(b, &text).into(),
                text: text.into(),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            }
        }
        "image_url" => {
            let url = b
                .pointer("/image_url/url")
                .or_else(|| b.get("image_url"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            image_from_url(url)
        }
        "image" => match b.pointer("/source/type").and_then(Value::as_str) {
            Some("base64") => Part::Image {
                mime: b
                    .pointer("/source/media_type")
                    .and_then(Value::as_str)
                    .unwrap_or("image/*")
                    .to_owned(),
                size: b
                    .pointer("/source/data")
                    .and_then(Value::as_str)
                    .map_or(0, str::len),
            },
            _ => image_from_url(
                b.pointer("/source/url")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
        },
        _ => Part::Other {
            original_type: if ty.is_empty() { "unknown" } else { ty }.to_owned(),
            raw: b.clone(),
        },
    }
}

/// `data:image/png;base64,...` gives mime and size; a remote URL gives neither.
fn image_from_url(url: &str) -> Part {
    if let Some(rest) = url.strip_prefix("data:") {
        let (head, data) = rest.split_once(',').unwrap_or((rest, ""));
        let mime = head.split(';').next().unwrap_or("image/*");
        return Part::Image {
            mime: mime.to_owned(),
            size: data.len(),
        };
    }
    Part::Image {
        mime: "image/*".into(),
        size: 0,
    }
}

/// Add a link unless the message already has it.
pub fn push_link(m: &mut Message, kind: LinkKind, path: &str) {
    if !m.links.iter().any(|l| l.kind == kind && l.path == path) {
        m.links.push(Link {
            kind,
            path: path.to_owned(),
            session: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_call_arguments_are_parsed_and_sidecars_become_details() {
        let v = json!({"role":"assistant","content":"","usage":{"input":5},
            "tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"a.py\"}"}}]});
        let c = convert(&v, 3, false).unwrap();
        assert_eq!(
            c.message.parts,
            vec![Part::ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: json!({"path": "a.py"}).into()
            }],
            "the empty content adds no text part and the string arguments are parsed"
        );
        assert_eq!(
            c.message.details.map(|d| d.value()),
            Some(json!({"usage":{"input":5}})),
            "usage is a sidecar, shown as a detail"
        );
    }

    #[test]
    fn anthropic_blocks_map_to_parts() {
        let v = json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"18C"}],"is_error":true},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]});
        let m = convert(&v, 0, true).unwrap().message;
        assert!(
            matches!(&m.parts[0], Part::ToolResult { call_id, text, is_error: true, .. } if call_id == "t1" && text == "18C"),
            "tool_result block keeps its id, text and error flag: {:?}",
            m.parts[0]
        );
        assert_eq!(
            m.parts[1],
            Part::Image {
                mime: "image/png".into(),
                size: 4
            },
            "base64 image keeps mime and data length"
        );
    }

    #[test]
    fn hints_are_honoured_only_when_enabled() {
        let v = json!({"role":"user","content":"x","agent_visible":false,"kind":"summary"});
        let with = convert(&v, 0, true).unwrap();
        assert!(
            !with.message.agent_visible && with.explicit_agent,
            "hint hides it from the model"
        );
        assert_eq!(with.message.kind, MessageKind::Summary, "kind hint is read");
        let without = convert(&v, 0, false).unwrap();
        assert!(
            without.message.agent_visible,
            "without hints the key is only a detail"
        );
    }
}
