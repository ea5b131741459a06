//! One Gemini CLI message record as the model's messages: a user turn; an answer (thoughts,
//! text, calls) and each call's result as the tool message the model got; a notice the model
//! never gets. Which records there are and what the model holds is `build`'s. Qwen Code, a
//! fork, stores the same `Part`s, read by [`parts`] here too.

use serde_json::{Value, json};

use crate::model::{Message, MessageKind, Part, Role, UsageSplit};
use crate::sources::lazy::result_raw;

/// A record's time, Unix ms.
pub(in crate::sources) fn ms(v: &Value) -> Option<i64> {
    v.as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|d| d.timestamp_millis())
}

/// The text of a `content` (a string, or parts with `text`).
pub(in crate::sources) fn content_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// One record as the model's messages: a user turn; an answer and its calls' results; a
/// notice the model never gets. Its results' texts are moved out of it, not copied.
pub(super) fn expand(id: &str, mut v: Value) -> Vec<Message> {
    let created = ms(&v["timestamp"]);
    let new = |role| {
        let mut m = Message::new(0, role, Vec::new());
        m.id = Some(id.to_owned());
        m.created = created;
        m
    };
    match v["type"].as_str() {
        Some("user") => {
            let mut m = new(Role::User);
            m.parts = parts(&v["content"]);
            vec![m]
        }
        Some("gemini") => {
            let mut m = new(Role::Assistant);
            let thoughts: Vec<String> = v["thoughts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    format!(
                        "{}: {}",
                        t["subject"].as_str().unwrap_or(""),
                        t["description"].as_str().unwrap_or("")
                    )
                })
                .collect();
            if !thoughts.is_empty() {
                m.parts.push(Part::Thinking {
                    text: thoughts.join("\n"),
                    redacted: false,
                });
            }
            m.parts.extend(parts(&v["content"]));
            let calls: &[Value] = v["toolCalls"].as_array().map_or(&[], Vec::as_slice);
            for c in calls {
                m.parts.push(Part::ToolCall {
                    id: c["id"].as_str().unwrap_or_default().to_owned(),
                    name: c["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: c.get("args").cloned().unwrap_or(json!({})).into(),
                });
            }
            if let Some(model) = v.get("model").filter(|x| x.is_string()) {
                m.set_detail("model", model.clone());
            }
            let t = &v["tokens"];
            if t.is_object() {
                let n = |k: &str| t[k].as_u64().unwrap_or(0);
                // The prompt count includes the cached tokens; thoughts are output.
                m.usage.push(UsageSplit {
                    input: n("input").saturating_sub(n("cached")),
                    output: n("output") + n("thoughts"),
                    cache_read: n("cached"),
                    cache_write: 0,
                    cache_write_1h: 0,
                });
            }
            let mut out = vec![m];
            let calls = match v.get_mut("toolCalls") {
                Some(Value::Array(calls)) => std::mem::take(calls),
                _ => Vec::new(),
            };
            for mut c in calls.into_iter().filter(|c| c.get("result").is_some()) {
                let mut r = new(Role::Tool);
                r.created = ms(&c["timestamp"]).or(created);
                let at = c["result"]
                    .as_array()
                    .and_then(|a| a.iter().position(|p| p.get("functionResponse").is_some()));
                let response = at.map_or(
                    &Value::Null,
                    |k| &c["result"][k]["functionResponse"]["response"],
                );
                let which = ["output", "error"]
                    .into_iter()
                    .find(|k| response[*k].is_string());
                let (raw, text) = match (at, which) {
                    (Some(k), Some(key)) => {
                        let raw = result_raw(&c["result"], response[key].as_str().unwrap_or(""));
                        let text = match c["result"][k]["functionResponse"]["response"][key].take()
                        {
                            Value::String(s) => s,
                            _ => String::new(),
                        };
                        (raw, text)
                    }
                    _ => {
                        let text = response.to_string();
                        (result_raw(&c["result"], &text), text)
                    }
                };
                r.parts.push(Part::ToolResult {
                    call_id: c["id"].as_str().unwrap_or_default().to_owned(),
                    raw: raw.into(),
                    text: text.into(),
                    is_error: c["status"] == "error",
                });
                out.push(r);
            }
            out
        }
        other => {
            // `info`, `error`, `warning`: the CLI's notices, shown, never sent.
            let mut m = new(Role::System);
            m.kind = MessageKind::Notification;
            m.agent_visible = false;
            m.parts.push(Part::Text {
                text: content_text(&v["content"]),
            });
            m.set_detail("type", json!(other.unwrap_or("unknown")));
            vec![m]
        }
    }
}

/// A `content` (or a `Content`'s `parts`, Qwen Code's shape) as parts: text, a thought, a
/// function's call or response (a result), inline data; the rest kept.
pub(in crate::sources) fn parts(c: &Value) -> Vec<Part> {
    match c {
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![Part::Text { text: s.clone() }],
        Value::Array(items) => items
            .iter()
            .map(|p| {
                if let Some(t) = p["text"].as_str() {
                    if p["thought"] == true {
                        Part::Thinking {
                            text: t.to_owned(),
                            redacted: false,
                        }
                    } else {
                        Part::Text { text: t.to_owned() }
                    }
                } else if let Some(f) = p.get("functionCall") {
                    Part::ToolCall {
                        id: f["id"].as_str().unwrap_or_default().to_owned(),
                        name: f["name"].as_str().unwrap_or_default().to_owned(),
                        arguments: f.get("args").cloned().unwrap_or(json!({})).into(),
                    }
                } else if let Some(f) = p.get("functionResponse") {
                    let text = f["response"]["output"]
                        .as_str()
                        .map_or_else(|| f["response"].to_string(), str::to_owned);
                    Part::ToolResult {
                        call_id: f["id"].as_str().unwrap_or_default().to_owned(),
                        raw: result_raw(p, &text).into(),
                        text: text.into(),
                        is_error: f["response"]["error"].is_string(),
                    }
                } else if let Some(d) = p.get("inlineData") {
                    Part::Image {
                        mime: d["mimeType"].as_str().unwrap_or_default().to_owned(),
                        size: d["data"].as_str().map_or(0, str::len),
                    }
                } else {
                    Part::Other {
                        original_type: "part".to_owned(),
                        raw: p.clone(),
                    }
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}
