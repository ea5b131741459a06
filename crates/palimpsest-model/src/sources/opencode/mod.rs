//! OpenCode reader (and Kilo Code's, which writes the same schema): `opencode.db` /
//! `kilo.db` in the harness's data folder (`$XDG_DATA_HOME/opencode`, else
//! `~/.local/share/opencode`; `kilo` for Kilo Code), SQLite opened read-only.
//!
//! What each table holds is docs/FORMATS.md's; `db` reads the rows, `build` makes them into
//! messages, `cuts` finds the compactions and what the model saw. The data folder's other files (logs, git
//! snapshots, the pre-SQLite `storage/` JSON tree) are not read: the folder is claimed as a
//! whole so none of them is offered to another reader.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
mod cuts;
pub mod db;

/// The database file names, OpenCode's then Kilo Code's.
pub const DB_NAMES: [&str; 2] = ["opencode.db", "kilo.db"];

/// A data folder holding an OpenCode database, or the database itself.
#[derive(Debug)]
pub struct OpenCodeSource {
    path: PathBuf,
    db: db::Db,
}

impl SessionSource for OpenCodeSource {
    fn format(&self) -> SourceFormat {
        self.db.format
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        self.db.list(None)
    }

    fn load(&self, id: &str) -> Result<Session> {
        let meta = self
            .db
            .list(Some(id))?
            .pop()
            .ok_or_else(|| Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            })?;
        Ok(build::session(&self.db.path, meta, self.db.rows(id)?))
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let session = self.load(id)?;
        match session.messages.get(index).and_then(|m| m.id.clone()) {
            Some(message) => self.db.raw(id, &message),
            None => Ok(None),
        }
    }
}

fn boxed(path: &Path, db: &Path) -> Claim {
    Some(db::Db::open(db).map(|db| {
        Box::new(OpenCodeSource {
            path: path.to_owned(),
            db,
        }) as Box<dyn SessionSource>
    }))
}

/// Claim a data folder holding `opencode.db` or `kilo.db` (as a whole), a file so named (even
/// broken, so the error names it), or any SQLite file with OpenCode's tables.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir {
        let db = DB_NAMES
            .iter()
            .map(|n| probe.path.join(n))
            .find(|p| p.is_file())?;
        return boxed(probe.path, &db);
    }
    if DB_NAMES.contains(&probe.file_name().as_str()) {
        return boxed(probe.path, probe.path);
    }
    if probe.is_sqlite() && db::Db::open(probe.path).is_ok() {
        return boxed(probe.path, probe.path);
    }
    None
}

/// Where OpenCode and Kilo Code keep their data on this machine: `$XDG_DATA_HOME/<name>`, else
/// `~/.local/share/<name>` (both harnesses use the XDG layout on every platform), whether or
/// not the folders exist.
pub(crate) fn locations_from(
    env: impl Fn(&str) -> Option<PathBuf>,
) -> Vec<(SourceFormat, PathBuf)> {
    let data = env("XDG_DATA_HOME").or_else(|| env("HOME").map(|h| h.join(".local/share")));
    let Some(data) = data else { return Vec::new() };
    vec![
        (SourceFormat::OpenCode, data.join("opencode")),
        (SourceFormat::Kilo, data.join("kilo")),
    ]
}
