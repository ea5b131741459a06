//! One OpenCode session's stored messages and parts made into the model's messages, with what
//! the model saw of them and the compactions they record.
//!
//! OpenCode keeps a whole answer in one message: steps (`step-start` … `step-finish`), each with
//! text, reasoning and tool parts, a tool part holding the call and its result. The model got
//! each step as an assistant message with the calls, then the results (the AI SDK's `tool`
//! messages), so an answer becomes an assistant message and one tool message per result for
//! each step. A compaction is a user message with a `compaction` part (sent to the model as
//! "What did we do so far?"), answered by an assistant message with `summary: true`; once that
//! answer finished, the model sees the messages from the part's `tail_start_id` on (from the
//! compaction message when there is none): OpenCode's `filterCompacted`. A pruned tool output
//! (`state.time.compacted`) reached the model as "[Old tool result content cleared]" from then
//! on: a microcompact record naming the calls. Reading the database is `db`'s.

use std::path::Path;

use serde_json::{Value, json};

use super::cuts::{self, Read};
use super::db::Row;
use crate::model::{
    Link, LinkKind, Message, MessageKind, Part, Role, Session, SessionMeta, UsageSplit,
};

/// The text OpenCode sends the model for a compaction request.
pub const COMPACTION_PROMPT: &str = "What did we do so far?";

/// The usage recorded in a `tokens` object, split as priced (reasoning counted as output).
fn usage(t: &Value) -> Option<UsageSplit> {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    t.is_object().then(|| UsageSplit {
        input: n(&t["input"]),
        output: n(&t["output"]) + n(&t["reasoning"]),
        cache_read: n(&t["cache"]["read"]),
        cache_write: n(&t["cache"]["write"]),
        cache_write_1h: 0,
    })
}

/// What is being built.
struct Out<'a> {
    file: &'a Path,
    messages: Vec<Message>,
    /// `(compacted time, call id)` of each pruned output.
    pruned: Vec<(i64, String)>,
}

impl Out<'_> {
    /// Add `m` at the next index.
    fn push(&mut self, mut m: Message) {
        m.index = self.messages.len();
        self.messages.push(m);
    }
}

/// The session of `rows`, listed as `meta`.
pub fn session(file: &Path, mut meta: SessionMeta, rows: Vec<Row>) -> Session {
    let mut out = Out {
        file,
        messages: Vec::new(),
        pruned: Vec::new(),
    };
    let mut read: Vec<Read> = Vec::with_capacity(rows.len());
    for row in rows {
        let first = out.messages.len();
        match serde_json::from_str::<Value>(&row.data) {
            Ok(data) => {
                let role = data.get("role").and_then(Value::as_str).map(str::to_owned);
                let compaction = message(&mut out, &row, &data, role.as_deref());
                read.push(Read {
                    id: row.id,
                    first,
                    role,
                    data,
                    compaction,
                });
            }
            Err(e) => {
                let why = format!("{}: message {}: {e}", row.place, row.id);
                let mut m = Message::unreadable(0, "message", row.data, why);
                (m.id, m.created) = (Some(row.id.clone()), Some(row.created));
                out.push(m);
                read.push(Read {
                    id: row.id,
                    first,
                    role: None,
                    data: Value::Null,
                    compaction: None,
                });
            }
        }
    }
    let mut compactions = cuts::cuts(&out.messages, &read);
    compactions.extend(cuts::prunes(&out.messages, &out.pruned));
    compactions.sort_by_key(|c| c.cut_index);
    cuts::see(&mut out.messages, &read);
    if let Some(last) = read.iter().rev().find(|r| {
        r.role.as_deref() == Some("assistant") && r.data.get("summary") != Some(&json!(true))
    }) {
        meta.model = super::db::model_of(&last.data).or(meta.model);
        meta.usage = super::db::recorded_usage(&last.data).or(meta.usage);
    }
    meta.message_count = out.messages.len();
    meta.compaction_count = compactions.len();
    Session {
        meta,
        messages: crate::model::shared(out.messages),
        compactions,
    }
}

/// A user message's or an answer's model messages; a compaction request's part.
fn message(out: &mut Out, row: &Row, data: &Value, role: Option<&str>) -> Option<Value> {
    let created = data["time"]["created"].as_i64().or(Some(row.created));
    let parts: Vec<(String, Value)> = row
        .parts
        .iter()
        .map(|(id, d)| {
            let v = serde_json::from_str(d).unwrap_or_else(|e| {
                json!({"type": "unreadable", "error": format!("{}: part {id}: {e}", out.file.display()), "text": d})
            });
            (id.clone(), v)
        })
        .collect();
    let base = |role: Role| {
        let mut m = Message::new(0, role, Vec::new());
        m.id = Some(row.id.clone());
        m.created = created;
        for k in ["agent", "mode", "finish", "parentID"] {
            if let Some(v) = data.get(k).filter(|v| !v.is_null()) {
                m.set_detail(k, v.clone());
            }
        }
        m
    };
    if role == Some("assistant") {
        answer(out, base(Role::Assistant), data, &parts);
        return None;
    }
    let mut m = base(if role == Some("user") {
        Role::User
    } else {
        Role::System
    });
    let mut compaction = None;
    let mut synthetic_only = true;
    for (_, p) in &parts {
        match p["type"].as_str() {
            Some("text") => {
                if p["ignored"] == json!(true) {
                    continue;
                }
                synthetic_only &= p["synthetic"] == json!(true);
                m.parts.push(Part::Text {
                    text: p["text"].as_str().unwrap_or_default().to_owned(),
                });
            }
            Some("compaction") => compaction = Some(p.clone()),
            Some("file") if p["mime"].as_str().is_some_and(|t| t.starts_with("image/")) => {
                m.parts.push(Part::Image {
                    mime: p["mime"].as_str().unwrap_or_default().to_owned(),
                    size: p["url"].as_str().map_or(0, str::len),
                });
            }
            other => m.parts.push(Part::Other {
                original_type: other.unwrap_or("unknown").to_owned(),
                raw: p.clone(),
            }),
        }
    }
    if let Some(c) = &compaction {
        // The model is asked for the summary with this text; the part says how it started.
        m.parts.insert(
            0,
            Part::Text {
                text: COMPACTION_PROMPT.to_owned(),
            },
        );
        m.kind = MessageKind::Notification;
        m.set_detail("compaction", c.clone());
    } else if synthetic_only && !m.parts.is_empty() {
        // OpenCode's own "Continue …" after an auto compaction: the model's, not the user's.
        m.kind = MessageKind::Continuation;
        m.user_visible = false;
    }
    out.push(m);
    compaction
}

/// An answer's steps: each an assistant message (text, reasoning, calls) and a tool message
/// per result, with the step's recorded usage.
fn answer(out: &mut Out, base: Message, data: &Value, parts: &[(String, Value)]) {
    let summary = data["summary"] == json!(true);
    let mut step = base.clone();
    let mut results: Vec<Message> = Vec::new();
    let mut any = false;
    let flush = |out: &mut Out,
                 step: &mut Message,
                 results: &mut Vec<Message>,
                 usage: Option<UsageSplit>| {
        if step.parts.is_empty() && results.is_empty() {
            return false;
        }
        let mut m = std::mem::replace(step, base.clone());
        if summary {
            m.kind = MessageKind::Summary;
        }
        m.usage = usage.into_iter().collect();
        out.push(m);
        for r in results.drain(..) {
            out.push(r);
        }
        true
    };
    for (_, p) in parts {
        match p["type"].as_str() {
            Some("step-start") => {}
            Some("step-finish") => {
                any |= flush(out, &mut step, &mut results, usage(&p["tokens"]));
            }
            Some("text") if p["text"].as_str().is_some_and(|t| !t.is_empty()) => {
                step.parts.push(Part::Text {
                    text: p["text"].as_str().unwrap_or_default().to_owned(),
                });
            }
            Some("text") => {}
            Some("reasoning") => step.parts.push(Part::Thinking {
                text: p["text"].as_str().unwrap_or_default().to_owned(),
                redacted: false,
            }),
            Some("tool") => tool(out, &mut step, &mut results, p),
            other => step.parts.push(Part::Other {
                original_type: other.unwrap_or("unknown").to_owned(),
                raw: p.clone(),
            }),
        }
    }
    // Steps left open (an answer cut off, or one written before steps were recorded) carry
    // the answer's own tokens.
    any |= flush(out, &mut step, &mut results, usage(&data["tokens"]));
    if !any {
        // A request that failed before anything came back: its error, shown but never sent.
        let mut m = base;
        m.parts.push(Part::Other {
            original_type: "error".to_owned(),
            raw: data.get("error").cloned().unwrap_or(Value::Null),
        });
        m.agent_visible = false;
        out.push(m);
    }
}

/// A tool part: its call on the step, its result (when it came back) queued after it.
fn tool(out: &mut Out, step: &mut Message, results: &mut Vec<Message>, p: &Value) {
    let call = p["callID"].as_str().unwrap_or_default().to_owned();
    let state = &p["state"];
    step.parts.push(Part::ToolCall {
        id: call.clone(),
        name: p["tool"].as_str().unwrap_or_default().to_owned(),
        arguments: state.get("input").cloned().unwrap_or(json!({})).into(),
    });
    if let Some(child) = state["metadata"]["sessionId"].as_str() {
        step.links.push(Link {
            kind: LinkKind::Subagent,
            path: out.file.display().to_string(),
            session: Some(child.to_owned()),
        });
    }
    let (text, is_error) = match state["status"].as_str() {
        Some("completed") => (state["output"].as_str().unwrap_or_default(), false),
        Some("error") => (state["error"].as_str().unwrap_or_default(), true),
        // Pending or running: the call never came back.
        _ => return,
    };
    if let Some(t) = state["time"]["compacted"].as_i64() {
        out.pruned.push((t, call.clone()));
    }
    let mut r = Message::new(
        0,
        Role::Tool,
        vec![Part::ToolResult {
            call_id: call,
            text: text.to_owned().into(),
            is_error,
            raw: crate::sources::lazy::result_raw(p, text).into(),
        }],
    );
    r.id = step.id.clone();
    r.created = state["time"]["end"].as_i64().or(step.created);
    results.push(r);
}
