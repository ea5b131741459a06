//! goose reader: `sessions.db` (SQLite, every schema 0–16 and later) and legacy `<id>.jsonl`
//! sessions in the same folder, claimed as one source.
//!
//! What goose stores is described in goose-format.md. This module decides what is goose's
//! ([`claim`]), where goose keeps it ([`default_locations`]) and dispatches to the pieces:
//! `db` (read-only open, schema detection), `listing` and `rows` (SQLite queries), `legacy`
//! (jsonl files), `content` (items → parts, visibility), `kinds` (compaction rows → kinds and
//! records) and `delegation` (schema 17: delegated children, the ledger's compaction calls). Detecting compactions in other formats and
//! replaying them are left to `compaction` and `replay`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod content;
pub mod db;
pub mod delegation;
pub mod kinds;
pub mod legacy;
pub mod listing;
pub mod requests;
pub mod rows;

/// goose's database file name.
pub const DB_NAME: &str = "sessions.db";

/// How many `.jsonl` files of a folder without `sessions.db` are sniffed before deciding the
/// folder is not goose's (the files are still offered to the readers one by one).
const SNIFF_LIMIT: usize = 16;

/// A goose sessions folder, a `sessions.db` or one legacy `.jsonl` file.
#[derive(Debug)]
pub struct GooseSource {
    path: PathBuf,
    db: Option<db::GooseDb>,
    legacy: Vec<PathBuf>,
}

impl GooseSource {
    /// Open a `sessions.db` file (checked: read-only open and goose's tables).
    pub fn open_db(path: &Path) -> Result<Self> {
        Ok(Self {
            path: path.to_owned(),
            db: Some(db::GooseDb::open(path)?),
            legacy: Vec::new(),
        })
    }

    /// Open a sessions folder: its `sessions.db` when there is one, and its legacy files.
    pub fn open_folder(dir: &Path) -> Result<Self> {
        let db_path = dir.join(DB_NAME);
        let db = if db_path.is_file() {
            Some(db::GooseDb::open(&db_path)?)
        } else {
            None
        };
        Ok(Self {
            path: dir.to_owned(),
            db,
            legacy: legacy_files(dir, usize::MAX),
        })
    }

    /// Open one legacy `.jsonl` file.
    pub fn open_legacy(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            db: None,
            legacy: vec![path.to_owned()],
        }
    }

    fn legacy_file(&self, id: &str) -> Option<&PathBuf> {
        self.legacy.iter().find(|p| legacy::session_id(p) == id)
    }

    fn db_has(&self, id: &str) -> Result<bool> {
        let Some(d) = &self.db else {
            return Ok(false);
        };
        let (conn, schema) = d.connect()?;
        Ok(!listing::list(&conn, &schema, &d.path, Some(id))?.is_empty())
    }
}

/// The goose legacy files of a folder, sorted; sniffs at most `limit` `.jsonl` files.
fn legacy_files(dir: &Path, limit: usize) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut jsonl: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    jsonl.sort();
    jsonl
        .into_iter()
        .take(limit)
        .filter(|p| legacy::sniff(p))
        .collect()
}

impl SessionSource for GooseSource {
    fn format(&self) -> SourceFormat {
        if self.db.is_none() && self.legacy.len() == 1 && self.path.is_file() {
            SourceFormat::GooseLegacy
        } else {
            SourceFormat::Goose
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }

    /// DB sessions, then legacy files whose id the DB does not hold (goose imports legacy files
    /// into the DB under the same id and leaves the file; the DB copy is the live one).
    fn list(&self) -> Result<Vec<SessionMeta>> {
        let mut out = match &self.db {
            Some(d) => {
                let (conn, schema) = d.connect()?;
                listing::list(&conn, &schema, &d.path, None)?
            }
            None => Vec::new(),
        };
        let ids: HashSet<String> = out.iter().map(|m| m.id.clone()).collect();
        for f in &self.legacy {
            if !ids.contains(&legacy::session_id(f)) {
                out.push(legacy::list(f)?);
            }
        }
        Ok(out)
    }

    fn load(&self, id: &str) -> Result<Session> {
        if let Some(d) = &self.db {
            let (conn, schema) = d.connect()?;
            match rows::load(&conn, &schema, &d.path, id) {
                Err(Error::NoSuchSession { .. }) => {}
                other => return other,
            }
        }
        match self.legacy_file(id) {
            Some(f) => legacy::load(f),
            None => Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            }),
        }
    }

    /// A sessions folder is goose's for its `sessions.db` and legacy files only: everything
    /// else in it (another agent's transcript, a backup folder) is offered to the other
    /// readers, so one goose file never hides what lies beside it.
    fn declined(&self) -> Vec<PathBuf> {
        if !self.path.is_dir() {
            return Vec::new();
        }
        let Ok(rd) = std::fs::read_dir(&self.path) else {
            return Vec::new();
        };
        let mut left: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default();
                // The database and its journals are this source's.
                !name.starts_with(DB_NAME) && !self.legacy.contains(p)
            })
            .collect();
        left.sort();
        left
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        if self.db_has(id)? {
            let d = self.db.as_ref().expect("db_has is false without a db");
            let (conn, schema) = d.connect()?;
            return rows::raw(&conn, &schema, &d.path, id, index);
        }
        match self.legacy_file(id) {
            Some(f) => legacy::raw(f, index),
            None => Err(Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            }),
        }
    }
}

fn boxed(r: Result<GooseSource>) -> Claim {
    Some(r.map(|s| Box::new(s) as Box<dyn SessionSource>))
}

/// Claim a goose sessions folder (it holds `sessions.db` or goose legacy `.jsonl` files) as a
/// whole, a `sessions.db` (any SQLite file with goose's tables; a file *named* `sessions.db`
/// is claimed even when broken, so the error names it), or one goose legacy `.jsonl` file.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir {
        if probe.path.join(DB_NAME).is_file() || !legacy_files(probe.path, SNIFF_LIMIT).is_empty() {
            return boxed(GooseSource::open_folder(probe.path));
        }
        return None;
    }
    if probe.file_name() == DB_NAME {
        return boxed(GooseSource::open_db(probe.path));
    }
    if probe.is_sqlite() {
        // Another SQLite file: ours only when it has goose's tables.
        return match GooseSource::open_db(probe.path) {
            Ok(s) => boxed(Ok(s)),
            Err(_) => None,
        };
    }
    if probe.extension() == "jsonl" && legacy::sniff(probe.path) {
        return boxed(Ok(GooseSource::open_legacy(probe.path)));
    }
    None
}

/// Where goose keeps its sessions on this machine: `$GOOSE_PATH_ROOT/data/sessions` when that
/// variable is set, else `$XDG_DATA_HOME/goose/sessions`, else `~/.local/share/goose/sessions`
/// (goose uses the XDG layout on macOS too); on Windows `%APPDATA%\Block\goose\data\sessions`.
/// Folders are returned whether or not they exist.
pub fn default_locations() -> Vec<PathBuf> {
    let m = crate::env::machine();
    locations_from(|k| match k {
        "HOME" => m.home().map(Path::to_owned),
        _ => m.var_path(k),
    })
}

/// [`default_locations`] with the environment passed in (`HOME` included), for callers that
/// supply their own (discovery, tests).
pub(crate) fn locations_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    if let Some(root) = env("GOOSE_PATH_ROOT") {
        return vec![root.join("data").join("sessions")];
    }
    if cfg!(windows) {
        return env("APPDATA")
            .map(|a| vec![a.join("Block").join("goose").join("data").join("sessions")])
            .unwrap_or_default();
    }
    if let Some(xdg) = env("XDG_DATA_HOME") {
        return vec![xdg.join("goose").join("sessions")];
    }
    env("HOME")
        .map(|h| vec![h.join(".local/share/goose/sessions")])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<PathBuf> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| PathBuf::from(v))
        }
    }

    #[cfg(unix)]
    #[test]
    fn default_location_follows_goose_path_root_then_xdg_then_home() {
        let all = [
            ("GOOSE_PATH_ROOT", "/g"),
            ("XDG_DATA_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            locations_from(env(&all)),
            vec![PathBuf::from("/g/data/sessions")],
            "GOOSE_PATH_ROOT overrides everything"
        );
        assert_eq!(
            locations_from(env(&all[1..])),
            vec![PathBuf::from("/x/goose/sessions")],
            "XDG_DATA_HOME comes next"
        );
        assert_eq!(
            locations_from(env(&all[2..])),
            vec![PathBuf::from("/h/.local/share/goose/sessions")],
            "then the XDG default under HOME"
        );
        assert!(locations_from(env(&[])).is_empty(), "no HOME, no guess");
    }
}
