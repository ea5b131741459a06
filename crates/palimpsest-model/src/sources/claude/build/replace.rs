//! Claude Code's edits of the model's view that write no compact boundary.
//!
//! - **Content replacement.** A `content-replacement` record (`replacements[]`, each `kind`
//!   `tool-result` or `persisted`, naming its block by `toolUseId` or by `messageUuid` +
//!   `blockIndex`, with the `replacement` text) is written when Claude Code swaps large tool
//!   results for a stub before a request; every later request carries the stub. The record
//!   becomes a row (a notice nobody sees) and a [`Trigger::Replacement`] cut: each named
//!   result keeps its stored content in `raw` while its `text` becomes the stub, and
//!   `details.replaced` lists the call ids, as a microcompact does.
//! - **Context collapse.** A `marble-origami-commit` (`collapseId`, `summaryUuid`,
//!   `summaryContent`, `firstArchivedUuid`, `lastArchivedUuid`) replaces one span of the
//!   conversation by its summary in every later request. The record becomes the summary row
//!   (a user message the model sees, the user does not) and a [`Trigger::Collapse`] cut that
//!   drops the archived span only (`details.collapsed` on each message of it). A commit whose
//!   span is not in the file drops nothing and says so on its row.
//! - Commits are scoped to a compaction epoch: a `compact_boundary` ends them (the compaction
//!   hides all of it anyway), and a `marble-origami-reset` undoes those still in force: the
//!   span is back in the final view and the summary leaves it. (The request-by-request view
//!   then shows the span as visible throughout: one interval per message is all it keeps.)
//! - `marble-origami-snapshot` holds collapses staged but not committed; it changes nothing the
//!   model sees and is only counted.
//!
//! The records are turned into rows by `build`; this module runs inside `visibility`, after
//! branches are marked and before compactions hide what precedes them.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Builder, Node, is_conversation};
use crate::model::{CompactionRecord, Message, MessageKind, Part, Role, Trigger};
use crate::sources::claude::blocks::str_of;
use crate::sources::scan::millis;

/// Record types this module reads (each becomes a row).
pub const TYPES: &[&str] = &[
    "content-replacement",
    "marble-origami-commit",
    "marble-origami-reset",
];

/// The record without the envelope keys every line repeats.
fn stripped(v: &Value) -> Value {
    let mut raw = v.clone();
    if let Value::Object(o) = &mut raw {
        for k in [
            "type",
            "sessionId",
            "uuid",
            "parentUuid",
            "timestamp",
            "cwd",
            "version",
        ] {
            o.remove(k);
        }
    }
    raw
}

/// The row a record of [`TYPES`] becomes.
/// Its details are handed back apart: the builder adds the record's offset before it keeps them.
pub fn row(v: &Value, typ: &str, number: usize) -> (Message, Map<String, Value>, Node) {
    let node = Node {
        lines: vec![number],
        subtype: Some(typ.into()),
        created: str_of(v, "timestamp").and_then(millis),
        ..Node::default()
    };
    let mut details = Map::new();
    details.insert("lines".into(), json!([number]));
    let m = if typ == "marble-origami-commit" {
        let mut m = Message::new(
            0,
            Role::User,
            vec![Part::Text {
                text: str_of(v, "summaryContent").unwrap_or_default().to_owned(),
            }],
        );
        m.kind = MessageKind::Summary;
        // The model receives the summary in place of the span; the user's transcript still
        // shows the span itself.
        m.user_visible = false;
        for key in [
            "collapseId",
            "summaryUuid",
            "summary",
            "firstArchivedUuid",
            "lastArchivedUuid",
        ] {
            if let Some(x) = v.get(key) {
                details.insert(key.into(), x.clone());
            }
        }
        m
    } else {
        let mut m = Message::new(
            0,
            Role::System,
            vec![Part::Other {
                original_type: typ.to_owned(),
                raw: stripped(v),
            }],
        );
        m.kind = MessageKind::Notification;
        m.agent_visible = false;
        m.user_visible = false;
        m
    };
    (m, details, node)
}

/// Apply every record of [`TYPES`] in stored order; returns their cuts.
pub fn apply(b: &mut Builder) -> Vec<CompactionRecord> {
    let mut records = Vec::new();
    // Commits in force: (row, messages it took from view).
    let mut active: Vec<(usize, Vec<usize>)> = Vec::new();
    for at in 0..b.messages.len() {
        match b.nodes[at].subtype.as_deref() {
            Some("compact_boundary") => active.clear(),
            Some("content-replacement") => records.push(replacement(b, at)),
            Some("marble-origami-commit") => {
                let (record, hidden) = commit(b, at);
                records.push(record);
                active.push((at, hidden));
            }
            Some("marble-origami-reset") => {
                for (row, hidden) in active.drain(..) {
                    for i in hidden {
                        Arc::make_mut(&mut b.messages[i]).agent_visible = true;
                    }
                    let m = Arc::make_mut(&mut b.messages[row]);
                    m.agent_visible = false;
                    m.set_detail("collapse_reset", json!(at));
                }
            }
            _ => {}
        }
    }
    records
}

fn record(at: usize, trigger: Trigger, raw: Value) -> CompactionRecord {
    CompactionRecord {
        cut_index: at,
        trigger: Some(trigger),
        pre_tokens: None,
        post_tokens: None,
        post_tokens_from_usage: false,
        summary_index: None,
        kept: Vec::new(),
        raw: Some(raw),
        applied_index: None,
        archived: None,
    }
}

fn raw_of(m: &Message) -> Value {
    m.parts
        .iter()
        .find_map(|p| match p {
            Part::Other { raw, .. } => Some(raw.clone()),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

/// Swap each named result for its stub. An entry named by message and block gets the call id
/// of the block it names written into the record (`toolUseId`), so the cut lists it.
fn replacement(b: &mut Builder, at: usize) -> CompactionRecord {
    let mut raw = raw_of(&b.messages[at]);
    let entries = raw
        .get_mut("replacements")
        .and_then(Value::as_array_mut)
        .map(std::mem::take)
        .unwrap_or_default();
    let mut out = Vec::with_capacity(entries.len());
    for mut e in entries {
        let stub = str_of(&e, "replacement").map(str::to_owned);
        let target = match str_of(&e, "toolUseId") {
            Some(id) => find_call(b, at, id),
            None => find_block(b, at, &e),
        };
        if let (Some((pos, part)), Some(stub)) = (target, stub) {
            let m = Arc::make_mut(&mut b.messages[pos]);
            if let Part::ToolResult {
                call_id, text, raw, ..
            } = &mut m.parts[part]
            {
                let stored = std::mem::replace(text, stub.into()).into_string();
                // `raw` dropped a plain-string content as a duplicate of `text`: put it back.
                raw.edit(|raw| {
                    if let Value::Object(o) = raw
                        && !o.contains_key("content")
                    {
                        o.insert("content".into(), Value::String(stored));
                    }
                });
                let id = call_id.clone();
                if let Value::Object(o) = &mut e {
                    o.entry("toolUseId").or_insert_with(|| json!(id));
                }
                let mut ids = match m.detail("replaced") {
                    Some(Value::Array(a)) => a,
                    _ => Vec::new(),
                };
                ids.push(json!(id));
                m.set_detail("replaced", Value::Array(ids));
            }
        }
        out.push(e);
    }
    if let Value::Object(o) = &mut raw {
        o.insert("replacements".into(), Value::Array(out));
    }
    record(at, Trigger::Replacement, raw)
}

/// The result of call `id` stored before `at`: (message, part).
fn find_call(b: &Builder, at: usize, id: &str) -> Option<(usize, usize)> {
    (0..at).rev().find_map(|i| {
        b.messages[i]
            .parts
            .iter()
            .position(|p| matches!(p, Part::ToolResult { call_id, .. } if call_id == id))
            .map(|k| (i, k))
    })
}

/// The result named by `messageUuid` and `blockIndex` (its place in the line's content).
fn find_block(b: &Builder, at: usize, e: &Value) -> Option<(usize, usize)> {
    let uuid = str_of(e, "messageUuid")?;
    let block = usize::try_from(e.get("blockIndex")?.as_u64()?).ok()?;
    let uuid = b.parents.find(uuid)?;
    let pos = (0..at).find(|&i| b.nodes[i].uuids.contains(&uuid))?;
    matches!(
        b.messages[pos].parts.get(block),
        Some(Part::ToolResult { .. })
    )
    .then_some((pos, block))
}

/// The message at or before `at` whose line has the uuid `u`.
fn find_uuid(b: &Builder, at: usize, u: Option<&Value>) -> Option<usize> {
    let u = b.parents.find(u?.as_str()?)?;
    (0..at).find(|&i| b.nodes[i].uuids.contains(&u))
}

/// Take the archived span from view; returns the cut and the messages it hid.
fn commit(b: &mut Builder, at: usize) -> (CompactionRecord, Vec<usize>) {
    let line = b.nodes[at].lines.first().copied().unwrap_or(0);
    // The record as stored, but its summary: that is the row's text.
    let raw = b.messages[at].details.as_ref().map_or(Value::Null, |d| {
        let mut d = d.value();
        if let Value::Object(o) = &mut d {
            o.remove("lines");
        }
        d
    });
    let span = match (
        find_uuid(b, at, raw.get("firstArchivedUuid")),
        find_uuid(b, at, raw.get("lastArchivedUuid")),
    ) {
        (Some(x), Some(y)) => Some((x.min(y), x.max(y))),
        _ => None,
    };
    let id = raw.get("collapseId").cloned().unwrap_or(Value::Null);
    let mut hidden = Vec::new();
    if let Some((x, y)) = span {
        for i in x..=y {
            let m = &b.messages[i];
            if m.agent_visible && (is_conversation(m) || m.kind == MessageKind::Summary) {
                let m = Arc::make_mut(&mut b.messages[i]);
                m.agent_visible = false;
                m.set_detail("collapsed", id.clone());
                hidden.push(i);
            }
        }
    } else {
        let name = |k: &str| raw.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
        Arc::make_mut(&mut b.messages[at]).error = Some(format!(
            "line {line}: marble-origami-commit {id}: the archived span ({} … {}) is not in this \
             file, so nothing is taken from view",
            name("firstArchivedUuid"),
            name("lastArchivedUuid"),
        ));
    }
    let mut r = record(at, Trigger::Collapse, raw);
    r.summary_index = Some(at);
    r.archived = span.map(|(x, y)| (b.messages[x].index, b.messages[y].index));
    (r, hidden)
}
