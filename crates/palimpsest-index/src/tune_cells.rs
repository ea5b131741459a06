//! `tune` results kept in the index (`replay::tune`): one row per transcript file, session and
//! setting (the replay options the setting makes, as JSON), under the file's fingerprint and
//! the tune version, plus one row per session for what the fleet view lists of it. A row is
//! read only while its file is byte for byte as it was (the same fingerprint): a second `tune`
//! of an unchanged fleet replays nothing, and a fleet that grew by one session replays that
//! one. A changed file's rows are replaced on its next tune, a vanished file's go with its
//! sessions. As with the digests, only files that are one session each are kept: a database's
//! fingerprint misses writes still in its WAL.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::params;

use super::fingerprint::{self, Fingerprint};
use super::{Index, canonical};
use crate::error::Result;
use crate::replay::tune::VERSION;

/// The table (created with the index's schema).
pub(super) const SCHEMA: &str = "
CREATE TABLE tune_cells(
    file TEXT NOT NULL,
    session_id TEXT NOT NULL,
    setting TEXT NOT NULL,
    stamp TEXT NOT NULL,
    cell TEXT NOT NULL,
    PRIMARY KEY(file, session_id, setting)
) WITHOUT ROWID;
";

/// The key `file`'s tune rows are kept under now: its fingerprint and the tune version; `None`
/// for what keeps none (a database, a folder, a file that cannot be read).
pub fn stamp_of(file: &Path) -> Option<String> {
    if !file.is_file() || fingerprint::is_sqlite(file) {
        return None;
    }
    let print = Fingerprint::of(file).ok()?;
    Some(format!("t{VERSION}|{}", print.stamp()))
}

impl Index {
    /// Every row kept of `file`'s session `id` under `stamp`: setting key → the stored JSON.
    pub fn tune_cells(
        &self,
        file: &Path,
        id: &str,
        stamp: &str,
    ) -> Result<HashMap<String, String>> {
        let file = canonical(file).display().to_string();
        self.conn
            .prepare_cached(
                "SELECT setting, cell FROM tune_cells
                 WHERE file = ?1 AND session_id = ?2 AND stamp = ?3",
            )
            .and_then(|mut q| {
                q.query_map(params![file, id, stamp], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(|e| self.sql(e))
    }

    /// Keep `rows` (setting key, JSON) of `file`'s session `id` under `stamp`; rows of the
    /// session kept under another stamp go.
    pub fn save_tune_cells(
        &mut self,
        file: &Path,
        id: &str,
        stamp: &str,
        rows: &[(String, String)],
    ) -> Result<()> {
        let file = canonical(file).display().to_string();
        let path = self.path.clone();
        let sql = |e: rusqlite::Error| super::index_error(&path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        tx.execute(
            "DELETE FROM tune_cells WHERE file = ?1 AND session_id = ?2 AND stamp != ?3",
            params![file, id, stamp],
        )
        .map_err(sql)?;
        for (setting, cell) in rows {
            tx.execute(
                "INSERT OR REPLACE INTO tune_cells(file, session_id, setting, stamp, cell)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![file, id, setting, stamp, cell],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }
}

/// Drop every row of `file` (its sessions left the index).
pub(super) fn forget(tx: &rusqlite::Transaction<'_>, file: &str) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM tune_cells WHERE file = ?1", params![file])
        .map(|_| ())
}
