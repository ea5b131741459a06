//! Aider reader: a repository's `.aider.chat.history.md` (or a log named with
//! `--chat-history-file` that opens with Aider's session header), each `# aider chat started
//! at …` a session (and each `/clear` in it the start of another, `<id>#clear<n>`), and the
//! `.aider.llm.history` beside it when Aider was asked to write one:
//! the requests it sent, from which the model's view and the summaries are read.
//!
//! Aider keeps both files in the repository it works on, not under the home, so they are found
//! where a repository (or a folder of them) is opened. Cutting the log is `history`'s, reading
//! the requests `llm`'s, the messages and cuts `build`'s.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Item, RecordedRequest, Session, SessionMeta, SourceFormat};

pub mod build;
pub mod history;
pub mod llm;

/// Aider's chat log's default name.
pub const CHAT_LOG: &str = ".aider.chat.history.md";
/// Aider's request log's default name (`--llm-history-file`).
pub const LLM_LOG: &str = ".aider.llm.history";

/// One chat log.
#[derive(Debug)]
pub struct AiderSource {
    path: PathBuf,
}

/// A log read: its sessions, their ids and the requests of each.
struct Read {
    sessions: Vec<history::ChatSession>,
    ids: Vec<String>,
    requests: Vec<Vec<llm::Request>>,
    /// The model each part starts with: named in an earlier part of its session.
    models: Vec<Option<String>>,
}

impl AiderSource {
    fn read(&self) -> Result<Read> {
        self.read_with(&self.path.with_file_name(LLM_LOG))
    }

    /// Read the chat log with the request log `llm` (which need not exist).
    fn read_with(&self, llm: &Path) -> Result<Read> {
        let text = std::fs::read(&self.path).map_err(|e| Error::io(&self.path, e))?;
        let headed = history::parse(&String::from_utf8_lossy(&text));
        // The request log is optional: a missing or unreadable one leaves the chat log's view.
        let all = std::fs::read(llm)
            .map(|t| llm::parse(&String::from_utf8_lossy(&t)))
            .unwrap_or_default();
        let starts: Vec<String> = headed.iter().map(|s| s.started.replace(' ', "T")).collect();
        let mut out = Read {
            sessions: Vec::new(),
            ids: Vec::new(),
            requests: Vec::new(),
            models: Vec::new(),
        };
        let mut bases: Vec<String> = Vec::new();
        for (k, s) in headed.into_iter().enumerate() {
            let base = if s.started.is_empty() {
                "before-first-session".to_owned()
            } else {
                starts[k].clone()
            };
            // Two sessions started in the same second are told apart by their order.
            let n = bases.iter().filter(|b| **b == base).count();
            bases.push(base.clone());
            let base = if n == 0 {
                base
            } else {
                format!("{base}#{}", n + 1)
            };
            // The requests sent between this header and the next.
            let requests: Vec<llm::Request> = all
                .iter()
                .filter(|r| {
                    r.time.as_str() >= starts[k].as_str()
                        && starts
                            .get(k + 1)
                            .is_none_or(|next| r.time.as_str() < next.as_str())
                })
                .cloned()
                .collect();
            let mut model = None;
            for (p, part) in history::split_at_clears(s).into_iter().enumerate() {
                out.models.push(model.clone());
                model = build::last_model(&part).or(model);
                out.ids.push(if p == 0 {
                    base.clone()
                } else {
                    format!("{base}#clear{p}")
                });
                out.sessions.push(part);
                // Each part finds its own requests among them, by their replies.
                out.requests.push(requests.clone());
            }
        }
        Ok(out)
    }
}

impl Read {
    fn session(&self, path: &Path, k: usize) -> Session {
        let built = build::build(&self.sessions[k], &self.requests[k], self.models[k].clone());
        let first_part = !self.ids[k].contains("#clear");
        let meta = build::meta(
            path,
            &self.sessions[k],
            self.ids[k].clone(),
            &built,
            first_part,
        );
        Session {
            meta,
            messages: crate::model::shared(built.messages),
            compactions: built.compactions,
        }
    }
}

impl SessionSource for AiderSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::Aider
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        let r = self.read()?;
        Ok((0..r.sessions.len())
            .map(|k| r.session(&self.path, k).meta)
            .collect())
    }

    fn load(&self, id: &str) -> Result<Session> {
        let r = self.read()?;
        match r.ids.iter().position(|i| i == id) {
            Some(k) => Ok(r.session(&self.path, k)),
            None => Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            }),
        }
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let s = self.load(id)?;
        let Some(line) = s
            .messages
            .get(index)
            .and_then(|m| m.detail("line"))
            .and_then(|v| v.as_u64())
        else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(&self.path).map_err(|e| Error::io(&self.path, e))?;
        // The block's lines as written, up to the next blank line.
        let lines: Vec<&str> = text
            .lines()
            .skip(line as usize - 1)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        Ok(Some(lines.join("\n")))
    }
}

/// The requests the request log `llm` holds for session `id` of the chat log `chat_log`
/// (those sent in its span of time), each as what the model received, message by message:
/// the ground truth the session's model view is compared with (`context --recorded`).
pub fn recorded(chat_log: &Path, llm: &Path, id: &str) -> Result<Vec<RecordedRequest>> {
    let source = AiderSource {
        path: chat_log.to_owned(),
    };
    let r = source.read_with(llm)?;
    let Some(k) = r.ids.iter().position(|i| i == id) else {
        return Err(Error::NoSuchSession {
            path: chat_log.to_owned(),
            id: id.to_owned(),
        });
    };
    Ok(r.requests[k]
        .iter()
        .map(|q| RecordedRequest {
            file: format!("{}:{}", llm.display(), q.line),
            slot: None,
            model: None,
            messages: q.messages.len(),
            items: q
                .messages
                .iter()
                .filter(|m| !m.text.is_empty())
                .map(|m| Item::text(&m.role, &m.text))
                .collect(),
            error: None,
            usage: None,
        })
        .collect())
}

/// True when `head` is an Aider chat log: its first non-blank line is a session header.
fn sniff(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with(history::HEADER))
}

/// Claim an Aider chat log.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir || !(probe.file_name() == CHAT_LOG || probe.extension() == "md") {
        return None;
    }
    if !sniff(probe.head) {
        return None;
    }
    Some(Ok(Box::new(AiderSource {
        path: probe.path.to_owned(),
    })))
}
