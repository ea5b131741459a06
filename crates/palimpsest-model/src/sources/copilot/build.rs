//! A Copilot CLI events file made into sessions: the main agent's, and one per sub-agent
//! (`agentId`). User, assistant and tool events become the model's messages; a compaction
//! replaces the conversation as it stood when it started by its summary and the messages it
//! did not remove (`messagesRemoved` from the oldest), the messages sent while a background
//! compaction ran staying after them; a truncation drops the oldest messages without a
//! summary. What the model sees at the end is what those steps leave. Bookkeeping events
//! (turn marks, tool starts, usage snapshots, shutdown) are read for the listing, not shown as
//! messages; an unknown event is an invisible row.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::CHILD_SEP;
use crate::error::Result;
use crate::model::{
    CompactionRecord, Link, LinkKind, Message, MessageKind, Part, RecordedUsage, Role, Session,
    SessionMeta, SourceFormat, Trigger, UsageSplit,
};

/// One line of the file.
struct Line {
    number: usize,
    event: std::result::Result<Value, (String, String)>,
}

/// Every line of one events file.
pub struct Events {
    file: PathBuf,
    lines: Vec<Line>,
}

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

fn timestamp(e: &Value) -> Option<i64> {
    e["timestamp"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|d| d.timestamp_millis())
}

impl Events {
    /// Read `file` (a line still being written at its end is left out).
    pub fn read(file: &Path) -> Result<Self> {
        let mut lines = Vec::new();
        crate::sources::jsonl::for_each_line(file, |l| {
            lines.push(Line {
                number: l.number,
                event: l.value.map_err(|b| (b.raw, b.error.to_string())),
            });
            true
        })?;
        Ok(Events {
            file: file.to_owned(),
            lines,
        })
    }

    fn events(&self) -> impl Iterator<Item = &Value> {
        self.lines.iter().filter_map(|l| l.event.as_ref().ok())
    }

    fn of_type<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events().filter(move |e| e["type"] == kind)
    }

    /// The session id: `session.start`'s, else the folder's name.
    fn id(&self) -> String {
        self.of_type("session.start")
            .find_map(|e| e["data"]["sessionId"].as_str().map(str::to_owned))
            .or_else(|| {
                self.file
                    .parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    }

    /// The sub-agents, in the order their first event appears.
    pub fn agents(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in self.events().filter_map(|e| e["agentId"].as_str()) {
            if !out.iter().any(|x| x == a) {
                out.push(a.to_owned());
            }
        }
        out
    }

    /// `subagent.started`'s data for each sub-agent, by order.
    fn started(&self, agent: &str) -> Option<&Value> {
        let k = self.agents().iter().position(|a| a == agent)?;
        self.of_type("subagent.started").nth(k).map(|e| &e["data"])
    }

    fn child_id(&self, agent: &str) -> String {
        format!("{}{CHILD_SEP}{agent}", self.id())
    }

    /// The listing entry of the main session (`agent` none) or of a sub-agent's.
    pub fn meta(&self, agent: Option<&str>) -> SessionMeta {
        let mine = |e: &&Value| e["agentId"].as_str() == agent;
        let times: Vec<i64> = self.events().filter(mine).filter_map(timestamp).collect();
        let start = self.of_type("session.start").next().map(|e| &e["data"]);
        let first_user = self
            .of_type("user.message")
            .find(mine)
            .and_then(|e| e["data"]["content"].as_str())
            .map(|t| t.chars().take(60).collect::<String>());
        let name = match agent {
            Some(a) => format!(
                "{} (sub-agent)",
                self.started(a)
                    .and_then(|d| d["agentName"].as_str())
                    .unwrap_or(a)
            ),
            None => first_user.unwrap_or_else(|| self.id()),
        };
        let model = self
            .of_type("assistant.message")
            .filter(mine)
            .filter_map(|e| e["data"]["model"].as_str())
            .last()
            .or_else(|| start.and_then(|s| s["selectedModel"].as_str()))
            .map(str::to_owned);
        let session = self.session_parts(agent);
        SessionMeta {
            id: agent.map_or_else(|| self.id(), |a| self.child_id(a)),
            format: SourceFormat::CopilotCli,
            path: self.file.display().to_string(),
            name,
            working_dir: start
                .and_then(|s| s["context"]["cwd"].as_str())
                .map(str::to_owned),
            created: times.first().copied(),
            updated: times.last().copied(),
            model,
            context_limit: None,
            usage: agent.is_none().then(|| self.shutdown_usage()).flatten(),
            message_count: session.0.len(),
            compaction_count: session.1.len(),
            parent_id: agent.map(|_| self.id()),
        }
    }

    /// The shutdown's usage over every model, when the session ended cleanly.
    fn shutdown_usage(&self) -> Option<RecordedUsage> {
        let metrics = self
            .of_type("session.shutdown")
            .last()?
            .get("data")?
            .get("modelMetrics")?
            .as_object()?;
        let sum = |k: &str| {
            metrics
                .values()
                .filter_map(|m| m["usage"][k].as_u64())
                .sum::<u64>()
        };
        Some(RecordedUsage {
            accumulated_total_tokens: Some(sum("inputTokens") + sum("outputTokens")),
            ..RecordedUsage::default()
        })
    }

    /// The line `number` as stored (re-serialised), for the raw view.
    pub fn raw_line(&self, number: usize) -> Option<String> {
        let l = self.lines.iter().find(|l| l.number == number)?;
        Some(match &l.event {
            Ok(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
            Err((raw, _)) => raw.clone(),
        })
    }

    /// The session of `agent` (none: the main agent's), listed as `meta`.
    pub fn session(&self, meta: SessionMeta, agent: Option<&str>) -> Session {
        let (messages, compactions) = self.session_parts(agent);
        Session {
            meta: SessionMeta {
                message_count: messages.len(),
                compaction_count: compactions.len(),
                ..meta
            },
            messages: crate::model::shared(messages),
            compactions,
        }
    }

    fn session_parts(&self, agent: Option<&str>) -> (Vec<Message>, Vec<CompactionRecord>) {
        let mut b = Builder::default();
        for l in &self.lines {
            match &l.event {
                Err((raw, why)) if agent.is_none() => {
                    b.push(
                        Message::unreadable(0, "line", raw.clone(), why.clone()),
                        l.number,
                        false,
                    );
                }
                Err(_) => {}
                Ok(e) if e["agentId"].as_str() == agent => b.event(e, l.number),
                Ok(_) => {}
            }
        }
        if agent.is_none() {
            self.link_children(&mut b.messages);
        }
        b.finish()
    }

    /// The assistant message whose `task` call a sub-agent ran links that sub-agent's session.
    fn link_children(&self, messages: &mut [Message]) {
        for a in self.agents() {
            let Some(call) = self.started(&a).and_then(|d| d["toolCallId"].as_str()) else {
                continue;
            };
            let holder = messages.iter_mut().find(|m| {
                m.parts
                    .iter()
                    .any(|p| matches!(p, Part::ToolCall { id, .. } if id == call))
            });
            if let Some(m) = holder {
                m.links.push(Link {
                    kind: LinkKind::Subagent,
                    path: self.file.display().to_string(),
                    session: Some(self.child_id(&a)),
                });
            }
        }
    }
}

/// The messages being made, and the conversation the model holds.
#[derive(Default)]
struct Builder {
    messages: Vec<Message>,
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
    fn push(&mut self, mut m: Message, line: usize, in_context: bool) -> usize {
        let i = self.messages.len();
        m.index = i;
        m.set_detail("line", json!(line));
        self.messages.push(m);
        if in_context {
            self.conv.push(i);
        }
        i
    }

    fn event(&mut self, e: &Value, line: usize) {
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
                };
                m.parts.push(Part::ToolResult {
                    call_id: d["toolCallId"].as_str().unwrap_or_default().to_owned(),
                    text: out.unwrap_or_default().to_owned().into(),
                    is_error: !ok,
                    raw: d.clone().into(),
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
        let since: Vec<usize> = self
            .conv
            .iter()
            .copied()
            .filter(|i| !base.contains(i))
            .collect();
        m.kind = MessageKind::Summary;
        m.user_visible = false;
        m.parts.push(Part::Text {
            text: d["summaryContent"].as_str().unwrap_or_default().to_owned(),
        });
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

    fn finish(mut self) -> (Vec<Message>, Vec<CompactionRecord>) {
        for m in &mut self.messages {
            if m.role != Role::System && m.kind != MessageKind::Notification {
                m.agent_visible = self.conv.contains(&m.index);
            }
            if m.kind == MessageKind::Notification {
                m.agent_visible = false;
            }
        }
        (self.messages, self.records)
    }
}
