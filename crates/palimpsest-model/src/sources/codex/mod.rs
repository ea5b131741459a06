//! Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl`.
//!
//! One file is one session; its id comes from `session_meta.payload.id`, not the file name
//! (whose timestamp is local time). Listing reads the first lines and a byte scan of the rest
//! (`response_item` and `compacted` lines are counted from line sketches, never parsed); the
//! tail gives the last timestamp and the last `token_count`. Message building is in `build`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::{Claim, Probe, SessionSource, jsonl, scan};
use crate::error::{Error, Result};
use crate::model::{RecordedUsage, Session, SessionMeta, SourceFormat};

pub mod build;
pub mod items;
pub mod resume;

/// True when the first bytes of a file look like a Codex rollout.
pub fn looks_like(head: &[u8]) -> bool {
    let first = head.split(|&b| b == b'\n').next().unwrap_or(head);
    scan::find(first, b"\"type\":\"session_meta\"").is_some()
        && scan::find(first, b"\"payload\":").is_some()
}

/// Claims `rollout-*.jsonl` files and any JSONL file that opens with a `session_meta` line.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir || probe.extension() != "jsonl" {
        return None;
    }
    let named = probe.file_name().starts_with("rollout-");
    if !(looks_like(probe.head) || named && scan::find(probe.head, b"\"payload\":").is_some()) {
        return None;
    }
    Some(Ok(Box::new(CodexSource {
        path: probe.path.to_owned(),
        lines: Mutex::new(None),
    })))
}

/// A loaded rollout with the line of each message.
#[derive(Debug)]
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// Lines per kind (`response_item:<type>`, `event_msg:<type>`, `turn_context`...).
    pub counts: std::collections::BTreeMap<String, usize>,
    /// For each message, its 1-based line (replacement items share their `compacted` line).
    pub lines: Vec<usize>,
}

/// One rollout file.
pub struct CodexSource {
    path: PathBuf,
    lines: Mutex<Option<Vec<usize>>>,
}

/// What the head of a rollout says.
#[derive(Debug, Default)]
struct Head {
    id: Option<String>,
    cwd: Option<String>,
    created: Option<i64>,
    model: Option<String>,
    prompt: Option<String>,
}

fn head(path: &Path) -> Result<Head> {
    // The `session_meta` line first, whole, however long its instructions make it.
    let bytes = scan::read_head_line(path, 256 * 1024)?;
    let mut h = Head::default();
    for v in scan::json_lines(&bytes) {
        let p = v.get("payload").unwrap_or(&v);
        let str_at = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
        match v.get("type").and_then(Value::as_str) {
            Some("session_meta") if h.id.is_none() => {
                h.id = str_at(p, "id");
                h.cwd = str_at(p, "cwd");
                h.created = str_at(p, "timestamp")
                    .or_else(|| str_at(&v, "timestamp"))
                    .as_deref()
                    .and_then(scan::millis);
            }
            Some("turn_context") if h.model.is_none() => h.model = str_at(p, "model"),
            Some("event_msg")
                if h.prompt.is_none()
                    && p.get("type").and_then(Value::as_str) == Some("user_message") =>
            {
                h.prompt = str_at(p, "message").map(|m| title(&m));
            }
            _ => {}
        }
        // Each field is the first line's that gives it: later lines cannot change them.
        if h.id.is_some() && h.model.is_some() && h.prompt.is_some() {
            break;
        }
    }
    Ok(h)
}

/// How much of a rollout [`session_id`] reads first: its `session_meta` line carries the
/// harness's instructions, often some kilobytes.
const ID_BYTES: usize = 64 * 1024;

/// The id [`head`] would give, from the whole lines of the rollout's first [`ID_BYTES`]; when
/// none of them gives it, the head is read, so the answer is always the head's.
fn session_id(path: &Path) -> Result<Option<String>> {
    scan::first_lines_or(
        path,
        ID_BYTES,
        |whole| {
            scan::json_lines(whole).find_map(|v| {
                if v.get("type").and_then(Value::as_str) != Some("session_meta") {
                    return None;
                }
                v.get("payload")
                    .unwrap_or(&v)
                    .get("id")?
                    .as_str()
                    .map(str::to_owned)
            })
        },
        || Ok(head(path)?.id),
    )
}

/// A session's title from its first user message: the prose, flattened to one line of at most
/// 80 characters. Harnesses wrap the request in Markdown (`## User Input`, a ```` ```text ````
/// fence): heading and fence lines are not what the user asked.
fn title(message: &str) -> String {
    let prose: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("```"))
        .collect();
    let text = if prose.is_empty() {
        message.to_owned()
    } else {
        prose.join(" ")
    };
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.chars().take(80).collect()
}

fn tail_usage(path: &Path) -> Result<(Option<RecordedUsage>, Option<u64>)> {
    let tail = scan::read_tail(path, 256 * 1024)?;
    for v in scan::json_lines(&tail).rev() {
        let p = v.get("payload");
        if p.and_then(|p| p.get("type")).and_then(Value::as_str) == Some("token_count")
            && p.and_then(|p| p.get("info")).is_some_and(|i| !i.is_null())
        {
            let mut b = build::Builder::default();
            b.push(jsonl::Line {
                number: 0,
                offset: 0,
                value: Ok(v.clone()),
            });
            return Ok((b.usage, b.context_window));
        }
    }
    Ok((None, None))
}

impl CodexSource {
    fn id(&self) -> Result<String> {
        Ok(session_id(&self.path)?.unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }))
    }

    /// Load the rollout with its line counts and line map.
    pub fn load_full(&self) -> Result<Loaded> {
        let loaded = load_file(&self.path, &self.id()?)?;
        *self.lines.lock().unwrap_or_else(|e| e.into_inner()) = Some(loaded.lines.clone());
        Ok(loaded)
    }
}

impl SessionSource for CodexSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::Codex
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        let h = head(&self.path)?;
        let mut messages = 0;
        let mut compactions = 0;
        let mut last_ts = None;
        let mut thread_name: Option<String> = None;
        scan::for_each_sketch(&self.path, |s| {
            if s.len == 0 || !s.complete {
                return;
            }
            // A name the user gave the thread: short lines, read whole from the sketch.
            if scan::find(s.head, b"\"thread_name_updated\"").is_some()
                && s.tail.is_empty()
                && let Some(n) = serde_json::from_slice::<Value>(s.head)
                    .ok()
                    .as_ref()
                    .and_then(thread_name_of)
            {
                thread_name = Some(n);
            }
            // The envelope opens every line: `{"timestamp":…,"type":…,"payload":`.
            if let Some(ts) = scan::first_string_field(s.head, "timestamp") {
                last_ts = Some(ts);
            }
            if scan::find(s.head, b"\"type\":\"response_item\"").is_some() {
                messages += 1;
            } else if scan::find(s.head, b"\"type\":\"compacted\"").is_some() {
                compactions += 1;
            }
        })?;
        let (usage, window) = tail_usage(&self.path)?;
        let id = self.id()?;
        Ok(vec![SessionMeta {
            name: thread_name
                .or_else(|| h.prompt.clone())
                .unwrap_or_else(|| id.clone()),
            id,
            format: SourceFormat::Codex,
            path: self.path.display().to_string(),
            working_dir: h.cwd,
            created: h.created,
            updated: last_ts.as_deref().and_then(scan::millis),
            model: h.model,
            context_limit: window,
            usage,
            message_count: messages,
            compaction_count: compactions,
            parent_id: None,
        }])
    }

    fn names_files_cheaply(&self) -> bool {
        true
    }

    fn session_files(&self) -> Result<Vec<super::SessionFile>> {
        // The head names the session; listing would scan the whole rollout.
        Ok(vec![super::SessionFile {
            id: self.id()?,
            file: self.path.clone(),
            stamp: None,
        }])
    }

    fn load(&self, id: &str) -> Result<Session> {
        let own = self.id()?;
        if id != own {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(self.load_full()?.session)
    }

    fn open_resumable(&self, id: &str) -> Option<Result<super::Resumable>> {
        // Offsets in a compressed file count unpacked bytes: resuming would unpack it all.
        if super::compressed::is_zst(&self.path) {
            return None;
        }
        Some(match self.id() {
            Ok(own) if own == id => resume::Resumable::open(&self.path, id)
                .map(|r| super::Resumable::Codex(Box::new(r))),
            Ok(_) => Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            }),
            Err(e) => Err(e),
        })
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let cached = self
            .lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(|l| l.get(index).copied());
        let line = match cached {
            Some(l) => Some(l),
            None => {
                self.load(id)?;
                self.lines
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .and_then(|l| l.get(index).copied())
            }
        };
        match line {
            Some(l) => Ok(Some(scan::read_lines(&self.path, &[l])?)),
            None => Ok(None),
        }
    }
}

/// The name a `thread_name_updated` event gives the thread (the last one wins).
pub fn thread_name_of(line: &Value) -> Option<String> {
    let p = line.get("payload")?;
    (p.get("type")?.as_str()? == "thread_name_updated")
        .then(|| {
            p.get("thread_name")?
                .as_str()
                .map(str::trim)
                .map(str::to_owned)
        })
        .flatten()
        .filter(|n| !n.is_empty())
}

/// Read one rollout into a session.
pub fn load_file(path: &Path, id: &str) -> Result<Loaded> {
    let mut b = build::Builder::default();
    b.path = path.to_owned();
    jsonl::for_each_line(path, |line| {
        b.push(line);
        true
    })?;
    let messages = std::mem::take(&mut b.messages);
    let session = finish(&b, messages, path, id);
    Ok(Loaded {
        session,
        counts: b.counts,
        lines: b.lines,
    })
}

/// The session `b` read, of `id` in `path`, from its messages as read (`messages`: `b`'s
/// own, or a copy a reader that goes on keeps them beside): billing and usage put on them.
pub fn finish(
    b: &build::Builder,
    mut messages: Vec<crate::model::Message>,
    path: &Path,
    id: &str,
) -> Session {
    b.finish_billing(&mut messages);
    // What each answer was billed (`last_token_usage`), and the counts billed with no answer of
    // their own that `finish_billing` put on the latest.
    super::usage::fill(&mut messages, "last_token_usage", super::usage::codex);
    for m in &mut messages {
        if let Some(serde_json::Value::Array(more)) = m.detail("more_token_usage") {
            let more: Vec<_> = more.iter().filter_map(super::usage::codex).collect();
            m.usage.extend(more);
        }
    }
    let meta = SessionMeta {
        id: id.to_owned(),
        format: SourceFormat::Codex,
        path: path.display().to_string(),
        name: b
            .thread_name
            .clone()
            .or_else(|| {
                messages
                    .iter()
                    .find(|m| {
                        m.role == crate::model::Role::User
                            && m.user_visible
                            && m.kind == crate::model::MessageKind::Ordinary
                    })
                    .map(|m| title(&m.text()))
                    .filter(|t| !t.is_empty())
            })
            .unwrap_or_else(|| id.to_owned()),
        working_dir: b.cwd.clone(),
        created: b
            .session_meta
            .as_ref()
            .and_then(|m| m.get("timestamp"))
            .and_then(Value::as_str)
            .and_then(scan::millis)
            .or_else(|| messages.iter().find_map(|m| m.created)),
        updated: messages.iter().rev().find_map(|m| m.created),
        model: b.model.clone(),
        context_limit: b.context_window,
        usage: b.usage.clone(),
        message_count: messages.len(),
        compaction_count: b.compactions.len(),
        parent_id: None,
    };
    Session {
        meta,
        messages: crate::model::shared(messages),
        compactions: b.compactions.clone(),
    }
}
