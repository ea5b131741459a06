//! Cline reader (and the archives of Roo Code and its forks, which keep the same files): one
//! task folder, `tasks/<id>/`, under the editor's global storage
//! (`~/.config/Code/User/globalStorage/saoudrizwan.claude-dev`, Roo Code's
//! `rooveterinaryinc.roo-cline`) or the Cline CLI's `~/.cline/data`: what the model was sent
//! (`api_conversation_history.json`), what the panel showed (`ui_messages.json`, with each
//! request's usage and truncation range) and `task_metadata.json`.
//!
//! The task folder is claimed whole, so its JSON files are never offered to the message-log
//! reader. What the files mean is `build`'s; what a listing reads of the history `marks`'s.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
mod marks;
mod xml;

/// What the model was sent.
pub const HISTORY: &str = "api_conversation_history.json";

/// One task folder.
#[derive(Debug)]
pub struct ClineSource {
    path: PathBuf,
}

impl SessionSource for ClineSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::Cline
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        Ok(vec![build::Task::listing(&self.path)?.meta()])
    }

    fn load(&self, id: &str) -> Result<Session> {
        let task = build::Task::read(&self.path)?;
        if task.id() != id {
            return Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            });
        }
        Ok(task.session())
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let task = build::Task::read(&self.path)?;
        if task.id() != id {
            return Ok(None);
        }
        Ok(task.raw(index))
    }
}

/// Claim a task folder (it holds `api_conversation_history.json`).
pub fn claim(probe: &Probe) -> Claim {
    if !probe.is_dir || !probe.path.join(HISTORY).is_file() {
        return None;
    }
    Some(Ok(Box::new(ClineSource {
        path: probe.path.to_owned(),
    })))
}

/// Where Cline and Roo Code keep their tasks: VS Code's global storage for each extension and
/// the Cline CLI's data folder, whether or not they exist.
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let Some(home) = env("HOME") else {
        return Vec::new();
    };
    let storage = env("XDG_CONFIG_HOME")
        .unwrap_or_else(|| home.join(".config"))
        .join("Code/User/globalStorage");
    vec![
        storage.join("saoudrizwan.claude-dev/tasks"),
        storage.join("rooveterinaryinc.roo-cline/tasks"),
        home.join(".cline/data/tasks"),
    ]
}
