//! The timeline of an indexed session without reading its file: every row, or only the first
//! page of them (the window's first screen of a 2 GB transcript must not wait for 264 000 rows
//! to be read from the index and parsed). Which sessions the index answers for is
//! [`AsOf`]'s and `read`'s; the rows were made by `rows` when the session was indexed.

use std::path::Path;

use rusqlite::params;

use super::Index;
use super::read::{AsOf, Indexed};
use crate::error::Result;
use crate::views::timeline::{Timeline, TimelineRow};

impl Index {
    /// The timeline of session `id` under `path` (a folder, or the session's file; no id: the
    /// one session under `path`), from the index, when its file is as it was indexed; `None`
    /// when the index does not hold it, its file changed, or it shares its file with other
    /// sessions (a database: loading one session of it is quick, and its stamp is the
    /// source's). The rows are those [`crate::views::timeline::timeline`] makes of the loaded
    /// session, byte for byte.
    pub fn timeline(&self, path: &Path, id: Option<&str>) -> Result<Option<Timeline>> {
        self.timeline_as_of(path, id, AsOf::Same)
    }

    /// [`Index::timeline`], and with [`AsOf::Grown`] also the rows of a file that only grew
    /// since it was indexed: the rows it had then, `grown_bytes` saying by how much it grew.
    /// What the window draws of a transcript an agent went on writing while the session is
    /// read whole behind (the messages written since, and what they change in earlier rows,
    /// come with it).
    pub fn timeline_as_of(
        &self,
        path: &Path,
        id: Option<&str>,
        as_of: AsOf,
    ) -> Result<Option<Timeline>> {
        self.timeline_rows(path, id, as_of, None)
    }

    /// [`Index::timeline_as_of`] with its first `limit` rows only; `total_rows` still counts
    /// them all. The rest is [`Index::timeline_as_of`]'s to read.
    pub fn timeline_head(
        &self,
        path: &Path,
        id: Option<&str>,
        as_of: AsOf,
        limit: usize,
    ) -> Result<Option<Timeline>> {
        self.timeline_rows(path, id, as_of, Some(limit))
    }

    fn timeline_rows(
        &self,
        path: &Path,
        id: Option<&str>,
        as_of: AsOf,
        limit: Option<usize>,
    ) -> Result<Option<Timeline>> {
        let Some(Indexed {
            rowid,
            meta,
            compactions,
            grown,
            ..
        }) = self.indexed_session(path, id, as_of)?
        else {
            return Ok(None);
        };
        let (Ok(meta), Ok(compactions)) = (
            serde_json::from_str(&meta),
            serde_json::from_str(&compactions),
        ) else {
            return Ok(None);
        };
        // SQLite's LIMIT -1 is no limit.
        let take = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT row_json, tokens FROM messages WHERE session = ?1 ORDER BY idx LIMIT ?2",
            )
            .map_err(|e| self.sql(e))?;
        let mut rows: Vec<TimelineRow> = Vec::new();
        let mut it = q.query(params![rowid, take]).map_err(|e| self.sql(e))?;
        while let Some(r) = it.next().map_err(|e| self.sql(e))? {
            let json: String = r.get(0).map_err(|e| self.sql(e))?;
            let tokens: Option<i64> = r.get(1).map_err(|e| self.sql(e))?;
            match serde_json::from_str::<TimelineRow>(&json) {
                Ok(row) => rows.push(TimelineRow {
                    tokens: tokens.map(|t| t as u64),
                    ..row
                }),
                Err(_) => return Ok(None),
            }
        }
        let total_rows = match limit {
            Some(l) if rows.len() >= l => self
                .conn
                .query_row(
                    "SELECT count(*) FROM messages WHERE session = ?1",
                    params![rowid],
                    |r| r.get::<_, i64>(0),
                )
                .map_err(|e| self.sql(e))? as usize,
            _ => rows.len(),
        };
        Ok(Some(Timeline {
            meta,
            total_rows,
            first_row: 0,
            rows,
            compactions,
            from_index: true,
            grown_bytes: grown,
            unread_bytes: 0,
        }))
    }
}
