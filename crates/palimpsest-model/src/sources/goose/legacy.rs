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

/// True when `v` is a serialized goose message: a `role`, a `content` array and a numeric
/// `created` (message logs have no `created`; Claude and Codex lines no top-level `role`).
pub fn is_message(v: &Value) -> bool {
    v.get("role").is_some_and(Value::is_string)
        && v.get("content").is_some_and(Value::is_array)
        && v.get("created").is_some_and(Value::is_number)
}

/// How many non-blank lines [`sniff`] looks at.
const SNIFF_LINES: usize = 8;

/// The first non-blank lines of a file (up to 64 KiB in all), each parsed (`None` where a line
/// does not parse).
fn first_lines(path: &Path) -> Vec<Option<Value>> {
    // The metadata line may be long (a todo list in `extension_data`): read it whole.
    let Ok(bytes) = crate::sources::scan::read_head_line(path, 64 * 1024) else {
        return Vec::new();
    };
    // Every folder of transcripts is offered to goose first: a file none of whose first lines
    // has a `working_dir` or `created` key (Claude Code's, Codex's) is not parsed. A key
    // holds no escaped quote, so it is found as written.
    let finder = |k: &str| memchr::memmem::find(&bytes, k.as_bytes()).is_some();
    if !finder("\"working_dir\"") && !finder("\"created\"") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if out.len() == SNIFF_LINES {
            break;
        }
        if !line.trim_ascii().is_empty() {
            out.push(
                serde_json::from_slice::<Value>(line.trim_ascii())
                    .ok()
                    .filter(Value::is_object),
            );
        }
    }
    out
}

/// True when the file is a goose legacy session. Lines that do not parse are skipped: the
/// first line that does is the metadata; or it is damaged (an object that is not a message) and
/// a goose message follows; or the metadata line was lost and a goose message comes first after
/// a bad line. One bad line must not cost the file.
pub fn sniff(path: &Path) -> bool {
    let lines = first_lines(path);
    let bad_before = lines.iter().take_while(|l| l.is_none()).count();
    let mut parsed = lines.iter().flatten();
    match (parsed.next(), parsed.next()) {
        (Some(first), _) if is_metadata(first) => true,
        (Some(first), _) if is_message(first) => bad_before > 0,
        (Some(first), Some(next)) => {
            first.is_object() && first.get("role").is_none() && is_message(next)
        }
        _ => false,
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
    bad_metadata_at(path, 1)
}

fn bad_metadata_at(path: &Path, line: usize) -> Error {
    Error::Line {
        path: path.to_owned(),
        line,
        message: "not a goose session metadata line (needs `working_dir` and `description`)".into(),
    }
}

/// Which non-blank line is the metadata: the first one that parses, when it is metadata.
fn metadata_position<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Option<(usize, Value)> {
    lines
        .into_iter()
        .enumerate()
        .find_map(|(i, l)| {
            serde_json::from_slice::<Value>(l)
                .ok()
                .filter(Value::is_object)
                .map(|v| (i, v))
        })
        .filter(|(_, v)| is_metadata(v))
}

/// List one legacy file: metadata line parsed, messages counted by scanning lines. Every other
/// non-blank line is a row of `load` (a message, or an error row for a bad line).
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
    let found = metadata_position(all.iter().copied());
    let mut meta = match &found {
        Some((_, v)) => meta_from_line(path, v),
        None if sniff(path) => meta_from_line(path, &Value::Null),
        None => return Err(bad_metadata(path)),
    };
    let skip = found.map(|(i, _)| i);
    let rows = all
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .map(|(_, l)| *l);
    for line in rows {
        if meta.created.is_none() {
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

/// Load one legacy file whole. Lines before the metadata that do not parse, and a damaged
/// metadata line, become error rows naming their line; the messages load with default metadata.
pub fn load(path: &Path) -> Result<Session> {
    let mut meta: Option<SessionMeta> = None;
    let mut messages: Vec<Message> = Vec::new();
    jsonl::for_each_line(path, |line| {
        let index = messages.len();
        if meta.is_none() {
            match &line.value {
                Ok(v) if is_metadata(v) => {
                    meta = Some(meta_from_line(path, v));
                    return true;
                }
                // Bad lines before the metadata: keep looking for it.
                Err(bad) => {
                    messages.push(Message::unreadable(
                        index,
                        "line",
                        bad.raw.clone(),
                        bad.error.to_string(),
                    ));
                    return true;
                }
                // The metadata line is lost (the first good line is a message) or damaged (an
                // object without its keys): default metadata from here on.
                Ok(v) => {
                    meta = Some(meta_from_line(path, &Value::Null));
                    if !is_message(v) {
                        messages.push(Message::unreadable(
                            index,
                            "metadata",
                            v.to_string(),
                            format!(
                                "{}: loaded with default metadata",
                                bad_metadata_at(path, line.number)
                            ),
                        ));
                        return true;
                    }
                }
            }
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
    let Some(mut meta) = meta else {
        return Err(if messages.is_empty() {
            Error::format(path, "is empty: no goose metadata line")
        } else {
            bad_metadata(path)
        });
    };
    crate::sources::usage::fill(&mut messages, "usage", crate::sources::usage::goose);
    let compactions = kinds::classify(&mut messages);
    meta.created = messages.iter().find_map(|m| m.created);
    meta.message_count = messages.len();
    meta.compaction_count = compactions.len();
    Ok(Session {
        meta,
        messages: crate::model::shared(messages),
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

/// The stored line of row `index`: every non-blank line but the metadata's.
pub fn raw(path: &Path, index: usize) -> Result<Option<String>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
        .collect();
    let skip = metadata_position(lines.iter().copied()).map(|(i, _)| i);
    Ok(lines
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .nth(index)
        .map(|(_, line)| String::from_utf8_lossy(line).into_owned()))
}
