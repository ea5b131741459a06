//! A Qwen Code chat recording read as its `SessionService` reads it to resume: the records by
//! `uuid`, the fragments of one record (an answer written in pieces) joined, and the active
//! branch — the `parentUuid` chain from the last conversation record back to the root. What
//! the records mean for the model and the user is `build`'s.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use super::content::Content;
use crate::error::Result;

/// System subtypes that are no part of the conversation: never the leaf of a branch.
const NOT_CONVERSATION: &[&str] = &[
    "session_sources_snapshot",
    "session_artifact_event",
    "session_artifact_snapshot",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
];

/// The fields of a record kept beside its keys and its content; the first record keeps
/// [`FIRST`] too. The rest (versions, branches, the linking keys once read) goes with its line:
/// thousands of small maps kept to the end and freed together were a fifth of a load.
const KEPT: &[&str] = &[
    "systemPayload",
    "toolCallResult",
    "usageMetadata",
    "model",
    "contextWindowSize",
];
const FIRST: &[&str] = &["sessionId", "cwd"];

/// The fields of `v` kept for a record (the first record's, when `first`), moved out of it.
fn kept(v: Value, first: bool) -> Value {
    let Value::Object(o) = v else {
        return Value::Null;
    };
    Value::Object(
        o.into_iter()
            .filter(|(k, _)| KEPT.contains(&k.as_str()) || (first && FIRST.contains(&k.as_str())))
            .collect(),
    )
}

/// One record, its fragments joined.
#[derive(Debug)]
pub struct Record {
    /// The fields of the record `build` and `meta` read (see [`KEPT`]), as the CLI would
    /// rebuild them: the first fragment's, their usage (the last) and model (the first).
    pub value: Value,
    /// Its `message`, read (the parts of later fragments appended).
    pub content: Option<Content>,
    /// Its time (the latest fragment's), Unix ms: parsed once, for the messages and the
    /// listing both.
    pub at: Option<i64>,
    /// The line of its first fragment.
    pub line: usize,
    /// The raw lines of its fragments, for the raw view.
    pub lines: Vec<usize>,
    /// The keys every pass asks of every record, read once: a lookup in a parsed record hashes
    /// the key, and these lookups were a quarter of a load.
    keys: Keys,
}

#[derive(Debug)]
struct Keys {
    uuid: String,
    parent: Option<String>,
    kind: String,
    subtype: Option<String>,
    agent: Option<String>,
}

impl Keys {
    fn of(v: &Value) -> Self {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Keys {
            uuid: s("uuid").unwrap_or_default(),
            parent: s("parentUuid"),
            kind: s("type").unwrap_or_default(),
            subtype: s("subtype"),
            agent: s("agentId")
                .or((v.get("isSidechain") == Some(&Value::Bool(true))).then(|| "sidechain".into())),
        }
    }
}

impl Record {
    pub fn uuid(&self) -> &str {
        &self.keys.uuid
    }

    pub fn kind(&self) -> &str {
        &self.keys.kind
    }

    pub fn subtype(&self) -> Option<&str> {
        self.keys.subtype.as_deref()
    }

    /// The sub-agent whose side chain this record is on (`agentId`; `sidechain` when only
    /// `isSidechain` says so); none for the session's own records.
    pub fn agent(&self) -> Option<&str> {
        self.keys.agent.as_deref()
    }

    fn conversation(&self) -> bool {
        !(self.kind() == "system"
            && self
                .subtype()
                .is_some_and(|s| NOT_CONVERSATION.contains(&s)))
    }
}

/// A recording: its records in order of first appearance and the lines that did not parse.
#[derive(Debug, Default)]
pub struct Recording {
    pub records: Vec<Record>,
    /// `(line, raw, error)` of each line that did not parse or is no record.
    pub bad: Vec<(usize, String, String)>,
    /// Where each uuid's record is (hashed with xxh3: SipHash over every record's uuid was a
    /// twentieth of a load).
    by_uuid: HashMap<String, usize, Xxh3DefaultBuilder>,
}

impl Recording {
    pub fn read(file: &Path) -> Result<Self> {
        let mut r = Recording::default();
        let mut by_uuid: HashMap<String, usize, Xxh3DefaultBuilder> = HashMap::default();
        crate::sources::jsonl::for_each_line(file, |l| {
            match l.value {
                Ok(v) => match v["uuid"].as_str().filter(|u| !u.is_empty()) {
                    Some(u) if v["type"].is_string() => match by_uuid.get(u) {
                        Some(&k) => join(&mut r.records[k], v, l.number),
                        None => {
                            by_uuid.insert(u.to_owned(), r.records.len());
                            let content =
                                v.get("message").filter(|m| m.is_object()).map(Content::of);
                            let first = r.records.is_empty();
                            r.records.push(Record {
                                at: crate::sources::gemini::expand::ms(&v["timestamp"]),
                                keys: Keys::of(&v),
                                content,
                                value: kept(v, first),
                                line: l.number,
                                lines: vec![l.number],
                            });
                        }
                    },
                    _ => r.bad.push((
                        l.number,
                        v.to_string(),
                        crate::error::Error::Line {
                            path: file.to_owned(),
                            line: l.number,
                            message: "not a Qwen Code record (no uuid or type)".into(),
                        }
                        .to_string(),
                    )),
                },
                Err(b) => r.bad.push((l.number, b.raw, b.error.to_string())),
            }
            true
        })?;
        r.by_uuid = by_uuid;
        Ok(r)
    }

    /// The sub-agents with a side chain in the file, in order of their first record.
    pub fn agents(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in self.records.iter().filter_map(Record::agent) {
            if !out.iter().any(|x| x == a) {
                out.push(a.to_owned());
            }
        }
        out
    }

    /// The active branch of the session (`agent` none) or of a sub-agent's side chain: from
    /// its last conversation record back through `parentUuid`, stopping at a missing parent or
    /// a cycle; indices into `records`, root first.
    pub fn branch(&self, agent: Option<&str>) -> Vec<usize> {
        let Some(leaf) = self
            .records
            .iter()
            .rposition(|r| r.conversation() && r.agent() == agent)
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut seen = vec![false; self.records.len()];
        let mut at = Some(leaf);
        while let Some(k) = at {
            if std::mem::replace(&mut seen[k], true) {
                break;
            }
            out.push(k);
            at = self.records[k]
                .keys
                .parent
                .as_deref()
                .and_then(|p| self.by_uuid.get(p).copied());
        }
        out.reverse();
        out
    }

    /// The raw lines of record `k`, for the raw view: one pretty record, or its fragments in
    /// order.
    pub fn raw(&self, file: &Path, k: usize) -> Option<String> {
        let want: HashSet<usize> = self.records.get(k)?.lines.iter().copied().collect();
        let mut out = Vec::new();
        crate::sources::jsonl::for_each_line(file, |l| {
            if want.contains(&l.number)
                && let Ok(v) = l.value
            {
                out.push(serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            true
        })
        .ok()?;
        Some(out.join("\n"))
    }
}

/// Join a later fragment of a record into it, as the CLI's aggregation does.
fn join(r: &mut Record, v: Value, line: usize) {
    r.lines.push(line);
    if v["message"]["parts"].is_array() {
        match &mut r.content {
            Some(c) => c.join(&v["message"]),
            None => r.content = Some(Content::of(&v["message"])),
        }
    }
    if v["usageMetadata"].is_object() {
        r.value["usageMetadata"] = v["usageMetadata"].clone();
    }
    for k in ["toolCallResult", "model"] {
        if !r.value[k].is_null() {
            continue;
        }
        if let Some(x) = v.get(k).filter(|x| !x.is_null()) {
            r.value[k] = x.clone();
        }
    }
    if let (Some(new), Some(old)) = (crate::sources::gemini::expand::ms(&v["timestamp"]), r.at)
        && new > old
    {
        r.at = Some(new);
    }
}
