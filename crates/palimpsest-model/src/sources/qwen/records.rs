//! A Qwen Code chat recording read as its `SessionService` reads it to resume: the records by
//! `uuid`, the fragments of one record (an answer written in pieces) joined, and the active
//! branch — the `parentUuid` chain from the last conversation record back to the root. What
//! the records mean for the model and the user is `build`'s.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

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

/// One record, its fragments joined.
#[derive(Debug)]
pub struct Record {
    /// The record as the CLI would rebuild it: the first fragment, the parts of the later ones
    /// appended, their usage (the last), model (the first) and time (the latest).
    pub value: Value,
    /// The line of its first fragment.
    pub line: usize,
    /// The raw lines of its fragments, for the raw view.
    pub lines: Vec<usize>,
}

impl Record {
    pub fn uuid(&self) -> &str {
        self.value["uuid"].as_str().unwrap_or_default()
    }

    pub fn kind(&self) -> &str {
        self.value["type"].as_str().unwrap_or_default()
    }

    pub fn subtype(&self) -> Option<&str> {
        self.value["subtype"].as_str()
    }

    /// The sub-agent whose side chain this record is on (`agentId`; `sidechain` when only
    /// `isSidechain` says so); none for the session's own records.
    pub fn agent(&self) -> Option<&str> {
        self.value["agentId"]
            .as_str()
            .or((self.value["isSidechain"] == true).then_some("sidechain"))
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
    by_uuid: HashMap<String, usize>,
}

impl Recording {
    pub fn read(file: &Path) -> Result<Self> {
        let mut r = Recording::default();
        let mut by_uuid: HashMap<String, usize> = HashMap::new();
        crate::sources::jsonl::for_each_line(file, |l| {
            match l.value {
                Ok(v) => match v["uuid"].as_str().filter(|u| !u.is_empty()) {
                    Some(u) if v["type"].is_string() => match by_uuid.get(u) {
                        Some(&k) => join(&mut r.records[k], v, l.number),
                        None => {
                            by_uuid.insert(u.to_owned(), r.records.len());
                            r.records.push(Record {
                                value: v,
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
        let mut seen = HashSet::new();
        let mut at = Some(leaf);
        while let Some(k) = at {
            if !seen.insert(k) {
                break;
            }
            out.push(k);
            at = self.records[k].value["parentUuid"]
                .as_str()
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
    if let Some(parts) = v["message"]["parts"].as_array() {
        if r.value["message"]["parts"].is_array() {
            if let Some(have) = r.value["message"]["parts"].as_array_mut() {
                have.extend(parts.iter().cloned());
            }
        } else {
            r.value["message"] = v["message"].clone();
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
    if let (Some(new), Some(old)) = (v["timestamp"].as_str(), r.value["timestamp"].as_str())
        && new > old
    {
        r.value["timestamp"] = Value::String(new.to_owned());
    }
}
