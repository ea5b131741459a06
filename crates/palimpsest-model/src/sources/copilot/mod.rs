//! GitHub Copilot CLI reader: `session-state/<id>/events.jsonl` under `$COPILOT_HOME` (else
//! `~/.copilot`), one event per line in the Copilot SDK's envelope `{type, data, id,
//! timestamp, parentId}`; a sub-agent's events carry its `agentId` and are read as a child
//! session of the one that ran it.
//!
//! The schema is not documented for files, so everything is read tolerantly: an event type
//! nobody knows is an invisible row, a line that does not parse a row naming file and line.
//! Reading the file and listing is `events`'; what the events mean is `build`'s. The older
//! builds' `history-session-state/<id>.json` files are `legacy`'s.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
pub mod events;
pub mod legacy;

/// The events file of a session folder.
pub const EVENTS: &str = "events.jsonl";

/// Separates a sub-agent's id from its session's in the child session's id.
pub const CHILD_SEP: &str = ":";

/// One session folder's events file.
#[derive(Debug)]
pub struct CopilotSource {
    path: PathBuf,
    file: PathBuf,
}

impl CopilotSource {
    fn read(&self) -> Result<events::Events> {
        events::Events::read(&self.file)
    }
}

impl SessionSource for CopilotSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::CopilotCli
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        let events = self.read()?;
        let mut out = vec![events.meta(None)];
        out.extend(events.agents().iter().map(|a| events.meta(Some(a))));
        Ok(out)
    }

    fn load_top(&self) -> Option<Result<Session>> {
        Some(self.read().map(|events| events.session(None)))
    }

    fn load(&self, id: &str) -> Result<Session> {
        let events = self.read()?;
        let agent = id.split_once(CHILD_SEP).map(|(_, a)| a.to_owned());
        let session = events.session(agent.as_deref());
        if session.meta.id != id {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(session)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let session = self.load(id)?;
        let line = session
            .messages
            .get(index)
            .and_then(|m| m.detail("line"))
            .and_then(|v| v.as_u64());
        Ok(line.and_then(|n| self.read().ok()?.raw_line(n as usize)))
    }
}

/// True when one of the first lines of `head` is a Copilot session event: an object with a
/// dotted `type`, a `data` object, an `id` and a `timestamp` (a damaged line before it does not
/// hide the file).
fn sniff(head: &[u8]) -> bool {
    head.split(|&b| b == b'\n').take(8).any(|line| {
        serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| {
            v["type"].as_str().is_some_and(|t| t.contains('.'))
                && v["data"].is_object()
                && v["id"].is_string()
                && v["timestamp"].is_string()
        })
    })
}

/// Claim a session folder holding a Copilot `events.jsonl` (as a whole: its workspace file and
/// checkpoints are the harness's), or such a file.
pub fn claim(probe: &Probe) -> Claim {
    let (path, file) = if probe.is_dir {
        let file = probe.path.join(EVENTS);
        // Through `open_file`: a FIFO named like the log must not block the walk.
        let head = super::open_file(&file).ok().and_then(|f| {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::Read::take(f, 64 * 1024), &mut buf).ok()?;
            Some(buf)
        })?;
        if !sniff(&head) {
            return None;
        }
        (probe.path.to_owned(), file)
    } else if probe.file_name() == EVENTS && sniff(probe.head) {
        (probe.path.to_owned(), probe.path.to_owned())
    } else {
        return legacy::claim(probe);
    };
    Some(Ok(Box::new(CopilotSource { path, file })))
}

/// Where Copilot CLI keeps its sessions: `$COPILOT_HOME/session-state` (and the older builds'
/// `history-session-state`), else the same under `~/.copilot`, whether or not they exist.
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    env("COPILOT_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".copilot")))
        .map(|c| vec![c.join("session-state"), c.join(legacy::FOLDER)])
        .unwrap_or_default()
}
