//! OpenCode reader (and Kilo Code's, which writes the same schema): `opencode.db` /
//! `kilo.db` in the harness's data folder (`$XDG_DATA_HOME/opencode`, else
//! `~/.local/share/opencode`; `kilo` for Kilo Code), SQLite opened read-only.
//!
//! Builds before the database kept the same records as JSON files under `storage/` in the same
//! folder (`tree`); a folder holding both is read from its database (OpenCode moved the files'
//! sessions into it).
//!
//! What each table holds is docs/FORMATS.md's; `db` and `tree` read the rows, `build` makes
//! them into messages, `cuts` finds the compactions and what the model saw. The data folder's
//! other files (logs, git snapshots) are not read: the folder is claimed as a whole so none of
//! them is offered to another reader.

use std::path::{Path, PathBuf};

use super::{Claim, Probe, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod build;
mod cuts;
pub mod db;
pub mod tree;

/// The database file names, OpenCode's then Kilo Code's.
pub const DB_NAMES: [&str; 2] = ["opencode.db", "kilo.db"];

/// Where the sessions are kept: the database, or the JSON files of builds before it.
#[derive(Debug)]
enum Store {
    Db(db::Db),
    Tree(tree::Tree),
}

/// A data folder holding an OpenCode database (or its older `storage/` tree), the database
/// itself, or the `storage` folder.
#[derive(Debug)]
pub struct OpenCodeSource {
    path: PathBuf,
    store: Store,
}

impl OpenCodeSource {
    fn rows(&self, id: &str) -> Result<Vec<db::Row>> {
        match &self.store {
            Store::Db(db) => db.rows(id),
            Store::Tree(t) => t.rows(id),
        }
    }
}

impl SessionSource for OpenCodeSource {
    fn format(&self) -> SourceFormat {
        match &self.store {
            Store::Db(db) => db.format,
            Store::Tree(t) => t.format,
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        match &self.store {
            Store::Db(db) => db.list(None),
            Store::Tree(t) => t.list(),
        }
    }

    fn load(&self, id: &str) -> Result<Session> {
        let (file, meta) = match &self.store {
            Store::Db(db) => (&db.path, db.list(Some(id))?.pop()),
            Store::Tree(t) => (&t.root, t.entry(id)),
        };
        let meta = meta.ok_or_else(|| Error::NoSuchSession {
            path: self.path.clone(),
            id: id.to_owned(),
        })?;
        Ok(build::session(file, meta, self.rows(id)?))
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let session = self.load(id)?;
        match session.messages.get(index).and_then(|m| m.id.clone()) {
            Some(message) => Ok(db::raw(self.rows(id)?, &message)),
            None => Ok(None),
        }
    }

    fn declined(&self) -> Vec<PathBuf> {
        match &self.store {
            Store::Db(_) => Vec::new(),
            Store::Tree(t) => t.unreadable(),
        }
    }
}

fn boxed(path: &Path, db: &Path) -> Claim {
    Some(db::Db::open(db).map(|db| {
        Box::new(OpenCodeSource {
            path: path.to_owned(),
            store: Store::Db(db),
        }) as Box<dyn SessionSource>
    }))
}

fn boxed_tree(path: &Path, tree: tree::Tree) -> Claim {
    Some(Ok(Box::new(OpenCodeSource {
        path: path.to_owned(),
        store: Store::Tree(tree),
    })))
}

/// Claim a data folder holding `opencode.db` or `kilo.db` (as a whole), else one holding the
/// older `storage/` tree, a `storage` folder itself, a database file so named (even broken, so
/// the error names it), or any SQLite file with OpenCode's tables.
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir {
        let db = DB_NAMES
            .iter()
            .map(|n| probe.path.join(n))
            .find(|p| p.is_file());
        if let Some(db) = db {
            return boxed(probe.path, &db);
        }
        if let Some(t) = tree::Tree::at(&probe.path.join("storage")) {
            return boxed_tree(probe.path, t);
        }
        if probe.file_name() == "storage" {
            return tree::Tree::at(probe.path).and_then(|t| boxed_tree(probe.path, t));
        }
        return None;
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
