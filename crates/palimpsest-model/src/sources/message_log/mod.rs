//! Plain message logs: OpenAI Chat Completions or Anthropic Messages arrays, as a JSON array,
//! `{"messages": [...]}` (with Anthropic's top-level `system`), or JSONL with one message per
//! line; plus the small interchange a harness can use to log what it did (visibility hints,
//! `kind`, explicit compaction records; see docs/FORMATS.md, "Message logs and the interchange").
//!
//! One file is one session. Claims only files whose messages look like provider messages, so
//! Claude Code, Codex and goose files are left to their readers. Conversion is in [`convert`],
//! timeline rules (compaction cuts, links) in [`build`].

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Claim, Probe, SessionSource, jsonl};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
pub mod convert;
mod split;

use build::Item;
pub use build::{Dialect, detect_dialect};

/// Claim a `.json` / `.jsonl` file whose content is a provider message log.
pub fn claim(p: &Probe) -> Claim {
    if p.is_dir {
        return None;
    }
    let ext = p.extension();
    let ok = match ext.as_str() {
        "jsonl" | "ndjson" => jsonl_looks_like_log(p.head),
        "json" => json_looks_like_log(p.head),
        _ => false,
    };
    ok.then(|| {
        Ok(Box::new(MessageLogSource {
            path: p.path.to_owned(),
            lines: ext != "json",
        }) as Box<dyn SessionSource>)
    })
}

/// Keys that mark another agent's line: Claude Code's envelope, Codex's `type` + `payload`.
fn foreign(v: &Value) -> bool {
    v.get("parentUuid").is_some()
        || v.get("sessionId").is_some()
        || (v.get("type").is_some() && v.get("payload").is_some())
}

/// A line of a log: a message (`role`), a compaction record, or Anthropic's `system`.
fn log_line(v: &Value) -> bool {
    v.is_object()
        && !foreign(v)
        && (v.get("role").is_some_and(Value::is_string)
            || v.get("compaction").is_some_and(Value::is_object)
            || (v.get("system").is_some() && v.get("role").is_none()))
}

fn jsonl_looks_like_log(head: &[u8]) -> bool {
    let complete = match head.iter().rposition(|&b| b == b'\n') {
        Some(i) => &head[..i],
        None => head,
    };
    let mut seen = 0;
    for l in complete.split(|&b| b == b'\n').map(<[u8]>::trim_ascii) {
        if l.is_empty() {
            continue;
        }
        // The first lines decide: goose legacy's metadata line has no role and fails here. A
        // line that is not JSON at all (torn, damaged) says nothing either way: the reader
        // turns it into an error row naming its line.
        match serde_json::from_slice::<Value>(l) {
            Ok(v) if log_line(&v) => seen += 1,
            // Another agent's line, or goose legacy's metadata: not a message log.
            Ok(v) if foreign(&v) || v.get("working_dir").is_some() => return false,
            Ok(_) | Err(_) => {}
        }
        if seen == 8 {
            break;
        }
    }
    seen > 0
}

fn json_looks_like_log(head: &[u8]) -> bool {
    if head.len() < 64 * 1024 {
        match serde_json::from_slice::<Value>(head) {
            Ok(Value::Array(items)) => return items.first().is_some_and(log_line),
            Ok(Value::Object(o)) => {
                return match o.get("messages") {
                    Some(Value::Array(items)) => {
                        items.first().is_none_or(log_line) && !items.is_empty()
                            || o.contains_key("system")
                    }
                    _ => false,
                };
            }
            Ok(_) => return false,
            // A document that does not parse may still be a log with one bad element: its
            // opening says.
            Err(_) => {}
        }
    }
    // Too big to parse from the head, or damaged: sniff its opening.
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    (t.starts_with('[') || t.contains("\"messages\""))
        && t.contains("\"role\"")
        && !t.contains("\"parentUuid\"")
        && !t.contains("\"payload\"")
}

/// One message-log file.
pub struct MessageLogSource {
    path: PathBuf,
    /// JSONL (one message per line) rather than one JSON document.
    lines: bool,
}

impl MessageLogSource {
    /// Open `path` without sniffing (`lines`: JSONL rather than one JSON document).
    pub fn new(path: &Path, lines: bool) -> Self {
        Self {
            path: path.to_owned(),
            lines,
        }
    }

    fn id(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The file's items and its top-level object (for `model`), in stored order.
    fn items(&self) -> Result<(Vec<Item>, Option<Value>)> {
        if self.lines {
            let mut items = Vec::new();
            jsonl::for_each_line(&self.path, |l| {
                items.push(Item::from_line(
                    l.number,
                    l.value.map_err(|b| (b.error.to_string(), b.raw)),
                ));
                true
            })?;
            return Ok((items, None));
        }
        let text = std::fs::read_to_string(&self.path).map_err(|e| Error::io(&self.path, e))?;
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => build::document_items(&self.path, v),
            // One bad element is one error row: the others are read (`split`).
            Err(e) => match split::elements(&text) {
                Some(elements) => Ok((
                    elements
                        .into_iter()
                        .map(|(n, v)| {
                            let v = v.map_err(|(message, raw)| {
                                let at = Error::Line {
                                    path: self.path.clone(),
                                    line: n,
                                    message,
                                };
                                (at.to_string(), raw)
                            });
                            Item::from_line(n, v)
                        })
                        .collect(),
                    None,
                )),
                None => Err(Error::Line {
                    path: self.path.clone(),
                    line: e.line(),
                    message: format!("not valid JSON: {e}"),
                }),
            },
        }
    }

    /// The display name, the same when listed and when loaded: the first user text (60
    /// characters), else the id.
    fn name(&self, first_user: Option<String>) -> String {
        first_user
            .map(|t| t.trim().chars().take(60).collect::<String>())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| self.id())
    }

    fn build(&self) -> Result<(Session, build::Built)> {
        let (items, top) = self.items()?;
        let mut built = build::build(&self.path, &items);
        // A log keeps `usage` in the shape its provider returned.
        crate::sources::usage::fill(&mut built.messages, "usage", crate::sources::usage::any);
        let first_user = built
            .messages
            .iter()
            .find(|m| m.role == crate::model::Role::User && !m.has_tool_result())
            .map(|m| m.text());
        let meta = SessionMeta {
            id: self.id(),
            format: SourceFormat::MessageLog,
            path: self.path.to_string_lossy().into_owned(),
            name: self.name(first_user),
            working_dir: None,
            created: built.messages.iter().find_map(|m| m.created),
            updated: built
                .messages
                .iter()
                .rev()
                .find_map(|m| m.created)
                .or_else(|| mtime(&self.path)),
            model: top
                .as_ref()
                .and_then(|t| t.get("model"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            context_limit: None,
            usage: None,
            message_count: built.messages.len(),
            compaction_count: built.compactions.len(),
            parent_id: None,
        };
        let session = Session {
            meta,
            messages: crate::model::shared(built.messages.clone()),
            compactions: built.compactions.clone(),
        };
        Ok((session, built))
    }
}

fn mtime(p: &Path) -> Option<i64> {
    let t = std::fs::metadata(p).and_then(|m| m.modified()).ok()?;
    Some(chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis())
}

impl SessionSource for MessageLogSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::MessageLog
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        if !self.lines {
            // One JSON document: it must be parsed whole anyway.
            return Ok(vec![self.build()?.0.meta]);
        }
        // JSONL: count lines and parse only the first user message.
        let file = crate::sources::open_file(&self.path)?;
        let mut count = 0;
        let mut records = 0;
        let mut summaries = 0;
        let mut first_user: Option<String> = None;
        let mut r = BufReader::new(file);
        let mut l = Vec::new();
        loop {
            l.clear();
            if r.read_until(b'\n', &mut l)
                .map_err(|e| Error::io(&self.path, e))?
                == 0
            {
                break;
            }
            let t = l.trim_ascii();
            if t.is_empty() {
                continue;
            }
            // An unfinished last line is left out, as loading leaves it out.
            if l.last() != Some(&b'\n') && serde_json::from_slice::<Value>(t).is_err() {
                break;
            }
            let has = |n: &[u8]| t.windows(n.len()).any(|w| w == n);
            if t.starts_with(b"{\"compaction\"") {
                records += 1;
                continue;
            }
            count += 1;
            if has(b"\"summary\"") || has(b"<compacted-history>") {
                summaries += 1;
            }
            if first_user.is_none()
                && has(b"\"user\"")
                && let Ok(v) = serde_json::from_slice::<Value>(t)
                && v.get("role").and_then(Value::as_str) == Some("user")
            {
                first_user = Some(convert::flatten_text(
                    v.get("content").unwrap_or(&Value::Null),
                ));
            }
        }
        Ok(vec![SessionMeta {
            id: self.id(),
            format: SourceFormat::MessageLog,
            path: self.path.to_string_lossy().into_owned(),
            name: self.name(first_user),
            working_dir: None,
            created: None,
            updated: mtime(&self.path),
            model: None,
            context_limit: None,
            usage: None,
            message_count: count,
            compaction_count: records.max(summaries),
            parent_id: None,
        }])
    }

    fn load(&self, id: &str) -> Result<Session> {
        if id != self.id() {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(self.build()?.0)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let (items, _) = self.items()?;
        let (_, built) = self.build()?;
        if id != self.id() {
            return Ok(None);
        }
        let Some(Some(i)) = built.origin.get(index) else {
            return Ok(None);
        };
        match &items[*i] {
            item if self.lines => super::coworker::nth_line(&self.path, item.line()),
            item => Ok(item.value_text()),
        }
    }
}
