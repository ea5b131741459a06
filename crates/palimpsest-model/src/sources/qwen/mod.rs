//! Qwen Code reader: the chat recordings under `~/.qwen/projects/<sanitized cwd>/chats/`
//! (`<session id>.jsonl`; `$QWEN_HOME` or `$QWEN_RUNTIME_DIR` move the folder), as its
//! `ChatRecordingService` writes them: one record per line, linked by `uuid`/`parentUuid`,
//! `type` `user`, `assistant`, `tool_result` or `system` (a `chat_compression`, a `rewind`, the
//! harness's state), each message a Gemini API `Content`.
//!
//! Claiming a file by its first records is here; the branch and the fragments are
//! `records`'s, a record's content read into parts `content`'s, the messages and cuts `build`'s. A sub-agent's side chain, written into the
//! same file, is read as a child session `<session id>:<agent id>`. Claude Code's transcripts share the linking
//! keys but never a `Content` (`message.parts`) or a `systemPayload`: that tells them apart.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

mod build;
mod content;
mod records;

/// One recording file.
#[derive(Debug)]
pub struct QwenSource {
    path: PathBuf,
}

impl QwenSource {
    /// The recording, and the id of each session it holds: its own, then each sub-agent's.
    fn read(&self) -> Result<(records::Recording, Vec<Option<String>>)> {
        let rec = records::Recording::read(&self.path)?;
        let mut who: Vec<Option<String>> = vec![None];
        who.extend(rec.agents().into_iter().map(Some));
        Ok((rec, who))
    }

    /// The session `id` of this file: its messages and cuts, and its listing entry.
    fn one(&self, id: &str) -> Result<(records::Recording, build::Built, SessionMeta)> {
        let (mut rec, who) = self.read()?;
        for agent in who {
            let built = build::build(&mut rec, agent.as_deref());
            let meta = build::meta(&rec, &self.path, &built, agent.as_deref());
            if meta.id == id {
                return Ok((rec, built, meta));
            }
        }
        Err(Error::NoSuchSession {
            path: self.path.clone(),
            id: id.to_owned(),
        })
    }
}

impl SessionSource for QwenSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::QwenCode
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        let (mut rec, who) = self.read()?;
        Ok(who
            .iter()
            .map(|a| {
                let built = build::build(&mut rec, a.as_deref());
                build::meta(&rec, &self.path, &built, a.as_deref())
            })
            .collect())
    }

    fn load_top(&self) -> Option<Result<Session>> {
        Some(records::Recording::read(&self.path).map(|mut rec| {
            let built = build::build(&mut rec, None);
            Session {
                meta: build::meta(&rec, &self.path, &built, None),
                messages: crate::model::shared(built.messages),
                compactions: built.compactions,
            }
        }))
    }

    fn load(&self, id: &str) -> Result<Session> {
        let (_, built, meta) = self.one(id)?;
        Ok(Session {
            meta,
            messages: crate::model::shared(built.messages),
            compactions: built.compactions,
        })
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let (rec, built, _) = self.one(id)?;
        let record = built
            .messages
            .get(index)
            .and_then(|m| m.detail("record"))
            .and_then(|v| v.as_u64());
        Ok(record.and_then(|k| rec.raw(&self.path, k as usize)))
    }
}

/// True when one of the first lines of `head` is a Qwen Code record: linked by `uuid` and
/// `sessionId`, and carrying a `Content` (`message.parts`), a `systemPayload` or a
/// `tool_result` type (a damaged or marked first line does not hide the file).
fn sniff(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    head.split(|&b| b == b'\n').take(8).any(|line| {
        serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| {
            v["uuid"].is_string()
                && v["sessionId"].is_string()
                && (v["message"]["parts"].is_array()
                    || v["systemPayload"].is_object()
                    || v["type"] == "tool_result")
        })
    })
}

/// Claim a Qwen Code recording.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir || probe.extension() != "jsonl" || !sniff(probe.head) {
        return None;
    }
    Some(Ok(Box::new(QwenSource {
        path: probe.path.to_owned(),
    })))
}

/// Where Qwen Code keeps its projects' recordings: `$QWEN_RUNTIME_DIR/projects`, else
/// `$QWEN_HOME/projects`, else `~/.qwen/projects`, whether or not it exists.
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    env("QWEN_RUNTIME_DIR")
        .or_else(|| env("QWEN_HOME"))
        .or_else(|| env("HOME").map(|h| h.join(".qwen")))
        .map(|q| vec![q.join("projects")])
        .unwrap_or_default()
}
