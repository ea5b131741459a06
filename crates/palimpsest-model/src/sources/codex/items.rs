//! One rollout `response_item` as a message: message content parts, reasoning, function and
//! custom tool calls with their outputs (string or JSON-in-string), and the opaque `compaction`
//! item. Ordering, visibility and compaction across items are `build`'s job.

use serde_json::{Value, json};

use crate::model::{Message, MessageKind, Part, Role};

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn content_parts(content: Option<&Value>) -> Vec<Part> {
    let Some(Value::Array(items)) = content else {
        return match content {
            Some(Value::String(t)) => vec![Part::Text { text: t.clone() }],
            _ => Vec::new(),
        };
    };
    items
        .iter()
        .map(|c| match s(c, "type") {
            Some("input_text" | "output_text" | "text") => Part::Text {
                text: s(c, "text").unwrap_or("").to_owned(),
            },
            Some("input_image") => {
                let url = s(c, "image_url").unwrap_or("");
                let mime = url
                    .strip_prefix("data:")
                    .and_then(|r| r.split(';').next())
                    .unwrap_or("image/*");
                Part::Image {
                    mime: mime.to_owned(),
                    size: url.len(),
                }
            }
            other => Part::Other {
                original_type: other.unwrap_or("unknown").to_owned(),
                raw: c.clone(),
            },
        })
        .collect()
}

/// A tool output as text: a string, or `input_text` items joined. Old `shell` outputs are a
/// JSON string `{"output", "metadata": {"exit_code"}}`: their output is the text and a
/// non-zero exit code an error.
fn output(v: Option<&Value>) -> (String, bool) {
    match v {
        Some(Value::String(t)) => {
            if t.starts_with('{')
                && let Ok(inner) = serde_json::from_str::<Value>(t)
                && let Some(out) = s(&inner, "output")
            {
                let code = inner
                    .get("metadata")
                    .and_then(|m| m.get("exit_code"))
                    .and_then(Value::as_i64);
                return (out.to_owned(), code.is_some_and(|c| c != 0));
            }
            (t.clone(), false)
        }
        Some(Value::Array(items)) => (
            items
                .iter()
                .map(|i| {
                    s(i, "text")
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("[{}]", s(i, "type").unwrap_or("item")))
                })
                .collect::<Vec<_>>()
                .join("\n"),
            false,
        ),
        Some(Value::Object(o)) => {
            let text = o.get("content").and_then(Value::as_str).unwrap_or("");
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            (text.to_owned(), failed)
        }
        _ => (String::new(), false),
    }
}

/// One response item as a message; `None` for items that are not messages.
pub fn item(p: &Value) -> Option<Message> {
    let typ = s(p, "type")?;
    let call_id = || s(p, "call_id").unwrap_or("").to_owned();
    let (role, parts, kind) = match typ {
        "message" => {
            let role = match s(p, "role") {
                Some("assistant") => Role::Assistant,
                Some("developer" | "system") => Role::System,
                _ => Role::User,
            };
            (role, content_parts(p.get("content")), MessageKind::Ordinary)
        }
        "reasoning" => {
            let mut texts: Vec<String> = p
                .get("summary")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| s(x, "text").map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Array(c)) = p.get("content") {
                texts.extend(c.iter().filter_map(|x| s(x, "text").map(str::to_owned)));
            }
            let text = texts.join("\n");
            let redacted = text.is_empty() && p.get("encrypted_content").is_some();
            let part = Part::Thinking { text, redacted };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "function_call" => {
            let args = s(p, "arguments").unwrap_or("");
            // Arguments are a JSON string; keep the string itself when it is not valid JSON.
            let arguments = serde_json::from_str(args).unwrap_or_else(|_| json!(args));
            let part = Part::ToolCall {
                id: call_id(),
                name: s(p, "name").unwrap_or("").to_owned(),
                arguments: arguments.into(),
            };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "custom_tool_call" => {
            let part = Part::ToolCall {
                id: call_id(),
                name: s(p, "name").unwrap_or("").to_owned(),
                arguments: p.get("input").cloned().unwrap_or(Value::Null).into(),
            };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "local_shell_call" => {
            let part = Part::ToolCall {
                id: call_id(),
                name: "local_shell".into(),
                arguments: p.get("action").cloned().unwrap_or(Value::Null).into(),
            };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let (text, is_error) = output(p.get("output"));
            let mut raw = p.clone();
            if let (Value::Object(o), Some(Value::String(_))) = (&mut raw, p.get("output")) {
                // `text` already holds the string; the raw view has the line.
                o.remove("output");
            }
            let part = Part::ToolResult {
                call_id: call_id(),
                text: text.into(),
                is_error,
                raw: raw.into(),
            };
            (Role::Tool, vec![part], MessageKind::Ordinary)
        }
        "compaction" | "compaction_summary" => {
            let size = s(p, "encrypted_content").map_or(0, str::len);
            let part = Part::Other {
                original_type: typ.to_owned(),
                raw: json!({ "encrypted_content_bytes": size }),
            };
            (Role::User, vec![part], MessageKind::Summary)
        }
        _ => {
            let part = Part::Other {
                original_type: typ.to_owned(),
                raw: p.clone(),
            };
            let mut m = Message::new(0, Role::Assistant, vec![part]);
            if typ == "ghost_snapshot" {
                // Undo snapshots are bookkeeping: never sent, never shown.
                m.kind = MessageKind::Notification;
                m.agent_visible = false;
                m.user_visible = false;
            }
            return Some(m);
        }
    };
    let mut m = Message::new(0, role, parts);
    m.kind = kind;
    m.id = s(p, "id").map(str::to_owned);
    // Instructions, injected context and opaque summaries are not shown by Codex's UI.
    if role == Role::System || kind == MessageKind::Summary || is_injected(&m.text()) {
        m.user_visible = false;
    }
    Some(m)
}

/// Context Codex injects as user messages (instructions, environment) rather than prompts.
pub(super) fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<environment_context>")
        || t.starts_with("<user_instructions>")
        || t.starts_with("# AGENTS.md")
        || t.starts_with("<turn_aborted>")
}
