//! Crush reader: the per-project `.crush/crush.db` (SQLite, WAL) that Crush's registry
//! (`$XDG_DATA_HOME/crush/projects.json`, else `~/.local/share/crush/projects.json`) lists.
//! Crush migrates its database with a tool whose bookkeeping table is `goose_db_version`:
//! the goose reader never takes it (it needs goose's own tables), and this one checks Crush's.
//!
//! What the rows mean is `build`'s; the data folder's other files (logs, commands) are not
//! read: the folder is claimed whole.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;

/// The database's name in a project's data folder.
pub const DB_NAME: &str = "crush.db";

/// A project's data folder, or its database.
#[derive(Debug)]
pub struct CrushSource {
    path: PathBuf,
    db: PathBuf,
}

impl SessionSource for CrushSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::Crush
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        build::Db::open(&self.db)?.list(None)
    }

    fn load(&self, id: &str) -> Result<Session> {
        let db = build::Db::open(&self.db)?;
        let meta = db
            .list(Some(id))?
            .pop()
            .ok_or_else(|| Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            })?;
        db.session(meta)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let s = self.load(id)?;
        match s.messages.get(index).and_then(|m| m.id.clone()) {
            Some(message) => build::Db::open(&self.db)?.raw(&message),
            None => Ok(None),
        }
    }
}

fn boxed(path: &Path, db: &Path) -> Claim {
    Some(build::Db::open(db).map(|_| {
        Box::new(CrushSource {
            path: path.to_owned(),
            db: db.to_owned(),
        }) as Box<dyn SessionSource>
    }))
}

/// Claim a data folder holding `crush.db` (as a whole), a file so named (even broken, so the
/// error names it), or any SQLite file with Crush's tables.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir {
        let db = probe.path.join(DB_NAME);
        return db.is_file().then(|| boxed(probe.path, &db)).flatten();
    }
    if probe.file_name() == DB_NAME {
        return boxed(probe.path, probe.path);
    }
    if probe.is_sqlite() && build::Db::open(probe.path).is_ok() {
        return boxed(probe.path, probe.path);
    }
    None
}

/// The data folders Crush's registry lists (`projects[].data_dir`), whether or not they exist;
/// none when there is no registry.
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let data = env("XDG_DATA_HOME").or_else(|| env("HOME").map(|h| h.join(".local/share")));
    let Some(registry) = data.map(|d| d.join("crush").join("projects.json")) else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(registry) else {
        return Vec::new();
    };
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    v["projects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            p["data_dir"]
                .as_str()
                .map(PathBuf::from)
                .or_else(|| p["path"].as_str().map(|d| PathBuf::from(d).join(".crush")))
        })
        .collect()
}
