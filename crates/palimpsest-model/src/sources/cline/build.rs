//! One Cline task made into a session. The API history is Anthropic message params (converted
//! by the message-log reader's `convert`); the panel's `api_req_started` messages give each
//! request's usage (on the answer that follows the history index it was sent at) and the
//! truncation range then in force: Cline drops `conversationHistoryDeletedRange` (inclusive)
//! from what it sends, keeping the first messages, and each change of range is a cut with no
//! summary. Roo Code's condense writes a summary (`isSummary`) and marks the messages it
//! replaced with its `condenseParent`: the model no longer gets those.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::marks::Mark;
use crate::error::{Error, Result};
use crate::model::{
    CompactionRecord, Message, MessageKind, Session, SessionMeta, SourceFormat, UsageSplit,
};
use crate::sources::message_log::convert;

/// A task's files, read.
pub struct Task {
    dir: PathBuf,
    /// The history's entries (none when only listed: see `marks`).
    history: Vec<Value>,
    /// What the cuts need of each history entry.
    marks: Vec<Mark>,
    ui: Vec<Value>,
    metadata: Value,
}

fn read_json(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t)
            .map(Some)
            .map_err(|e| Error::format(path, format!("not JSON: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

impl Task {
    /// Read the task folder `dir` (the panel's and metadata files are optional).
    pub fn read(dir: &Path) -> Result<Self> {
        let file = dir.join(super::HISTORY);
        let history = match read_json(&file)? {
            Some(Value::Array(a)) => a,
            _ => return Err(Error::format(&file, "not a JSON array of messages")),
        };
        let marks = history.iter().map(Mark::of).collect();
        Ok(Self::with(dir, history, marks))
    }

    /// Read `dir` for its listing entry alone: the history's marks, not its messages.
    pub fn listing(dir: &Path) -> Result<Self> {
        let file = dir.join(super::HISTORY);
        let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
        let marks: Vec<Mark> = serde_json::from_str(&text)
            .map_err(|e| Error::format(&file, format!("not a JSON array of messages: {e}")))?;
        Ok(Self::with(dir, Vec::new(), marks))
    }

    fn with(dir: &Path, history: Vec<Value>, marks: Vec<Mark>) -> Self {
        let ui = match read_json(&dir.join("ui_messages.json")) {
            Ok(Some(Value::Array(a))) => a,
            // The panel's file is a courtesy: without it (or damaged) the history still reads.
            _ => Vec::new(),
        };
        let metadata = read_json(&dir.join("task_metadata.json"))
            .ok()
            .flatten()
            .unwrap_or_default();
        Task {
            dir: dir.to_owned(),
            history,
            marks,
            ui,
            metadata,
        }
    }

    fn requests(&self) -> impl Iterator<Item = &Value> {
        self.ui.iter().filter(|m| m["say"] == "api_req_started")
    }

    /// The task's id: its folder's name.
    pub fn id(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The listing entry, counted without building the session: one message per history
    /// entry, and the cuts the panel's requests and the condenses make.
    pub fn meta(&self) -> SessionMeta {
        let mut meta = self.meta_of();
        meta.message_count = self.marks.len();
        meta.compaction_count = self.cuts(self.marks.len()).len();
        meta
    }

    /// The listing entry but for its counts.
    fn meta_of(&self) -> SessionMeta {
        let id = self.id();
        let task = self
            .ui
            .iter()
            .find(|m| m["say"] == "task")
            .and_then(|m| m["text"].as_str())
            .map(str::to_owned);
        let times: Vec<i64> = self.ui.iter().filter_map(|m| m["ts"].as_i64()).collect();
        let model = self.metadata["model_usage"]
            .as_array()
            .and_then(|u| u.last())
            .and_then(|u| u["model_id"].as_str())
            .map(str::to_owned);
        SessionMeta {
            name: task
                .map(|t| t.chars().take(80).collect())
                .unwrap_or_else(|| id.clone()),
            id,
            format: SourceFormat::Cline,
            path: self.dir.join(super::HISTORY).display().to_string(),
            working_dir: None,
            created: times.first().copied(),
            updated: times.last().copied(),
            model,
            context_limit: None,
            usage: None,
            message_count: 0,
            compaction_count: 0,
            parent_id: None,
        }
    }

    /// The session, built once (its listing entry counts what was built).
    pub fn session(&self) -> Session {
        let (messages, compactions) = self.parts();
        let mut meta = self.meta_of();
        meta.message_count = messages.len();
        meta.compaction_count = compactions.len();
        Session {
            meta,
            messages: crate::model::shared(messages),
            compactions,
        }
    }

    /// History message `index` as stored, for the raw view.
    pub fn raw(&self, index: usize) -> Option<String> {
        serde_json::to_string_pretty(self.history.get(index)?).ok()
    }

    fn parts(&self) -> (Vec<Message>, Vec<CompactionRecord>) {
        let file = self.dir.join(super::HISTORY);
        let mut messages: Vec<Message> = self
            .history
            .iter()
            .enumerate()
            .map(|(i, v)| match convert::convert(v, i, false) {
                Ok(c) => c.message,
                Err(why) => Message::unreadable(
                    i,
                    "message",
                    v.to_string(),
                    format!("{}: message {i}: {why}", file.display()),
                ),
            })
            .collect();
        super::xml::lift(&mut messages);
        // Each request's usage on its answer.
        for r in self.requests() {
            let at = r["conversationHistoryIndex"].as_u64().map(|i| i as usize);
            let info = info(r);
            if let Some(answer) = at.and_then(|i| messages.get_mut(i + 1)) {
                let n = |k: &str| info[k].as_u64().unwrap_or(0);
                if info.is_object() && answer.usage.is_empty() {
                    answer.usage.push(UsageSplit {
                        input: n("tokensIn"),
                        output: n("tokensOut"),
                        cache_read: n("cacheReads"),
                        cache_write: n("cacheWrites"),
                        cache_write_1h: 0,
                    });
                }
            }
        }
        // The range in force at the end is out of the model's view.
        let last = self
            .requests()
            .filter_map(|r| r.get("conversationHistoryDeletedRange"))
            .last();
        let (a, b) = bounds(last);
        if a <= b {
            for m in messages.iter_mut().take(b + 1).skip(a) {
                m.agent_visible = false;
            }
        }
        // Roo Code's condense: its summary, and the messages it replaced out of the view.
        for (i, mark) in self.marks.iter().enumerate() {
            if !mark.summary() {
                continue;
            }
            for k in self.replaced(i) {
                messages[k].agent_visible = false;
            }
            messages[i].kind = MessageKind::Summary;
            messages[i].user_visible = false;
        }
        let cuts = self.cuts(messages.len());
        (messages, cuts)
    }

    /// The cuts of a session of `len` messages: each new truncation range of the panel's
    /// requests (no summary), and each of Roo Code's condenses; by cut.
    fn cuts(&self, len: usize) -> Vec<CompactionRecord> {
        let mut records = Vec::new();
        let mut range: Option<&Value> = None;
        for r in self.requests() {
            let now = r.get("conversationHistoryDeletedRange");
            if now.is_some() && now != range {
                let (a, b) = bounds(now);
                if a <= b
                    && let Some(sent) = r["conversationHistoryIndex"].as_u64()
                {
                    records.push(CompactionRecord {
                        cut_index: (b + 1).min(len),
                        trigger: None,
                        pre_tokens: None,
                        post_tokens: info(r)["tokensIn"].as_u64(),
                        post_tokens_from_usage: true,
                        summary_index: None,
                        kept: (0..a).collect(),
                        raw: Some(
                            json!({"trimmed": true, "conversationHistoryDeletedRange": [a, b]}),
                        ),
                        applied_index: Some((sent as usize).max(b + 1)),
                        archived: None,
                    });
                }
                range = now;
            }
        }
        for (i, mark) in self.marks.iter().enumerate() {
            if !mark.summary() {
                continue;
            }
            let replaced = self.replaced(i);
            records.push(CompactionRecord {
                cut_index: i,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index: Some(i),
                kept: (0..i).filter(|k| !replaced.contains(k)).collect(),
                raw: Some(json!({"condenseId": mark.condense_id})),
                applied_index: None,
                archived: None,
            });
        }
        records.sort_by_key(|c| c.cut_index);
        records
    }

    /// The history entries Roo Code's condense summary `i` replaced (its `condenseParent`).
    fn replaced(&self, i: usize) -> Vec<usize> {
        let id = &self.marks[i].condense_id;
        (0..i)
            .filter(|&k| !id.is_null() && self.marks[k].condense_parent == *id)
            .collect()
    }
}

/// A panel request's `text`: its usage and cost, JSON in a string.
fn info(r: &Value) -> Value {
    r["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

/// A `[start, end]` range (inclusive); an empty one when there is none.
fn bounds(range: Option<&Value>) -> (usize, usize) {
    match range
        .and_then(Value::as_array)
        .map(|a| (a[0].as_u64(), a.get(1).and_then(Value::as_u64)))
    {
        Some((Some(a), Some(b))) => (a as usize, b as usize),
        _ => (1, 0),
    }
}
