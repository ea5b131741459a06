//! A Copilot CLI session's events made into the model's messages. User, assistant and tool
//! events become messages; a compaction replaces the conversation as it stood when it started
//! by its summary and the messages it did not remove (`messagesRemoved` from the oldest), the
//! messages sent while a background compaction ran staying after them; a truncation drops the
//! oldest messages without a summary. What the model sees at the end is what those steps
//! leave. Bookkeeping events (turn marks, tool starts, usage snapshots, shutdown) are left to
//! the listing (`events`); an unknown event is an invisible row.

use serde_json::{Value, json};

use crate::model::{
    CompactionRecord, Link, LinkKind, Message, MessageKind, Part, Role, Trigger, UsageSplit,
};

/// Events that are bookkeeping, not conversation: read for the listing, never rows.
const BOOKKEEPING: &[&str] = &[
    "session.start",
    "session.resume",
    "session.info",
    "session.idle",
    "session.title_changed",
    "session.model_change",
    "session.mode_changed",
    "session.context_changed",
    "session.usage_info",
    "session.shutdown",
    "session.usage_checkpoint",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.intent",
    "assistant.idle",
    "tool.execution_start",
    "subagent.started",
    "subagent.completed",
    "subagent.failed",
    "subagent.selected",
    "subagent.deselected",
    "hook.start",
    "hook.end",
    "skill.invoked",
    "pending_messages.modified",
];

/// An event's time, Unix ms.
pub(super) fn timestamp(e: &Value) -> Option<i64> {
    e["timestamp"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|d| d.timestamp_millis())
}

/// The messages being made, and the conversation the model holds.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) messages: Vec<Message>,
    records: Vec<CompactionRecord>,
    /// Indices of the messages in the model's conversation now.
    conv: Vec<usize>,
    /// The conversation when a compaction started, and where it started.
    started: Option<(Vec<usize>, usize)>,
    /// Reasoning waiting for the assistant message it belongs to.
    reasoning: Vec<String>,
}

impl Builder {
    /// Add `m` (stored on line `line`); `in_context` when the model holds it from now on.
    pub(super) fn push(&mut self, mut m: Message, line: usize, in_context: bool) -> usize {
        let i = self.messages.len();
        m.index = i;
        m.set_detail("line", json!(line));
        self.messages.push(m);
        if in_context {
            self.conv.push(i);
        }
        i
    }

    pub(super) fn event(&mut self, e: &Value, line: usize) {
        let kind = e["type"].as_str().unwrap_or_default();
        let d = &e["data"];
        let text = |m: &mut Message, t: Option<&str>| {
            if let Some(t) = t.filter(|t| !t.is_empty()) {
                m.parts.push(Part::Text { text: t.to_owned() });
            }
        };
        let mut m = Message::new(0, Role::User, Vec::new());
        m.id = e["id"].as_str().map(str::to_owned);
        m.created = timestamp(e);
        match kind {
            "system.message" => {
                m.role = Role::System;
                text(&mut m, d["content"].as_str());
                self.push(m, line, false);
            }
            "user.message" => {
                // The model got the transformed text (its date and wrapping); the user typed
                // `content`.
                text(
                    &mut m,
                    d["transformedContent"].as_str().or(d["content"].as_str()),
                );
                m.user_visible = d["source"].as_str().is_none_or(|s| !s.starts_with("skill"));
                self.push(m, line, true);
            }
            "assistant.reasoning" => {
                if let Some(t) = d["content"].as_str() {
                    self.reasoning.push(t.to_owned());
                }
            }
            "assistant.message" => {
                m.role = Role::Assistant;
                let thought = d["reasoningText"]
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| (!self.reasoning.is_empty()).then(|| self.reasoning.join("\n")));
                self.reasoning.clear();
                if let Some(t) = thought {
                    m.parts.push(Part::Thinking {
                        text: t,
                        redacted: false,
                    });
                }
                text(&mut m, d["content"].as_str());
                for r in d["toolRequests"].as_array().into_iter().flatten() {
                    m.parts.push(Part::ToolCall {
                        id: r["toolCallId"].as_str().unwrap_or_default().to_owned(),
                        name: r["name"].as_str().unwrap_or_default().to_owned(),
                        arguments: r.get("arguments").cloned().unwrap_or(json!({})).into(),
                    });
                }
                if let Some(model) = d.get("model").filter(|v| v.is_string()) {
                    m.set_detail("model", model.clone());
                }
                self.push(m, line, true);
            }
            "assistant.usage" => self.usage(d),
            "tool.execution_complete" => {
                m.role = Role::Tool;
                let ok = d["success"].as_bool().unwrap_or(true);
                let out = if ok {
                    d["result"]["content"].as_str()
                } else {
                    d["error"]["message"].as_str()
                }
                .unwrap_or_default();
                m.parts.push(Part::ToolResult {
                    call_id: d["toolCallId"].as_str().unwrap_or_default().to_owned(),
                    text: out.to_owned().into(),
                    is_error: !ok,
                    raw: crate::sources::lazy::result_raw(d, out).into(),
                });
                self.push(m, line, true);
            }
            "session.compaction_start" => {
                let i = self.notice(m, kind, d, line, "Compacting the conversation…".to_owned());
                self.started = Some((self.conv.clone(), i));
            }
            "session.compaction_complete" => self.compacted(m, d, line),
            "session.truncation" => self.truncated(m, d, line),
            "session.error" | "abort" | "session.warning" | "session.snapshot_rewind" => {
                let said = d["message"]
                    .as_str()
                    .or(d["reason"].as_str())
                    .unwrap_or(kind)
                    .to_owned();
                self.notice(m, kind, d, line, said);
            }
            k if BOOKKEEPING.contains(&k) => {}
            _ => {
                // Kept, never sent, never shown: a record of a kind this reader does not know.
                m.role = Role::System;
                m.parts.push(Part::Other {
                    original_type: kind.to_owned(),
                    raw: e.clone(),
                });
                m.agent_visible = false;
                m.user_visible = false;
                self.push(m, line, false);
            }
        }
    }

    /// A row the user sees and the model does not (a compaction starting, an error): what the
    /// harness says, then the event's data.
    fn notice(
        &mut self,
        mut m: Message,
        kind: &str,
        d: &Value,
        line: usize,
        said: String,
    ) -> usize {
        m.kind = MessageKind::Notification;
        m.parts.push(Part::Text { text: said });
        m.parts.push(Part::Other {
            original_type: kind.to_owned(),
            raw: d.clone(),
        });
        self.push(m, line, false)
    }

    /// Persisted usage (older builds): on the latest answer without one.
    fn usage(&mut self, d: &Value) {
        let n = |k: &str| d[k].as_u64().unwrap_or(0);
        let (read, write) = (n("cacheReadTokens"), n("cacheWriteTokens"));
        let split = UsageSplit {
            // The API's input counts the cached tokens too.
            input: n("inputTokens").saturating_sub(read + write),
            output: n("outputTokens"),
            cache_read: read,
            cache_write: write,
            cache_write_1h: 0,
        };
        if let Some(m) = self
            .messages
            .iter_mut()
            .rev()
            .find(|m| m.role == Role::Assistant && m.usage.is_empty())
        {
            m.usage.push(split);
        }
    }

    fn compacted(&mut self, mut m: Message, d: &Value, line: usize) {
        if d["success"] != json!(true) {
            self.started = None;
            let why = d["error"].as_str().unwrap_or("no reason given");
            let said = format!("Compaction failed: {why}");
            self.notice(m, "session.compaction_complete", d, line, said);
            return;
        }
        let (base, start) = self
            .started
            .take()
            .unwrap_or_else(|| (self.conv.clone(), usize::MAX));
        let removed = d["messagesRemoved"].as_u64().unwrap_or(0) as usize;
        let kept: Vec<usize> = base[removed.min(base.len())..].to_vec();
        let before: std::collections::HashSet<usize> = base.iter().copied().collect();
        let since: Vec<usize> = self
            .conv
            .iter()
            .copied()
            .filter(|i| !before.contains(i))
            .collect();
        m.kind = MessageKind::Summary;
        m.user_visible = false;
        m.parts.push(Part::Text {
            text: d["summaryContent"].as_str().unwrap_or_default().to_owned(),
        });
        // The checkpoint the harness saved the summary to: a file the Spills tab opens. The
        // path is the recording machine's; the spill review finds the same file in the
        // session folder it was opened from.
        if let Some(p) = d["checkpointPath"].as_str() {
            m.links.push(Link {
                kind: LinkKind::SpillFile,
                path: p.to_owned(),
                session: None,
            });
        }
        let summary = self.push(m, line, false);
        let cut = if start == usize::MAX { summary } else { start };
        self.conv = std::iter::once(summary)
            .chain(kept.iter().copied())
            .chain(since)
            .collect();
        let trigger = match d["trigger"].as_str() {
            Some("manual") => Some(Trigger::Manual),
            Some("context_limit_retry") => Some(Trigger::Recovery),
            Some(_) => Some(Trigger::Auto),
            None => None,
        };
        self.records.push(CompactionRecord {
            cut_index: cut,
            trigger,
            pre_tokens: d["preCompactionTokens"].as_u64(),
            post_tokens: d["postCompactionTokens"].as_u64(),
            post_tokens_from_usage: false,
            summary_index: Some(summary),
            kept,
            raw: Some(d.clone()),
            applied_index: (cut != summary).then_some(summary),
            archived: None,
        });
    }

    fn truncated(&mut self, m: Message, d: &Value, line: usize) {
        let removed = d["messagesRemovedDuringTruncation"].as_u64().unwrap_or(0) as usize;
        let said = format!("Truncated the {removed} oldest messages to fit the context window");
        let cut = self.notice(m, "session.truncation", d, line, said);
        let kept: Vec<usize> = self.conv[removed.min(self.conv.len())..].to_vec();
        self.conv = kept.clone();
        let mut raw = d.clone();
        raw["trimmed"] = json!(true);
        self.records.push(CompactionRecord {
            cut_index: cut,
            trigger: Some(Trigger::Auto),
            pre_tokens: d["preTruncationTokensInMessages"].as_u64(),
            post_tokens: d["postTruncationTokensInMessages"].as_u64(),
            post_tokens_from_usage: false,
            summary_index: None,
            kept,
            raw: Some(raw),
            applied_index: None,
            archived: None,
        });
    }

    pub(super) fn finish(mut self) -> (Vec<Message>, Vec<CompactionRecord>) {
        // A set, not a scan per message: a long session holds tens of thousands of each.
        let held: std::collections::HashSet<usize> = self.conv.iter().copied().collect();
        for m in &mut self.messages {
            if m.role != Role::System && m.kind != MessageKind::Notification {
                m.agent_visible = held.contains(&m.index);
            }
            if m.kind == MessageKind::Notification {
                m.agent_visible = false;
            }
        }
        (self.messages, self.records)
    }
}
