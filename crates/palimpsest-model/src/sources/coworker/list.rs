//! Listing coworker sessions without converting their messages, and the usage figures the
//! database and the `usage` sidecars record.
//! Converting messages is `build`'s; reading the database is `db`'s.

use serde_json::Value;

use super::CoworkerSource;
use super::block::CompactionState;
use crate::error::Result;
use crate::model::{RecordedUsage, SessionMeta};
use crate::sources::{SessionSource, scan};

pub(super) fn list(src: &CoworkerSource) -> Result<Vec<SessionMeta>> {
    let mut out = Vec::new();
    for (id, row) in src.ids()? {
        let file = src.conversation(&id);
        if src.headless || !file.is_file() {
            // A JSON document must be parsed whole anyway: list it by loading it.
            out.push(src.load(&id)?.meta);
            continue;
        }
        let sc = scan(&file)?;
        let mut states = sc.records;
        if let Some(Ok(Some(col))) = row
            .as_ref()
            .and_then(|r| r.compaction.as_ref())
            .map(CompactionState::from_value)
            && !states
                .iter()
                .any(|s| s.boundary_index == col.boundary_index && s.created_at == col.created_at)
        {
            states.push(col);
        }
        let applied = states
            .iter()
            .filter(|s| s.boundary_index > 0 && s.boundary_index < sc.lines)
            .count();
        let mut meta = src.meta(&id, row.as_ref(), &file, sc.first_user.as_deref());
        meta.message_count = sc.lines + applied;
        meta.compaction_count = states.len();
        if meta.updated.is_none() {
            meta.updated = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis());
        }
        out.push(meta);
    }
    Ok(out)
}

/// The last assistant's `usage` sidecar. `input` is fresh prompt tokens only (cache reads and
/// writes are separate), so the context of that request is their sum, reported as total with
/// the output.
pub(super) fn last_usage(u: &Value) -> RecordedUsage {
    let get = |k: &str| u.get(k).and_then(Value::as_u64);
    RecordedUsage {
        input_tokens: get("input"),
        output_tokens: get("output"),
        total_tokens: Some(tokens(u, &["input", "output", "cache_read", "cache_write"])),
        cache_read_tokens: get("cache_read"),
        cache_write_tokens: get("cache_write"),
        accumulated_total_tokens: None,
        context_tokens: u
            .get("input")
            .is_some()
            .then(|| tokens(u, &["input", "cache_read", "cache_write"])),
    }
}

pub(super) fn tokens(u: &Value, keys: &[&str]) -> u64 {
    keys.iter()
        .filter_map(|k| u.get(*k).and_then(Value::as_u64))
        .sum()
}

/// The `usage` column folds per model: sum every model's four counters.
pub(super) fn column_total(u: &Value) -> u64 {
    u.as_object()
        .map(|m| {
            m.values()
                .map(|v| tokens(v, &["input", "output", "cache_read", "cache_write"]))
                .sum()
        })
        .unwrap_or(0)
}

/// What listing learns from one conversation file without converting its messages: the count
/// of stored lines, the first user text, and the compaction records of `compacted` notices.
struct Scan {
    lines: usize,
    first_user: Option<String>,
    records: Vec<CompactionState>,
}

/// Stream the file as line sketches (a huge tool result is never held whole), then read back
/// only the lines listing needs: the first user message and the `compacted` notices.
fn scan(path: &std::path::Path) -> Result<Scan> {
    let mut lines = 0;
    let mut first_user = None;
    let mut wanted = Vec::new();
    scan::for_each_sketch(path, |sk| {
        if sk.head.trim_ascii().is_empty() && sk.is_whole() {
            return;
        }
        // A last line still being written is left out, as the loader leaves it out.
        let finished =
            sk.complete || (sk.is_whole() && serde_json::from_slice::<Value>(sk.head).is_ok());
        if !finished {
            return;
        }
        lines += 1;
        let head = sk.head;
        if first_user.is_none() && scan::find(head, b"\"role\": \"user\"").is_some() {
            first_user = Some(sk.number);
            wanted.push(sk.number);
        } else if scan::find(head, b"\"notice\"").is_some()
            && scan::find(head, b"\"compacted\"").is_some()
            && sk.contains(b"\"compaction\"")
        {
            wanted.push(sk.number);
        }
    })?;
    let mut s = Scan {
        lines,
        first_user: None,
        records: Vec::new(),
    };
    let text = scan::read_lines(path, &wanted)?;
    for (n, line) in wanted.iter().zip(text.split('\n')) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if Some(*n) == first_user {
            s.first_user = Some(crate::sources::message_log::convert::flatten_text(
                v.get("content").unwrap_or(&Value::Null),
            ));
        } else if let Some(Ok(Some(st))) = v.get("compaction").map(CompactionState::from_value) {
            s.records.push(st);
        }
    }
    Ok(s)
}
