//! Turning Codex rollout lines into messages.
//!
//! `response_item`s are what the model saw: each becomes one message (reasoning, a function
//! call, its output...). Calls and outputs pair only by `call_id`; nothing is invented for an
//! unanswered call. `compacted` items cut the history: with `replacement_history` everything
//! before becomes invisible to the model and the replacement items are appended as the new
//! visible context (the encrypted `compaction` item as an opaque summary); with only `message`
//! (local compaction) the summary becomes a user message and the recent user messages that
//! Codex carries over stay visible. `event_msg`s are UI echoes: `token_count` gives recorded
//! usage (the session's last, and each answer's `last_token_usage` in its details), the rest is
//! only counted.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::{CompactionRecord, Message, MessageKind, Part, RecordedUsage, Role};
use crate::sources::jsonl::Line;
use crate::sources::scan::millis;

/// Codex carries at most this many tokens of recent user messages across a local compaction.
const LOCAL_KEEP_TOKENS: usize = 20_000;

/// The state of a rollout being read.
#[derive(Debug, Default)]
pub struct Builder {
    /// Messages in stored order.
    pub messages: Vec<Message>,
    /// For each message, the 1-based line it came from.
    pub lines: Vec<usize>,
    /// Compactions recorded.
    pub compactions: Vec<CompactionRecord>,
    /// Lines per `type` (`event_msg:<type>` and `response_item:<type>` for payloads).
    pub counts: BTreeMap<String, usize>,
    /// `session_meta.payload`.
    pub session_meta: Option<Value>,
    /// Last `turn_context.model`.
    pub model: Option<String>,
    /// Last `cwd` (session_meta or turn_context).
    pub cwd: Option<String>,
    /// Context window from `token_count` / `task_started`.
    pub context_window: Option<u64>,
    /// Last recorded usage.
    pub usage: Option<RecordedUsage>,
    /// `last_token_usage.total_tokens` of the latest `token_count`, for a compaction's pre-tokens.
    last_total: Option<u64>,
    /// The latest model message stored since the previous `token_count`: the answer the next
    /// `token_count` reports on.
    unreported_answer: Option<usize>,
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

impl Builder {
    /// Feed one line.
    pub fn push(&mut self, line: Line) {
        let v = match line.value {
            Ok(v) => v,
            Err(bad) => {
                *self.counts.entry("invalid".into()).or_default() += 1;
                let m = Message::unreadable(0, "unparsed_line", bad.raw, bad.error.to_string());
                self.add(m, line.number);
                return;
            }
        };
        let created = s(&v, "timestamp").and_then(millis);
        let (typ, payload) = match (s(&v, "type"), v.get("payload")) {
            (Some(t), Some(p)) => (t.to_owned(), p.clone()),
            // Legacy rollouts: a bare metadata line, then bare response items.
            (Some(_), None) => ("response_item".to_owned(), v.clone()),
            (None, _) if v.get("id").is_some() => ("session_meta".to_owned(), v.clone()),
            _ => ("unknown".to_owned(), v.clone()),
        };
        let sub = s(&payload, "type").unwrap_or("");
        let key = match typ.as_str() {
            "event_msg" | "response_item" => format!("{typ}:{sub}"),
            _ => typ.clone(),
        };
        *self.counts.entry(key).or_default() += 1;
        match typ.as_str() {
            "session_meta" => {
                self.cwd = s(&payload, "cwd").map(str::to_owned).or(self.cwd.take());
                self.session_meta.get_or_insert(payload);
            }
            "turn_context" => {
                if let Some(m) = s(&payload, "model") {
                    self.model = Some(m.to_owned());
                }
                if let Some(c) = s(&payload, "cwd") {
                    self.cwd = Some(c.to_owned());
                }
            }
            "event_msg" => self.event(&payload),
            "response_item" => {
                if let Some(mut m) = item(&payload) {
                    m.created = created;
                    self.add(m, line.number);
                }
            }
            "compacted" => self.compacted(&payload, created, line.number),
            _ => {}
        }
    }

    fn add(&mut self, mut m: Message, number: usize) {
        m.index = self.messages.len();
        if m.role == Role::Assistant && m.kind == MessageKind::Ordinary {
            self.unreported_answer = Some(m.index);
        }
        self.messages.push(m);
        self.lines.push(number);
    }

    fn event(&mut self, p: &Value) {
        match s(p, "type") {
            Some("token_count") => {
                let info = p.get("info");
                if let Some(w) = info
                    .and_then(|i| i.get("model_context_window"))
                    .and_then(Value::as_u64)
                {
                    self.context_window = Some(w);
                }
                let last = info.and_then(|i| i.get("last_token_usage"));
                let total = info.and_then(|i| i.get("total_token_usage"));
                if let Some(last) = last {
                    // Per-request usage rides on the answer it reports on (the token report reads
                    // it there); a count with no answer since the previous one (the request a
                    // compaction replaced) stays session-level only.
                    if let Some(i) = self.unreported_answer.take() {
                        let details = self.messages[i].details.get_or_insert_with(|| json!({}));
                        if let Some(o) = details.as_object_mut() {
                            o.insert("last_token_usage".into(), last.clone());
                        }
                    }
                    let n = |k: &str| last.get(k).and_then(Value::as_u64);
                    self.last_total = n("total_tokens");
                    self.usage = Some(RecordedUsage {
                        input_tokens: n("input_tokens"),
                        output_tokens: n("output_tokens"),
                        total_tokens: n("total_tokens"),
                        cache_read_tokens: n("cached_input_tokens"),
                        cache_write_tokens: None,
                        accumulated_total_tokens: total
                            .and_then(|t| t.get("total_tokens"))
                            .and_then(Value::as_u64),
                        // OpenAI's input_tokens already includes cached_input_tokens.
                        context_tokens: n("input_tokens"),
                    });
                }
            }
            Some("task_started") => {
                if let Some(w) = p.get("model_context_window").and_then(Value::as_u64) {
                    self.context_window = Some(w);
                }
            }
            _ => {}
        }
    }

    fn compacted(&mut self, p: &Value, created: Option<i64>, number: usize) {
        let cut = self.messages.len();
        let pre_tokens = self.last_total;
        let mut raw = p.clone();
        if let Some(Value::Array(items)) = p.get("replacement_history") {
            for m in &mut self.messages {
                m.agent_visible = false;
            }
            let mut kept = Vec::new();
            let mut summary_index = None;
            for it in items {
                let Some(mut m) = item(it) else { continue };
                m.created = created;
                m.details = Some(json!({ "replacement_history": true }));
                if m.kind == MessageKind::Summary {
                    summary_index = Some(self.messages.len());
                } else {
                    m.kind = MessageKind::PreservedCopy;
                    kept.push(self.messages.len());
                }
                self.add(m, number);
            }
            // The items are messages now; the record keeps the rest of the payload.
            if let Value::Object(o) = &mut raw {
                o.insert(
                    "replacement_history".into(),
                    json!({ "items": items.len() }),
                );
            }
            self.compactions.push(CompactionRecord {
                cut_index: cut,
                trigger: None,
                pre_tokens,
                post_tokens: None,
                summary_index,
                kept,
                raw: Some(raw),
                applied_index: None,
            });
            return;
        }
        let text = s(p, "message").unwrap_or("").to_owned();
        let kept = self.local_kept();
        for m in &mut self.messages {
            m.agent_visible = kept.contains(&m.index);
        }
        let mut m = Message::new(0, Role::User, vec![Part::Text { text }]);
        m.kind = MessageKind::Summary;
        m.created = created;
        m.user_visible = false;
        self.add(m, number);
        if let Value::Object(o) = &mut raw {
            o.remove("message");
        }
        self.compactions.push(CompactionRecord {
            cut_index: cut,
            trigger: None,
            pre_tokens,
            post_tokens: None,
            summary_index: Some(cut),
            kept,
            raw: Some(raw),
            applied_index: None,
        });
    }

    /// The user messages Codex's local compaction carries over: the most recent real prompts
    /// (not injected context, not earlier summaries), newest first, up to the token budget
    /// (≈ 4 bytes a token), returned in stored order.
    fn local_kept(&self) -> Vec<usize> {
        let mut budget = LOCAL_KEEP_TOKENS;
        let mut kept = Vec::new();
        for m in self.messages.iter().rev() {
            if m.role != Role::User || m.kind != MessageKind::Ordinary || !m.agent_visible {
                continue;
            }
            let text = m.text();
            if text.is_empty() || is_injected(&text) {
                continue;
            }
            let tokens = text.len().div_ceil(4);
            if tokens > budget {
                break;
            }
            budget -= tokens;
            kept.push(m.index);
        }
        kept.reverse();
        kept
    }
}

/// Context Codex injects as user messages (instructions, environment) rather than prompts.
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<environment_context>")
        || t.starts_with("<user_instructions>")
        || t.starts_with("# AGENTS.md")
        || t.starts_with("<turn_aborted>")
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
                arguments,
            };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "custom_tool_call" => {
            let part = Part::ToolCall {
                id: call_id(),
                name: s(p, "name").unwrap_or("").to_owned(),
                arguments: p.get("input").cloned().unwrap_or(Value::Null),
            };
            (Role::Assistant, vec![part], MessageKind::Ordinary)
        }
        "local_shell_call" => {
            let part = Part::ToolCall {
                id: call_id(),
                name: "local_shell".into(),
                arguments: p.get("action").cloned().unwrap_or(Value::Null),
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
                text,
                is_error,
                raw,
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
