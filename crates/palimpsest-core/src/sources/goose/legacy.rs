//! goose's legacy `<id>.jsonl` sessions (goose ≤ 1.9): line 1 is the session metadata
//! (`working_dir`, `description`, token counts…), each further line one serialized message.
//!
//! goose's own importer silently drops a message line that does not parse; we keep it as an
//! error message naming file and line, with its text. Content mapping is `content`'s, kinds are
//! `kinds`'. Files are small (goose capped them at 10 MB), so listing scans bytes, without
//! parsing messages.

use std::path::Path;

use serde_json::Value;

use super::{content, kinds};
use crate::error::{Error, Result};
use crate::model::{Message, Part, RecordedUsage, Role, Session, SessionMeta, SourceFormat};
use crate::sources::jsonl;

/// True when `v` is a legacy goose metadata line: an object with `working_dir` and
/// `description`, and nothing that makes it a message.
pub fn is_metadata(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.contains_key("working_dir")
            && o.contains_key("description")
            && !o.contains_key("role")
            && !o.contains_key("type")
    })
}

/// The first non-blank line of a file (up to 64 KiB of it), parsed; `None` if it does not parse.
pub fn first_line(path: &Path) -> Option<Value> {
    use std::io::{BufRead, BufReader, Read};
    let f = std::fs::File::open(path).ok()?;
    let mut reader = BufReader::new(f.take(64 * 1024));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        if !line.trim_ascii().is_empty() {
            return serde_json::from_slice(line.trim_ascii()).ok();
        }
    }
}

/// The session id goose gives a legacy file: its stem (`YYYYMMDD_HHMMSS`).
pub fn session_id(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn meta_from_line(path: &Path, v: &Value) -> SessionMeta {
    let tok = |k: &str| v.get(k).and_then(Value::as_u64);
    let usage = RecordedUsage {
        input_tokens: tok("input_tokens"),
        output_tokens: tok("output_tokens"),
        total_tokens: tok("total_tokens"),
        cache_read_tokens: None,
        cache_write_tokens: None,
        accumulated_total_tokens: tok("accumulated_total_tokens"),
        // goose's input of the last call is the current context, cache included.
        context_tokens: tok("input_tokens"),
    };
    let id = session_id(path);
    let description = v
        .get("description")
        .and_then(Value::as_str)
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty());
    SessionMeta {
        name: description.unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::GooseLegacy,
        path: path.display().to_string(),
        working_dir: v
            .get("working_dir")
            .and_then(Value::as_str)
            .map(str::to_owned),
        created: None,
        updated: std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64),
        model: None,
        context_limit: None,
        usage: (usage != RecordedUsage::default()).then_some(usage),
        message_count: 0,
        compaction_count: 0,
        parent_id: None,
    }
}

fn bad_metadata(path: &Path) -> Error {
    Error::Line {
        path: path.to_owned(),
        line: 1,
        message: "not a goose session metadata line (needs `working_dir` and `description`)".into(),
    }
}

/// List one legacy file: metadata line parsed, messages counted by scanning lines.
pub fn list(path: &Path) -> Result<SessionMeta> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let mut all: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
        .collect();
    // An unfinished last line (goose mid-write) is left out, as `load` does.
    if !bytes.ends_with(b"\n")
        && all
            .last()
            .is_some_and(|l| serde_json::from_slice::<Value>(l).is_err())
    {
        all.pop();
    }
    let mut lines = all.into_iter();
    let first = lines
        .next()
        .and_then(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(is_metadata)
        .ok_or_else(|| bad_metadata(path))?;
    let mut meta = meta_from_line(path, &first);
    for (i, line) in lines.enumerate() {
        if i == 0 {
            // The first message's time stands for the session's creation.
            meta.created = serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|v| v.get("created").and_then(Value::as_i64))
                .map(content::created_ms);
        }
        meta.message_count += 1;
        let text = String::from_utf8_lossy(line);
        if text.contains("\"assistant\"")
            && kinds::CONTINUATION_PREFIXES
                .iter()
                .any(|p| text.contains(p))
        {
            meta.compaction_count += 1;
        }
    }
    Ok(meta)
}

/// Load one legacy file whole.
pub fn load(path: &Path) -> Result<Session> {
    let mut meta: Option<SessionMeta> = None;
    let mut messages: Vec<Message> = Vec::new();
    let mut first_error = None;
    jsonl::for_each_line(path, |line| {
        if meta.is_none() {
            match line.value {
                Ok(v) if is_metadata(&v) => meta = Some(meta_from_line(path, &v)),
                _ => {
                    first_error = Some(bad_metadata(path));
                    return false;
                }
            }
            return true;
        }
        let index = messages.len();
        messages.push(match line.value {
            Ok(v) => {
                let mut m = content::message(
                    index,
                    v.get("role").and_then(Value::as_str).unwrap_or_default(),
                    v.get("content").unwrap_or(&Value::Null),
                    v.get("metadata"),
                    v.get("created").and_then(Value::as_i64),
                );
                m.id = v.get("id").and_then(Value::as_str).map(str::to_owned);
                if !v.get("content").is_some_and(Value::is_array) {
                    m.error = Some(line_error(
                        path,
                        line.number,
                        "message has no `content` array",
                    ));
                } else if content::role(v.get("role").and_then(Value::as_str).unwrap_or(""))
                    .is_none()
                {
                    m.error = Some(line_error(
                        path,
                        line.number,
                        "role is not `user` or `assistant`",
                    ));
                }
                m
            }
            Err(bad) => {
                let mut m = Message::new(index, Role::User, Vec::new());
                m.error = Some(bad.error.to_string());
                m.parts.push(Part::Other {
                    original_type: "line".into(),
                    raw: Value::String(bad.raw),
                });
                m
            }
        });
        true
    })?;
    if let Some(e) = first_error {
        return Err(e);
    }
    let mut meta = meta.ok_or_else(|| Error::format(path, "is empty: no goose metadata line"))?;
    let compactions = kinds::classify(&mut messages);
    meta.created = messages.iter().find_map(|m| m.created);
    meta.message_count = messages.len();
    meta.compaction_count = compactions.len();
    Ok(Session {
        meta,
        messages,
        compactions,
    })
}

fn line_error(path: &Path, line: usize, message: &str) -> String {
    Error::Line {
        path: path.to_owned(),
        line,
        message: message.into(),
    }
    .to_string()
}

/// The stored line of message `index` (the metadata line is not a message).
pub fn raw(path: &Path, index: usize) -> Result<Option<String>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
        .nth(index + 1)
        .map(|line| String::from_utf8_lossy(line).into_owned()))
}
