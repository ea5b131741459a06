//! The fleet index: a cache of every session's diagnosis, messages and searchable text, kept
//! in `$XDG_CACHE_HOME/palimpsest/index.db` so that fleet questions ("which workers got stuck",
//! "every session that hit *Prompt is too long*") are answered without reading every file
//! again.
//!
//! [`Index::update`] walks the given paths with the readers of `sources`, asks each source
//! where its sessions live ([`crate::sources::SessionSource::session_files`], cheap), and
//! loads only sessions whose fingerprint changed (`fingerprint`): a new one is added, a changed
//! one re-written (an appended transcript from its last message on), one gone is removed; a
//! session the caller read already ([`Given`], the app's copy) is taken instead of read again
//! while its file is as fingerprinted before that read. Loading and diagnosing run on every
//! core; one thread writes. Deleting the file loses
//! nothing. The rows are `rows`', the schema `store`'s, writing message rows (only those an
//! append changed) `messages`', search `search`'s, what is answered
//! from the index alone (fleet rows, a folder's listing, a session's timeline) `read`'s, one
//! message read back by its records' byte offsets `body`'s, what the model saw at one request
//! `request`'s; requests, compactions and findings
//! as rows (what the Parquet export reads) `facts`'; goose sweep digests `digests`'; `tune` results
//! `tune_cells`'.

#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

// The layers below, under the names every module of this crate uses.
use palimpsest_analysis::{analysis, compaction, cost, replay, views};
use palimpsest_model::{cachedb, env, error, model, sources};
use palimpsest_tokens as tokens;

mod body;
pub mod digests;
pub mod export;
pub mod facts;
pub mod fingerprint;
mod jobs;
mod messages;
pub mod pieces;
mod read;
mod request;
pub mod roots;
pub mod rows;
pub mod search;
mod snapshots;
pub mod store;
mod stream;
mod timeline;
pub mod tune_cells;
pub use jobs::Given;
pub use read::AsOf;
pub use stream::StoredMessages;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::analysis::asked::DiagnoseOptions;
use crate::error::Problem;
use crate::error::{Error, ErrorCode, Result};
use fingerprint::Fingerprint;

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct IndexReport {
    /// The index file.
    pub index: String,
    /// Sessions indexed for the first time.
    pub added: usize,
    /// Sessions whose file changed, re-indexed.
    pub updated: usize,
    /// Of those, appended files read from their last message on.
    pub appended: usize,
    /// Of those, read from the offset where the last update's read stopped (its reader kept,
    /// `snapshots`), not from the file's first line.
    pub resumed: usize,
    /// Sessions whose file is unchanged: not read.
    pub unchanged: usize,
    /// Sessions gone from disk, removed from the index.
    pub removed: usize,
    /// Sessions under the paths now.
    pub sessions: usize,
    /// Files and sessions that failed, each naming its file.
    pub problems: Vec<Problem>,
}

/// The index database.
pub struct Index {
    conn: Connection,
    path: PathBuf,
    /// What opening it did that the user should hear of (a damaged file set aside).
    notice: Option<String>,
}

/// The token-count cache beside the index (one cache folder for both), which indexing fills
/// and reads so each message gets its BPE tokens once.
fn token_dir(index: &Path) -> Option<PathBuf> {
    index.parent().map(Path::to_owned)
}

/// `path` as the index keys it: canonical when it exists.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// The error for a failed statement on the index at `path`. A damaged file (bad pages, a
/// truncated file, a bad header) is set aside at once, so the next opener builds the index
/// again, and the error says so ([`Error::CacheDamaged`]); a full disk is named as such.
pub(crate) fn index_error(path: &Path, e: rusqlite::Error) -> Error {
    if crate::cachedb::is_damage(&e) {
        let message = match crate::cachedb::set_aside(path) {
            Ok(to) => format!(
                "the index is damaged ({e}); it was set aside as {} and is built again on the \
                 next run (it is a cache: deleting it loses nothing)",
                to.display()
            ),
            Err(why) => format!(
                "the index is damaged ({e}) and could not be set aside ({why}); delete it: it is \
                 a cache, deleting it loses nothing"
            ),
        };
        return Error::CacheDamaged {
            path: path.to_owned(),
            message,
        };
    }
    Error::format(
        path,
        format!("index database: {}", crate::cachedb::explain(path, &e)),
    )
}

/// True when `file` is `root` or inside it.
pub fn under(file: &str, roots: &[PathBuf]) -> bool {
    let f = Path::new(file);
    roots.iter().any(|r| f.starts_with(r))
}

/// True when an update of `roots` lists `file`: it is under one, or in the folder a root
/// file keeps its own runs in (a Claude Code transcript's `<session>/subagents/`), which an
/// update of that one file lists too.
fn covered(file: &str, roots: &[PathBuf]) -> bool {
    under(file, roots)
        || roots
            .iter()
            .any(|r| r.extension().is_some() && Path::new(file).starts_with(r.with_extension("")))
}

impl Index {
    /// The default location: `$XDG_CACHE_HOME/palimpsest/index.db`.
    pub fn default_path() -> Option<PathBuf> {
        crate::env::machine()
            .cache_dir
            .as_ref()
            .map(|d| d.join("index.db"))
    }

    /// Open (or create, or rebuild when its schema is older) the index at `path`.
    pub fn open(path: &Path) -> Result<Index> {
        let (conn, notice) = store::open(path)?;
        Ok(Index {
            conn,
            path: path.to_owned(),
            notice,
        })
    }

    /// What opening the index did that the user should hear of: a damaged file set aside and
    /// the index built again.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The token cache beside the index, when there is one (never created here): the counts
    /// indexing made, which the views and replays of its sessions reuse.
    pub fn token_cache(&self) -> Option<crate::tokens::TokenCache> {
        token_dir(&self.path).and_then(|d| crate::tokens::TokenCache::existing(&d))
    }

    /// Open the index at its default location.
    pub fn open_default() -> Result<Index> {
        let p = Self::default_path()
            .ok_or_else(|| Error::format(Path::new("~/.cache"), "no cache folder for the index"))?;
        Self::open(&p)
    }

    /// The file it lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for `search`.
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    fn sql(&self, e: rusqlite::Error) -> Error {
        index_error(&self.path, e)
    }

    /// Bring the index up to date for `paths`: `progress(done, total)` is called as changed
    /// sessions are indexed. A folder whose listing is as at its last update is not opened
    /// (`roots`); the others go through [`Index::update_full`].
    pub fn update(
        &mut self,
        paths: &[PathBuf],
        opts: &DiagnoseOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<IndexReport> {
        self.update_given(paths, opts, progress, &[])
    }

    /// [`Index::update`], taking the sessions in `given` as read already: one whose file is
    /// still as it was when it was read is indexed from that copy, not read again.
    pub fn update_given(
        &mut self,
        paths: &[PathBuf],
        opts: &DiagnoseOptions,
        progress: &mut dyn FnMut(usize, usize),
        given: &[Given],
    ) -> Result<IndexReport> {
        let all: Vec<PathBuf> = paths.iter().map(|p| canonical(p)).collect();
        let mut fresh = IndexReport {
            index: self.path.display().to_string(),
            ..Default::default()
        };
        let mut stale: Vec<(PathBuf, Option<String>)> = Vec::new();
        for root in &all {
            // A file's siblings (a transcript's subagent runs) are outside its listing: files
            // always take the full update, which is quick for one file.
            let stamp = root.is_dir().then(|| fingerprint::tree_stamp(root));
            let known = match &stamp {
                Some(_) => roots::known(&self.conn, root).map_err(|e| self.sql(e))?,
                None => None,
            };
            match (known, &stamp) {
                (Some(k), Some(s)) if k.stamp == *s => {
                    let n = roots::sessions_under(&self.conn, root).map_err(|e| self.sql(e))?;
                    fresh.sessions += n;
                    fresh.unchanged += n;
                    fresh.problems.extend(k.problems);
                }
                _ => stale.push((root.clone(), stamp)),
            }
        }
        if stale.is_empty() {
            progress(0, 0);
            return Ok(fresh);
        }
        // A changed folder usually means a session to read, count and diagnose: compile the
        // diagnosis's and the token count's patterns and read the bundled price table on
        // another core while it is listed and read. On first use they take about 12 ms, a
        // quarter of re-indexing one message appended to a 2.7 MB transcript.
        std::thread::spawn(|| {
            crate::analysis::warm_up();
            crate::tokens::Encoding::O200kBase.warm_up();
            let _ = crate::cost::PriceTable::bundled();
        });
        let stale_roots: Vec<PathBuf> = stale.iter().map(|(r, _)| r.clone()).collect();
        let mut report = self.update_full(&stale_roots, opts, progress, given)?;
        for (root, stamp) in &stale {
            roots::forget_ancestors(&self.conn, root).map_err(|e| self.sql(e))?;
            if let Some(stamp) = stamp {
                let mine = roots::problems_of(&report.problems, root, &stale_roots);
                // A locked database or an unreadable file may come right without its folder's
                // listing changing: such a folder is looked at in full again next time.
                let transient = mine
                    .iter()
                    .any(|p| matches!(p.code, ErrorCode::Sqlite | ErrorCode::Io));
                if transient {
                    roots::forget(&self.conn, root).map_err(|e| self.sql(e))?;
                } else {
                    roots::save(&self.conn, root, stamp, &mine).map_err(|e| self.sql(e))?;
                }
            }
        }
        report.sessions += fresh.sessions;
        report.unchanged += fresh.unchanged;
        report.problems.extend(fresh.problems);
        Ok(report)
    }

    /// The full update of `paths`: every source opened, every session's file fingerprinted,
    /// the changed ones loaded (or taken from `given`, see [`Index::update_given`]).
    pub fn update_full(
        &mut self,
        paths: &[PathBuf],
        opts: &DiagnoseOptions,
        progress: &mut dyn FnMut(usize, usize),
        given: &[Given],
    ) -> Result<IndexReport> {
        let roots: Vec<PathBuf> = paths.iter().map(|p| canonical(p)).collect();
        let mut report = IndexReport {
            index: self.path.display().to_string(),
            ..Default::default()
        };
        let mut catalog = crate::sources::Catalog::default();
        for r in &roots {
            match crate::sources::open(r) {
                Ok(c) => {
                    catalog.sources.extend(c.sources);
                    catalog.problems.extend(c.problems);
                }
                Err(e) => report.problems.push(Problem::from(&e)),
            }
        }
        report
            .problems
            .extend(catalog.problems.iter().map(Problem::from));
        // What the index has now.
        let mut known: HashMap<(String, String), (i64, String, u64, usize)> = HashMap::new();
        {
            let mut q = self
                .conn
                .prepare("SELECT id, file, session_id, stamp, size, messages FROM sessions")
                .map_err(|e| self.sql(e))?;
            let rows = q
                .query_map([], |r| {
                    Ok((
                        (r.get::<_, String>(1)?, r.get::<_, String>(2)?),
                        (
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, i64>(4)? as u64,
                            r.get::<_, i64>(5)? as usize,
                        ),
                    ))
                })
                .map_err(|e| self.sql(e))?;
            for row in rows {
                let (k, v) = row.map_err(|e| self.sql(e))?;
                if covered(&k.0, &roots) {
                    known.insert(k, v);
                }
            }
        }
        let failures: HashMap<(String, String), (String, String)> = {
            let mut q = self
                .conn
                .prepare("SELECT file, session_id, stamp, message FROM failures")
                .map_err(|e| self.sql(e))?;
            q.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?))))
                .map_err(|e| self.sql(e))?
                .collect::<rusqlite::Result<_>>()
                .map_err(|e| self.sql(e))?
        };
        let mut seen: HashSet<(String, String)> = HashSet::new();
        let mut unlisted: Vec<PathBuf> = Vec::new();
        let mut jobs = Vec::new();
        let mut prints: HashMap<PathBuf, Option<Fingerprint>> = HashMap::new();
        for (si, source) in catalog.sources.iter().enumerate() {
            let files = match source.session_files() {
                Ok(f) => f,
                Err(e) => {
                    // A locked or broken source keeps what the index had of it: it failed to
                    // say what it holds, which is not that it holds nothing.
                    unlisted.push(source.path().to_owned());
                    report.problems.push(Problem::from(&e));
                    continue;
                }
            };
            for sf in files {
                let file = sf.file.display().to_string();
                let print = prints
                    .entry(sf.file.clone())
                    .or_insert_with(|| Fingerprint::of(&sf.file).ok())
                    .clone();
                // A database holding many sessions changes with each of them: its sessions are
                // told apart by the source's stamp alone. Other files by their fingerprint
                // (and the source's stamp, when it gives one).
                let db = fingerprint::is_sqlite(&sf.file);
                let (stamp, size) = match (&sf.stamp, &print) {
                    (Some(s), _) if db => (format!("source:{s}"), 0),
                    (Some(s), Some(p)) => (format!("{}|{s}", p.stamp()), p.size),
                    (Some(s), None) => (format!("source:{s}"), 0),
                    (None, Some(p)) => (p.stamp(), p.size),
                    (None, None) => (String::from("missing"), 0),
                };
                let key = (file.clone(), sf.id.clone());
                if !seen.insert(key.clone()) {
                    continue;
                }
                report.sessions += 1;
                if let Some((_, old, _, _)) = known.get(&key)
                    && *old == stamp
                {
                    report.unchanged += 1;
                    continue;
                }
                if let Some((old, message)) = failures.get(&key)
                    && *old == stamp
                {
                    report.problems.push(Problem {
                        code: ErrorCode::BadInput,
                        message: message.clone(),
                    });
                    continue;
                }
                // An appended file: its rows from its last message on, read from where the last
                // read stopped when its reader was kept at the stamp stored.
                let appended = match (known.get(&key), &print, sf.stamp.is_none()) {
                    (Some((_, old, _, count)), Some(now), true) => Fingerprint::parse(old)
                        .filter(|o| Fingerprint::appended(o, &sf.file, now))
                        .map(|_| (count.saturating_sub(1), jobs::tag(old, *count))),
                    _ => None,
                };
                let (from, was) = appended.map_or((0, None), |(f, w)| (f, Some(w)));
                jobs.push(jobs::Job {
                    given: jobs::given_for(given, &sf.file, &sf.id, print.as_ref(), &sf.stamp),
                    source: si,
                    existed: known.contains_key(&key),
                    id: sf.id,
                    file,
                    stamp,
                    size,
                    from,
                    was,
                });
            }
        }
        jobs::run(self, &catalog, jobs, opts, &mut report, progress)?;
        // Sessions gone from disk.
        let gone: Vec<(i64, &str, &str)> = known
            .iter()
            .filter(|(k, _)| !seen.contains(*k) && !under(&k.0, &unlisted))
            .map(|(k, v)| (v.0, k.0.as_str(), k.1.as_str()))
            .collect();
        if let Some(s) = snapshots::Snapshots::beside(&self.path) {
            gone.iter().for_each(|(_, file, id)| s.forget(file, id));
        }
        if !gone.is_empty() {
            let path = self.path.clone();
            let sql = |e: rusqlite::Error| index_error(&path, e);
            let tx = self.conn.transaction().map_err(sql)?;
            for (id, file, _) in &gone {
                store::remove(&tx, *id).map_err(sql)?;
                digests::forget(&tx, file).map_err(sql)?;
                tune_cells::forget(&tx, file).map_err(sql)?;
            }
            tx.commit().map_err(sql)?;
        }
        report.removed = gone.len();
        Ok(report)
    }

    /// How many sessions the index holds.
    pub fn len(&self) -> Result<usize> {
        self.conn
            .query_row("SELECT count(*) FROM sessions", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.sql(e))
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}
