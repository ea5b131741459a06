//! What the index answers without reading a session file: the fleet rows of a folder, the
//! listing of an unchanged folder, and the timeline of an unchanged session (what the window
//! draws first, so a 200 MB transcript opens in well under a second). Writing is `store`'s;
//! when the rows are current is `fingerprint`'s and `roots`'.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use super::fingerprint::Fingerprint;
use super::{Index, canonical, roots, under};
use crate::analysis::{Fleet, FleetRow};
use crate::error::Problem;
use crate::error::Result;

/// Which state of a session file the index answers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsOf {
    /// Only the file as it was indexed.
    Same,
    /// Also the file with bytes appended since (head and old end unchanged): what was indexed
    /// of it is still where it was, though the new lines may change what earlier messages are.
    Grown,
}

impl AsOf {
    /// By how many bytes `file` (fingerprinted `now`) grew since it was indexed as `stamp`,
    /// when this allows it: 0 for the file as indexed; `None` for one it does not answer for.
    fn grown(self, stamp: &str, file: &Path, now: &Fingerprint) -> Option<u64> {
        let then = Fingerprint::parse(stamp)?;
        if now.stamp() == stamp {
            Some(0)
        } else if self == AsOf::Grown && Fingerprint::appended(&then, file, now) {
            Some(now.size - then.size)
        } else {
            None
        }
    }
}

/// A session's row in the index, for a file [`AsOf`] allows.
pub(super) struct Indexed {
    pub rowid: i64,
    pub file: String,
    pub meta: String,
    pub compactions: String,
    /// Bytes appended since it was indexed.
    pub grown: u64,
}

impl Index {
    /// The fleet rows of every indexed session under `paths`, with the index's problems,
    /// costed at `prices`.
    pub fn fleet(
        &self,
        paths: &[PathBuf],
        problems: Vec<Problem>,
        prices: &crate::cost::PriceTable,
    ) -> Result<Fleet> {
        let roots: Vec<PathBuf> = paths.iter().map(|p| canonical(p)).collect();
        let mut q = self
            .conn
            .prepare("SELECT id, file, row_json, usage_json FROM sessions")
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(i64, String, String, String)> = q
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        let mut ids = std::collections::HashSet::new();
        let rows: Vec<FleetRow> = rows
            .into_iter()
            .filter(|(_, f, _, _)| under(f, &roots))
            .filter_map(|(id, _, row, usage)| {
                let mut row: FleetRow = serde_json::from_str(&row).ok()?;
                let buckets: Vec<crate::cost::Bucket> =
                    serde_json::from_str(&usage).unwrap_or_default();
                row.cost_usd = crate::cost::price_buckets(&buckets, prices);
                ids.insert(id);
                Some(row)
            })
            .collect();
        let shared = self.shared_requests(&ids, prices)?;
        Ok(crate::analysis::fleet::fleet(rows, problems, shared))
    }

    /// The copies among the requests of sessions `ids` (rowids): requests whose id another of
    /// them holds too, found by the index on `request_id`.
    fn shared_requests(
        &self,
        ids: &std::collections::HashSet<i64>,
        prices: &crate::cost::PriceTable,
    ) -> Result<crate::cost::Shared> {
        let mut q = self
            .conn
            .prepare(
                "SELECT session, request_id, model, input, output, cache_read, cache_write,
                        cache_write_1h
                 FROM requests WHERE request_id IN (
                     SELECT request_id FROM requests WHERE request_id IS NOT NULL
                     GROUP BY request_id HAVING count(*) > 1)
                 ORDER BY session, n",
            )
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(i64, String, Option<String>, crate::cost::UsageSplit)> = q
            .query_map([], |r| {
                let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    crate::cost::UsageSplit {
                        input: n(3)?,
                        output: n(4)?,
                        cache_read: n(5)?,
                        cache_write: n(6)?,
                        cache_write_1h: n(7)?,
                    },
                ))
            })
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        Ok(crate::cost::shared(
            rows.iter()
                .filter(|(s, ..)| ids.contains(s))
                .map(|(_, id, model, usage)| (id.as_str(), model.as_deref(), usage)),
            prices,
        ))
    }

    /// The sessions under folder `path` as the index holds them (newest update first, as
    /// `api::list_sessions` orders them) with the problems of its last update, when nothing under
    /// it changed since; `None` otherwise. What the sidebar shows at once, without reading a file.
    /// A session file given alone is listed from the index when it is unchanged.
    pub fn listing(
        &self,
        path: &Path,
    ) -> Result<Option<(Vec<crate::model::SessionMeta>, Vec<Problem>)>> {
        self.listing_as_of(path, AsOf::Same)
    }

    /// [`Index::listing`], and with [`AsOf::Grown`] also the listing the index made of a file
    /// that only grew since (its counts as they were then): the window's sidebar for a
    /// transcript an agent went on writing, without scanning it whole first.
    pub fn listing_as_of(
        &self,
        path: &Path,
        as_of: AsOf,
    ) -> Result<Option<(Vec<crate::model::SessionMeta>, Vec<Problem>)>> {
        let root = canonical(path);
        if root.is_file() {
            return self.file_listing(&root, as_of);
        }
        let Some(problems) = roots::fresh(&self.conn, &root).map_err(|e| self.sql(e))? else {
            return Ok(None);
        };
        let mut q = self
            .conn
            .prepare("SELECT file, meta_json FROM sessions")
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String)> = q
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        let roots = [root];
        let mut metas: Vec<crate::model::SessionMeta> = rows
            .into_iter()
            .filter(|(f, _)| under(f, &roots))
            .filter_map(|(_, m)| serde_json::from_str(&m).ok())
            .collect();
        metas.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
        Ok(Some((metas, problems)))
    }

    /// The listing entry the index holds for `file`'s session when the file is as it was
    /// indexed (size, mtime, both edges): what a folder's listing takes instead of reading it
    /// ([`crate::sources::SessionSource::list_known`]). A session stamped by its source (one
    /// of a database's) is not answered: listing those is one query.
    pub fn known_meta(
        &self,
        file: &crate::sources::SessionFile,
    ) -> Option<crate::model::SessionMeta> {
        if file.stamp.is_some() {
            return None;
        }
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT stamp, meta_json FROM sessions WHERE file = ?1 AND session_id = ?2",
            )
            .ok()?;
        let (stamp, meta): (String, String) = q
            .query_row(params![file.file.display().to_string(), file.id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .ok()??;
        let now = Fingerprint::of(&file.file).ok()?;
        AsOf::Same.grown(&stamp, &file.file, &now)?;
        serde_json::from_str(&meta).ok()
    }

    /// The sessions of one file, when each is indexed under the file's fingerprint as it is now.
    fn file_listing(
        &self,
        file: &Path,
        as_of: AsOf,
    ) -> Result<Option<(Vec<crate::model::SessionMeta>, Vec<Problem>)>> {
        let mut q = self
            .conn
            .prepare_cached("SELECT stamp, meta_json FROM sessions WHERE file = ?1")
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String)> = q
            .query_map(params![file.display().to_string()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        let Ok(now) = Fingerprint::of(file) else {
            return Ok(None);
        };
        if rows.is_empty()
            || !rows
                .iter()
                .all(|(stamp, _)| as_of.grown(stamp, file, &now).is_some())
        {
            return Ok(None);
        }
        let mut metas = Vec::new();
        for (_, m) in rows {
            match serde_json::from_str(&m) {
                Ok(meta) => metas.push(meta),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some((metas, Vec::new())))
    }

    /// The index's row of session `id` (or the one session) under `path`, when its file is
    /// as it was indexed: `(rowid, file, meta_json, compactions_json)`.
    pub(super) fn fresh_session(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<Option<(i64, String, String, String)>> {
        Ok(self
            .indexed_session(path, id, AsOf::Same)?
            .map(|s| (s.rowid, s.file, s.meta, s.compactions)))
    }

    /// The index's row of session `id` (or the one session) under `path`, when its file is as
    /// it was indexed, or (with [`AsOf::Grown`]) that file with bytes appended since.
    pub(super) fn indexed_session(
        &self,
        path: &Path,
        id: Option<&str>,
        as_of: AsOf,
    ) -> Result<Option<Indexed>> {
        let roots = [canonical(path)];
        // Without an id, the one session under `path` (a file holding one session).
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT id, file, stamp, meta_json, compactions_json FROM sessions
                 WHERE ?1 IS NULL OR session_id = ?1",
            )
            .map_err(|e| self.sql(e))?;
        let mut found: Vec<(i64, String, String, String, String)> = q
            .query_map(params![id], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .map_err(|e| self.sql(e))?
            .filter(|r| r.as_ref().map_or(true, |(_, f, ..)| under(f, &roots)))
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        if found.len() != 1 {
            return Ok(None);
        }
        let Some((rowid, file, stamp, meta, compactions)) = found.pop() else {
            return Ok(None);
        };
        // Only a stamp that is the file's own fingerprint can be checked here; the others need
        // their source.
        let Some(grown) = Fingerprint::of(Path::new(&file))
            .ok()
            .and_then(|now| as_of.grown(&stamp, Path::new(&file), &now))
        else {
            return Ok(None);
        };
        Ok(Some(Indexed {
            rowid,
            file,
            meta,
            compactions,
            grown,
        }))
    }

    /// The diagnosis of session `id` under `path` (no id: the one session under `path`) as
    /// the index made it, when its file is as it was indexed: what the Post-mortem shows first
    /// without reading a 200 MB transcript. The index diagnoses with the default options
    /// ([`crate::analysis::asked::DiagnoseOptions::default`]); a caller with others diagnoses afresh.
    pub fn diagnosis(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<Option<crate::analysis::Diagnosis>> {
        let Some((rowid, ..)) = self.fresh_session(path, id)? else {
            return Ok(None);
        };
        let Some(mut d) = self.row_json::<crate::analysis::Diagnosis>(rowid, "diagnoses")? else {
            return Ok(None);
        };
        d.summary_losses = super::facts::read_losses(&self.conn, rowid).map_err(|e| self.sql(e))?;
        Ok(Some(d))
    }

    /// The token report of session `id` under `path` as the index made it (the session model's
    /// vocabulary, the shipped price table), when its file is as it was indexed.
    pub fn token_report(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<Option<crate::views::tokens::TokenReport>> {
        self.kept_json(path, id, "token_reports")
    }

    /// The cut view of session `id` under `path` as the index made it (counted in BPE), when
    /// its file is as it was indexed: the window's cut marks and Requests list without reading
    /// the file.
    pub fn cut_view(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<Option<crate::views::cuts::SessionCuts>> {
        self.kept_json(path, id, "cut_views")
    }

    /// [`Index::cut_view`] with the listing entry of the session it is of (a caller asked for
    /// the one session of a file learns its id here).
    pub fn cut_view_of(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<Option<(crate::model::SessionMeta, crate::views::cuts::SessionCuts)>> {
        self.kept_json_of(path, id, "cut_views")
    }

    /// The spill files session `id` under `path` names (its listing entry beside them), as the
    /// index found them with the built-in markers, when its file is as it was indexed.
    pub fn spill_refs(
        &self,
        path: &Path,
        id: Option<&str>,
    ) -> Result<
        Option<(
            crate::model::SessionMeta,
            Vec<crate::analysis::spill_refs::SpillRef>,
        )>,
    > {
        self.kept_json_of(path, id, "spill_refs")
    }

    /// [`Index::kept_json`] with the listing entry of the session it is of.
    fn kept_json_of<T: serde::de::DeserializeOwned>(
        &self,
        path: &Path,
        id: Option<&str>,
        table: &str,
    ) -> Result<Option<(crate::model::SessionMeta, T)>> {
        let Some((rowid, _, meta, _)) = self.fresh_session(path, id)? else {
            return Ok(None);
        };
        let Ok(meta) = serde_json::from_str::<crate::model::SessionMeta>(&meta) else {
            return Ok(None);
        };
        Ok(self.row_json(rowid, table)?.map(|r| (meta, r)))
    }

    /// A fresh session's row of `table` (`diagnoses`, `token_reports`, `cut_views`,
    /// `spill_refs`), read back.
    fn kept_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &Path,
        id: Option<&str>,
        table: &str,
    ) -> Result<Option<T>> {
        let Some((rowid, ..)) = self.fresh_session(path, id)? else {
            return Ok(None);
        };
        self.row_json(rowid, table)
    }

    /// Session `rowid`'s row of `table`, read back.
    pub(super) fn row_json<T: serde::de::DeserializeOwned>(
        &self,
        rowid: i64,
        table: &str,
    ) -> Result<Option<T>> {
        let packed: Option<Vec<u8>> = self
            .conn
            .query_row(
                &format!("SELECT json FROM {table} WHERE session = ?1"),
                params![rowid],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        // Stored compressed (`store::write`); one that does not read back is not an answer.
        Ok(packed
            .and_then(|p| zstd::stream::decode_all(p.as_slice()).ok())
            .and_then(|j| serde_json::from_slice(&j).ok()))
    }
}
