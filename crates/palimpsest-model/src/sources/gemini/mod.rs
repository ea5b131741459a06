//! Gemini CLI reader: the chat recordings under `~/.gemini/tmp/<project hash>/chats/`
//! (`session-<time>-<id8>.jsonl`, a sub-agent's under `chats/<parent session id>/<id>.jsonl`;
//! older builds wrote one whole `.json` record), as its `ChatRecordingService` writes them: a
//! metadata line, message records upserted by id, `$set` patches (`$set.messages` replacing the
//! history: a chat compression) and `$rewindTo`.
//!
//! What the records mean is `build`'s; claiming a file by its first line is here. The project's
//! other files (`logs.json`, checkpoints, tool outputs) are not sessions and are left alone.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
pub(in crate::sources) mod expand;

/// One recording file.
#[derive(Debug)]
pub struct GeminiSource {
    path: PathBuf,
}

impl SessionSource for GeminiSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::GeminiCli
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        Ok(vec![build::Recording::read(&self.path)?.meta()])
    }

    fn load(&self, id: &str) -> Result<Session> {
        let session = build::Recording::read(&self.path)?.session();
        if session.meta.id != id {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(session)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let s = self.load(id)?;
        let Some(record) = s.messages.get(index).and_then(|m| m.id.clone()) else {
            return Ok(None);
        };
        build::raw(&self.path, &record)
    }

    fn names_files_cheaply(&self) -> bool {
        true
    }

    fn session_files(&self) -> Result<Vec<super::SessionFile>> {
        // The metadata line names the session: a recording's head, not its whole replay.
        let id = match head_id(&self.path) {
            Some(id) => id,
            None => build::Recording::read(&self.path)?.meta().id,
        };
        Ok(vec![super::SessionFile {
            id,
            file: self.path.clone(),
            stamp: None,
        }])
    }
}

/// The `sessionId` of a `.jsonl` recording's metadata line, from its first lines (a legacy
/// `.json`, or a head without one, is replayed instead).
fn head_id(path: &Path) -> Option<String> {
    if path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    let f = super::open_file(path).ok()?;
    let mut head = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(f, 64 * 1024), &mut head).ok()?;
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    head.split(|&b| b == b'\n').take(8).find_map(|line| {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        v["projectHash"]
            .is_string()
            .then(|| v["sessionId"].as_str().map(str::to_owned))?
    })
}

/// True when `head` starts a Gemini recording: its metadata line, one of the first (a damaged
/// line before it does not hide the file), or for a legacy `.json` its first keys, names a
/// `sessionId` and a `projectHash`.
fn sniff(head: &[u8], ext: &str) -> bool {
    // A byte-order mark some editors write is not part of the JSON.
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    match ext {
        "jsonl" => head.split(|&b| b == b'\n').take(8).any(|line| {
            serde_json::from_slice::<serde_json::Value>(line)
                .is_ok_and(|v| v["sessionId"].is_string() && v["projectHash"].is_string())
        }),
        "json" => {
            let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
            text.trim_start().starts_with('{')
                && text.contains("\"sessionId\"")
                && text.contains("\"projectHash\"")
        }
        _ => false,
    }
}

/// Claim a Gemini recording (`.jsonl`, or a legacy `.json`).
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir || !sniff(probe.head, &probe.extension()) {
        return None;
    }
    Some(Ok(Box::new(GeminiSource {
        path: probe.path.to_owned(),
    })))
}

/// Where Gemini CLI keeps its projects' recordings: `~/.gemini/tmp`, whether or not it exists.
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    env("HOME")
        .map(|h| vec![h.join(".gemini").join("tmp")])
        .unwrap_or_default()
}
