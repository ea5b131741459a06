//! Copilot CLI's older store: `history-session-state/<id>.json`, one JSON object per session
//! rewritten whole as it goes, from builds before `session-state/<id>/events.jsonl`:
//!
//! - `chatMessages`: the conversation as sent to the model, in Chat Completions shape
//!   (`tool_calls`, `tool` messages with `tool_call_id`): what the model saw, so each becomes a
//!   message both sides see (through the message-log converter);
//! - `timeline`: what the window showed, each entry with a `timestamp`: `user`, `copilot`,
//!   `tool_call_requested` / `tool_call_completed` (with `callId`), and notices (`info`,
//!   `warning`, `error`). The conversation's entries only date its messages; a notice is a row
//!   the user saw and the model did not, placed by its time.
//!
//! Those builds recorded no usage and no compaction. The schema was never documented: keys are
//! read tolerantly, and a chat message that does not convert is a row naming file and entry.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Message, MessageKind, Part, Role, Session, SessionMeta, SourceFormat};
use crate::sources::message_log::convert::convert;
use crate::sources::scan::millis;

/// The folder the older builds wrote sessions to, beside `session-state`.
pub const FOLDER: &str = "history-session-state";

/// One `history-session-state/<id>.json` file.
#[derive(Debug)]
pub struct LegacySource {
    path: PathBuf,
}

/// True when `head` (a file's first bytes) opens a legacy session: an object naming
/// `sessionId` and `chatMessages` (or, in the harness's own folder, a `timeline`).
fn sniff(head: &[u8], in_folder: bool) -> bool {
    let has = |k: &[u8]| head.windows(k.len()).any(|w| w == k);
    head.trim_ascii_start().starts_with(b"{")
        && has(b"\"sessionId\"")
        && (has(b"\"chatMessages\"") || (in_folder && has(b"\"timeline\"")))
}

/// Claim a `.json` file holding a legacy session.
pub fn claim(probe: &Probe) -> Claim {
    let in_folder = probe
        .path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == FOLDER);
    if probe.is_dir || probe.extension() != "json" || !sniff(probe.head, in_folder) {
        return None;
    }
    Some(Ok(Box::new(LegacySource {
        path: probe.path.to_owned(),
    })))
}

impl LegacySource {
    fn read(&self) -> Result<Value> {
        let bytes = std::fs::read(&self.path).map_err(|e| Error::Io {
            path: self.path.clone(),
            source: e,
        })?;
        serde_json::from_slice(&bytes).map_err(|e| Error::format(&self.path, e.to_string()))
    }
}

impl SessionSource for LegacySource {
    fn format(&self) -> SourceFormat {
        SourceFormat::CopilotCli
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        Ok(vec![session(&self.path, &self.read()?).meta])
    }

    fn load_top(&self) -> Option<Result<Session>> {
        Some(self.read().map(|v| session(&self.path, &v)))
    }

    fn load(&self, id: &str) -> Result<Session> {
        let s = session(&self.path, &self.read()?);
        if s.meta.id != id {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(s)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let v = self.read()?;
        let s = session(&self.path, &v);
        if s.meta.id != id {
            return Ok(None);
        }
        let Some(m) = s.messages.get(index) else {
            return Ok(None);
        };
        let entry = [("chat", "chatMessages"), ("timeline", "timeline")]
            .iter()
            .find_map(|(k, list)| Some(&v[*list][m.detail(k)?.as_u64()? as usize]));
        Ok(entry.and_then(|e| serde_json::to_string_pretty(e).ok()))
    }
}

/// The timeline's time for each chat message: a tool result by its call's completion, an
/// answer with calls by their request, a user message or a plain answer by the timeline's
/// entry of that kind in turn; a message with none takes the one before it.
fn dates(chat: &[Value], timeline: &[Value]) -> Vec<Option<i64>> {
    let at = |e: &Value| e["timestamp"].as_str().and_then(millis);
    // Each call's request and completion, by kind and id (the first of each, as written).
    let mut calls: std::collections::HashMap<(&str, &str), Option<i64>> = Default::default();
    for e in timeline {
        if let (Some(kind), Some(id)) = (e["type"].as_str(), e["callId"].as_str()) {
            calls.entry((kind, id)).or_insert_with(|| at(e));
        }
    }
    let by_call = |kind: &str, id: &str| calls.get(&(kind, id)).copied().flatten();
    let of_kind = |kind: &str| -> Vec<Option<i64>> {
        timeline
            .iter()
            .filter(|e| e["type"] == kind)
            .map(at)
            .collect()
    };
    let (users, answers) = (of_kind("user"), of_kind("copilot"));
    let (mut u, mut a, mut last) = (0, 0, None);
    chat.iter()
        .map(|m| {
            let first_call = m["tool_calls"][0]["id"].as_str();
            let t = match (m["role"].as_str(), first_call, m["tool_call_id"].as_str()) {
                (Some("tool"), _, Some(id)) => by_call("tool_call_completed", id),
                (Some("assistant"), Some(id), _) => by_call("tool_call_requested", id),
                (Some("assistant"), None, _) => {
                    a += 1;
                    answers.get(a - 1).copied().flatten()
                }
                (Some("user"), _, _) => {
                    u += 1;
                    users.get(u - 1).copied().flatten()
                }
                _ => None,
            };
            last = t.or(last);
            last
        })
        .collect()
}

/// Timeline entries that are not the conversation's (`info`, `warning`, `error`, and kinds
/// nobody knows): the user saw them, the model did not.
fn notices(timeline: &[Value]) -> Vec<(usize, Option<i64>, Message)> {
    const CONVERSATION: [&str; 4] = [
        "user",
        "copilot",
        "tool_call_requested",
        "tool_call_completed",
    ];
    timeline
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            !e["type"]
                .as_str()
                .is_some_and(|t| CONVERSATION.contains(&t))
        })
        .map(|(i, e)| {
            let kind = e["type"].as_str().unwrap_or("entry");
            let mut m = Message::new(0, Role::System, Vec::new());
            m.kind = MessageKind::Notification;
            m.agent_visible = false;
            m.created = e["timestamp"].as_str().and_then(millis);
            if let Some(t) = e["text"].as_str() {
                m.parts.push(Part::Text { text: t.to_owned() });
            }
            m.parts.push(Part::Other {
                original_type: kind.to_owned(),
                raw: e.clone(),
            });
            m.set_detail("timeline", i.into());
            (i, m.created, m)
        })
        .collect()
}

/// The session a legacy file holds.
pub fn session(file: &Path, v: &Value) -> Session {
    let empty = Vec::new();
    let chat = v["chatMessages"].as_array().unwrap_or(&empty);
    let timeline = v["timeline"].as_array().unwrap_or(&empty);
    let dated = dates(chat, timeline);
    let mut messages: Vec<Message> = Vec::with_capacity(chat.len());
    for (i, (c, at)) in chat.iter().zip(dated).enumerate() {
        let mut m = match convert(c, i, false) {
            Ok(c) => c.message,
            Err(why) => Message::unreadable(
                i,
                "chatMessage",
                c.to_string(),
                format!("{}: chatMessages[{i}]: {why}", file.display()),
            ),
        };
        m.created = m.created.or(at);
        m.set_detail("chat", i.into());
        messages.push(m);
    }
    // Each notice after the last message dated no later than it.
    for (_, at, n) in notices(timeline) {
        let pos = match at {
            Some(t) => messages
                .iter()
                .rposition(|m| m.created.is_some_and(|c| c <= t))
                .map_or(0, |p| p + 1),
            None => messages.len(),
        };
        messages.insert(pos, n);
    }
    for (i, m) in messages.iter_mut().enumerate() {
        m.index = i;
    }
    let id = v["sessionId"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let times: Vec<i64> = messages.iter().filter_map(|m| m.created).collect();
    let first_user = messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| m.text().chars().take(60).collect::<String>());
    let meta = SessionMeta {
        name: first_user.unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::CopilotCli,
        path: file.display().to_string(),
        working_dir: None,
        created: v["startTime"]
            .as_str()
            .and_then(millis)
            .or(times.first().copied()),
        updated: times.last().copied(),
        model: v["selectedModel"]
            .as_str()
            .or(v["model"].as_str())
            .map(str::to_owned),
        context_limit: None,
        usage: None,
        message_count: messages.len(),
        compaction_count: 0,
        parent_id: None,
    };
    Session {
        meta,
        messages: crate::model::shared(messages),
        compactions: Vec::new(),
    }
}
