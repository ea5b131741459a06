//! A Gemini CLI recording replayed as its `ChatRecordingService` reloads it, keeping what it
//! forgets: every message ever recorded, in the order it first appeared (the latest version of
//! a record upserted by id), and the history the model holds at the end. `$set.messages`
//! replaces that history: when it drops messages and brings new ones (the compression's state
//! snapshot and the model's thanks), that is a compaction, whose kept messages are those of
//! the old history it keeps. `$rewindTo` removes a message and what follows it from the history
//! and from what the user sees. A `gemini` message is the model's answer: its text and calls,
//! then each call's result as the model received it (a tool message): `expand`'s.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::expand::{content_text, expand, ms};
use crate::error::{Error, Result};
use crate::model::{
    CompactionRecord, Message, MessageKind, Session, SessionMeta, SourceFormat, Trigger,
};
use crate::sources::json_print;

/// One compression: the history it dropped from, the ids it brought and kept.
struct Compression {
    brought: Vec<String>,
    kept: Vec<String>,
}

/// One message record's latest version, read into messages when its line is: holding every
/// record's JSON to the end of the file and freeing it all then cost a load a tenth of its
/// time. A record written again (its calls' results arrive) is read again.
struct Record {
    id: String,
    /// The fingerprint of its JSON (`json_print`).
    print: u64,
    messages: Vec<Message>,
    /// A user turn's text, cut to 60 characters (the listing's name).
    user_text: Option<String>,
    /// An answer's model.
    model: Option<String>,
}

impl Record {
    fn of(id: String, v: Value) -> Record {
        let user_text =
            (v["type"] == "user").then(|| content_text(&v["content"]).chars().take(60).collect());
        let model = (v["type"] == "gemini")
            .then(|| v["model"].as_str().map(str::to_owned))
            .flatten();
        Record {
            print: json_print::of(&v),
            messages: expand(&id, v),
            id,
            user_text,
            model,
        }
    }
}

/// A recording, replayed.
pub struct Recording {
    file: PathBuf,
    metadata: Value,
    /// Every message record by first appearance, at its latest version.
    all: Vec<Record>,
    /// Where each id sits in `all`: a long recording upserts thousands of records, and a
    /// scan per record made reading it quadratic.
    slot: HashMap<String, usize>,
    /// The history the model holds at the end.
    current: Vec<String>,
    /// Messages a rewind removed.
    rewound: Vec<String>,
    compressions: Vec<Compression>,
    /// Lines that did not parse: `(line, raw, error)`.
    bad: Vec<(usize, String, String)>,
    /// Lines that parse but are no record the CLI writes: `(line, value)`, kept as invisible
    /// rows.
    unknown: Vec<(usize, Value)>,
}

impl Recording {
    /// Read and replay `file` (a legacy `.json` record is its messages in order).
    pub fn read(file: &Path) -> Result<Self> {
        let mut r = Recording {
            file: file.to_owned(),
            metadata: json!({}),
            all: Vec::new(),
            slot: HashMap::new(),
            current: Vec::new(),
            rewound: Vec::new(),
            compressions: Vec::new(),
            bad: Vec::new(),
            unknown: Vec::new(),
        };
        if file.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, e))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| Error::format(file, format!("not a Gemini recording: {e}")))?;
            for m in v["messages"].as_array().into_iter().flatten() {
                r.message(m.clone());
            }
            r.metadata = v;
            return Ok(r);
        }
        crate::sources::jsonl::for_each_line(file, |l| {
            match l.value {
                Ok(v) => {
                    if let Some(v) = r.record(v) {
                        r.unknown.push((l.number, v));
                    }
                }
                Err(b) => r.bad.push((l.number, b.raw, b.error.to_string())),
            }
            true
        })?;
        Ok(r)
    }

    /// Replay one line; a value that is no record the CLI writes comes back.
    fn record(&mut self, mut v: Value) -> Option<Value> {
        if let Some(to) = v["$rewindTo"].as_str() {
            let cut = self.current.iter().position(|i| i == to).unwrap_or(0);
            self.rewound.extend(self.current.drain(cut..));
        } else if v["id"].is_string() {
            self.message(v);
        } else if let Some(Value::Object(mut set)) =
            v.get_mut("$set").filter(|s| s.is_object()).map(Value::take)
        {
            // Taken, not copied: its `messages` are the whole history.
            if let Some(Value::Array(list)) = set.shift_remove("messages") {
                self.replace(list);
            }
            for (k, x) in set {
                self.metadata[&k] = x;
            }
        } else if v["sessionId"].is_string() {
            for (k, x) in v.as_object().into_iter().flatten() {
                self.metadata[k] = x.clone();
            }
        } else {
            return Some(v);
        }
        None
    }

    /// A message record: the latest version of its id, in the history when new.
    fn message(&mut self, v: Value) {
        let id = v["id"].as_str().unwrap_or_default().to_owned();
        if !self.upsert(id.clone(), v) {
            self.current.push(id);
        }
    }

    /// Store `v` as the latest record of `id`; whether the id was known before. A record that
    /// comes back unchanged (a `$set.messages` rewrites the whole history) is not read again.
    fn upsert(&mut self, id: String, v: Value) -> bool {
        match self.slot.get(&id) {
            Some(&k) => {
                if self.all[k].print != json_print::of(&v) {
                    self.all[k] = Record::of(id, v);
                }
                true
            }
            None => {
                self.slot.insert(id.clone(), self.all.len());
                self.all.push(Record::of(id, v));
                false
            }
        }
    }

    /// `$set.messages`: the new history. Dropping messages while bringing new ones is a
    /// compression; otherwise the records are only updated (masked results).
    fn replace(&mut self, list: Vec<Value>) {
        let ids: Vec<String> = list
            .iter()
            .filter_map(|m| m["id"].as_str().map(str::to_owned))
            .collect();
        let brought: Vec<String> = ids
            .iter()
            .filter(|i| !self.slot.contains_key(*i))
            .cloned()
            .collect();
        let new: HashSet<&String> = ids.iter().collect();
        let dropped = self.current.iter().any(|i| !new.contains(i));
        for m in list {
            let id = m["id"].as_str().unwrap_or_default().to_owned();
            self.upsert(id, m);
        }
        if dropped && !brought.is_empty() {
            let kept = self
                .current
                .iter()
                .filter(|i| new.contains(i))
                .cloned()
                .collect();
            self.compressions.push(Compression { brought, kept });
        }
        self.current = ids;
    }

    /// The session's id, its parent (a sub-agent's folder names it) and the listing entry.
    pub fn meta(self) -> SessionMeta {
        self.session().meta
    }

    /// [`Self::meta`] but for its counts, which the caller fills in.
    fn meta_of(&self) -> SessionMeta {
        let id = self.metadata["sessionId"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| {
                self.file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
        let parent = (self.metadata["kind"] == "subagent")
            .then(|| self.file.parent().and_then(Path::file_name))
            .flatten()
            .map(|n| n.to_string_lossy().into_owned());
        let first_user = self.all.iter().find_map(|r| r.user_text.clone());
        let name = self.metadata["summary"]
            .as_str()
            .map(str::to_owned)
            .or(first_user)
            .unwrap_or_else(|| id.clone());
        let model = self.all.iter().rev().find_map(|r| r.model.clone());
        SessionMeta {
            id,
            format: SourceFormat::GeminiCli,
            path: self.file.display().to_string(),
            name,
            working_dir: self.metadata["directories"][0].as_str().map(str::to_owned),
            created: ms(&self.metadata["startTime"]),
            updated: ms(&self.metadata["lastUpdated"]),
            model,
            context_limit: None,
            usage: None,
            message_count: 0,
            compaction_count: 0,
            parent_id: parent,
        }
    }

    /// The session, built once (its listing entry counts what was built).
    pub fn session(self) -> Session {
        let mut meta = self.meta_of();
        let (messages, compactions) = self.parts();
        meta.message_count = messages.len();
        meta.compaction_count = compactions.len();
        Session {
            meta,
            messages: crate::model::shared(messages),
            compactions,
        }
    }

    fn parts(self) -> (Vec<Message>, Vec<CompactionRecord>) {
        let mut out: Vec<Message> = Vec::new();
        let mut first: HashMap<String, usize> = HashMap::new();
        for (line, raw, why) in self.bad {
            let mut m = Message::unreadable(0, "line", raw, why);
            m.set_detail("line", json!(line));
            out.push(m);
        }
        for (line, v) in self.unknown {
            // Kept, never sent, never shown: a line of a kind the CLI does not write.
            let mut m = Message::new(0, crate::model::Role::System, Vec::new());
            m.parts.push(crate::model::Part::Other {
                original_type: v["type"].as_str().unwrap_or("unknown").to_owned(),
                raw: v,
            });
            (m.agent_visible, m.user_visible) = (false, false);
            m.set_detail("line", json!(line));
            out.push(m);
        }
        let current: HashSet<&String> = self.current.iter().collect();
        let rewound: HashSet<&String> = self.rewound.iter().collect();
        for r in self.all {
            let seen = current.contains(&r.id);
            let gone = rewound.contains(&r.id);
            let at = out.len();
            for mut m in r.messages {
                if m.kind != MessageKind::Notification {
                    m.agent_visible = seen;
                }
                if gone {
                    m.user_visible = false;
                }
                out.push(m);
            }
            first.insert(r.id, at);
        }
        for (i, m) in out.iter_mut().enumerate() {
            m.index = i;
        }
        let at = |id: &str| first.get(id).copied();
        // A record's messages: the answer and its results share its id.
        let mut pieces_of: HashMap<String, Vec<usize>> = HashMap::new();
        for m in &out {
            if let Some(id) = &m.id {
                pieces_of.entry(id.clone()).or_default().push(m.index);
            }
        }
        let pieces = |id: &str| pieces_of.get(id).cloned().unwrap_or_default();
        let records = self
            .compressions
            .iter()
            .filter_map(|c| {
                let summary = at(&c.brought[0])?;
                for id in &c.brought {
                    if let Some(k) = at(id) {
                        // The snapshot stands for the span; the thanks after it is the model's.
                        let kind = if k == summary {
                            MessageKind::Summary
                        } else {
                            MessageKind::Continuation
                        };
                        out[k].kind = kind;
                        out[k].user_visible = false;
                    }
                }
                Some(CompactionRecord {
                    cut_index: summary,
                    trigger: Some(Trigger::Auto),
                    pre_tokens: None,
                    post_tokens: None,
                    post_tokens_from_usage: false,
                    summary_index: Some(summary),
                    kept: c.kept.iter().flat_map(|id| pieces(id)).collect(),
                    raw: None,
                    applied_index: None,
                    archived: None,
                })
            })
            .collect();
        (out, records)
    }
}

/// The latest stored version of message record `id` in `file`, for the raw view: read again,
/// as a loaded session keeps messages, not records.
pub fn raw(file: &Path, id: &str) -> Result<Option<String>> {
    let mut latest: Option<Value> = None;
    let mut keep = |v: &Value| {
        if v["id"] == id {
            latest = Some(v.clone());
        }
    };
    if file.extension().is_some_and(|e| e == "json") {
        let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, e))?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| Error::format(file, format!("not a Gemini recording: {e}")))?;
        v["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .for_each(&mut keep);
    } else {
        crate::sources::jsonl::for_each_line(file, |l| {
            if let Ok(v) = l.value {
                keep(&v);
                v["$set"]["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .for_each(&mut keep);
            }
            true
        })?;
    }
    Ok(latest.and_then(|v| serde_json::to_string_pretty(&v).ok()))
}
