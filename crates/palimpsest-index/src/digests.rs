//! goose sweep digests kept in the index (`replay::digest`): one per transcript file, session
//! and tool-result cap, under the file's fingerprint and the digest version. A digest is read
//! only while its file is byte for byte as it was when the digest was made (the same
//! fingerprint); a changed file's digests are replaced on its next sweep, a vanished file's go
//! with its sessions. Only files that are one session each are kept: a database's fingerprint
//! misses writes still in its WAL, and one session of it loads in milliseconds anyway.

use std::path::Path;

use rusqlite::params;

use super::fingerprint::{self, Fingerprint};
use super::{Index, canonical};
use crate::error::Result;
use crate::replay::digest::{self, Digest};

/// The table (created with the index's schema).
pub(super) const SCHEMA: &str = "
CREATE TABLE digests(
    file TEXT NOT NULL,
    session_id TEXT NOT NULL,
    cap INTEGER NOT NULL,
    stamp TEXT NOT NULL,
    header TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY(file, session_id, cap)
) WITHOUT ROWID;
";

/// The key a digest of `file` is kept under now: its fingerprint and the digest version;
/// `None` for what has no digest (a database, a folder, a file that cannot be read).
pub fn stamp_of(file: &Path) -> Option<String> {
    if !file.is_file() || fingerprint::is_sqlite(file) {
        return None;
    }
    let print = Fingerprint::of(file).ok()?;
    Some(format!("v{}|{}", digest::VERSION, print.stamp()))
}

impl Index {
    /// The digests of `file`'s session `id` (`None`: the one session digested under `file`) at
    /// every cap of `caps`, in that order, when each was made of the file as `stamp` says it
    /// is now.
    pub fn digests(
        &self,
        file: &Path,
        id: Option<&str>,
        stamp: &str,
        caps: &[usize],
    ) -> Result<Option<Vec<Digest>>> {
        let file = canonical(file).display().to_string();
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT session_id, header, body FROM digests
                 WHERE file = ?1 AND cap = ?2 AND stamp = ?3 AND (?4 IS NULL OR session_id = ?4)
                 LIMIT 2",
            )
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::with_capacity(caps.len());
        let mut of: Option<String> = None;
        for &cap in caps {
            let rows: Vec<(String, String, Vec<u8>)> = q
                .query_map(params![file, cap as i64, stamp, id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .map_err(|e| self.sql(e))?
                .collect::<rusqlite::Result<_>>()
                .map_err(|e| self.sql(e))?;
            // Without an id, one session's digests only: a file of several needs its id.
            let mut rows = rows.into_iter();
            let (Some((sid, header, body)), None) = (rows.next(), rows.next()) else {
                return Ok(None);
            };
            if of.get_or_insert_with(|| sid.clone()) != &sid {
                return Ok(None);
            }
            match Digest::from_stored(&header, &body) {
                Some(d) => out.push(d),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// The one session whose digests were made of `file` as `stamp` says it is now (`None`
    /// when none or several were): what a command on the file names when it was not told.
    pub fn digested_session(&self, file: &Path, stamp: &str) -> Result<Option<String>> {
        let file = canonical(file).display().to_string();
        let ids: Vec<String> = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT session_id FROM digests WHERE file = ?1 AND stamp = ?2 LIMIT 2",
            )
            .and_then(|mut q| {
                q.query_map(params![file, stamp], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(|e| self.sql(e))?;
        Ok(match <[String; 1]>::try_from(ids) {
            Ok([id]) => Some(id),
            Err(_) => None,
        })
    }

    /// Keep `digests` (one per cap) of `file`'s session `id` under `stamp`, replacing older ones.
    pub fn save_digests(
        &mut self,
        file: &Path,
        id: &str,
        stamp: &str,
        digests: &[Digest],
    ) -> Result<()> {
        let file = canonical(file).display().to_string();
        let path = self.path.clone();
        let sql = |e: rusqlite::Error| super::index_error(&path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        for d in digests {
            tx.execute(
                "INSERT OR REPLACE INTO digests(file, session_id, cap, stamp, header, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    file,
                    id,
                    d.cap_bytes as i64,
                    stamp,
                    d.header_json(),
                    d.body()
                ],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }
}

impl Index {
    /// True when the index holds `session` of `file` as the file is now, with the listing data
    /// `session` has: the loaded copy is the file's content, so what is made of it may be kept
    /// under the file's fingerprint.
    pub fn holds_as_loaded(&self, file: &Path, session: &crate::model::Session) -> Result<bool> {
        let Some((_, _, meta, _)) = self.fresh_session(file, Some(&session.meta.id))? else {
            return Ok(false);
        };
        Ok(serde_json::from_str::<crate::model::SessionMeta>(&meta)
            .is_ok_and(|m| m == session.meta))
    }
}

/// Forget the digests of `file` (gone from disk).
pub(super) fn forget(tx: &rusqlite::Transaction<'_>, file: &str) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM digests WHERE file = ?1", params![file])
        .map(|_| ())
}
