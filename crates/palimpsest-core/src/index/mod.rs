//! The fleet index: a cache of every session's diagnosis, messages and searchable text, kept
//! in `$XDG_CACHE_HOME/palimpsest/index.db` so that fleet questions ("which workers got stuck",
//! "every session that hit *Prompt is too long*") are answered without reading every file
//! again.
//!
//! [`Index::update`] walks the given paths with the readers of `sources`, asks each source
//! where its sessions live ([`crate::sources::SessionSource::session_files`], cheap), and
//! loads only sessions whose fingerprint changed (`fingerprint`): a new one is added, a changed
//! one re-written (an appended transcript from its last message on), one gone is removed.
//! Loading and diagnosing run on every core; one thread writes. Deleting the file loses
//! nothing. The rows are `rows`', the schema `store`'s, search `search`'s.

pub mod fingerprint;
pub mod rows;
pub mod search;
pub mod store;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::analysis::{Fleet, FleetRow};
use crate::api::{DiagnoseOptions, Problem};
use crate::error::{Error, Result};
use fingerprint::Fingerprint;
use rows::Prepared;

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
}

/// One session to (re)load.
struct Job {
    source: usize,
    id: String,
    file: String,
    stamp: String,
    size: u64,
    from: usize,
    existed: bool,
}

/// `path` as the index keys it: canonical when it exists.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// True when `file` is `root` or inside it.
pub fn under(file: &str, roots: &[PathBuf]) -> bool {
    let f = Path::new(file);
    roots.iter().any(|r| f.starts_with(r))
}

impl Index {
    /// The default location: `$XDG_CACHE_HOME/palimpsest/index.db`.
    pub fn default_path() -> Option<PathBuf> {
        dirs::cache_dir().map(|d| d.join("palimpsest").join("index.db"))
    }

    /// Open (or create, or rebuild when its schema is older) the index at `path`.
    pub fn open(path: &Path) -> Result<Index> {
        Ok(Index {
            conn: store::open(path)?,
            path: path.to_owned(),
        })
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
        Error::format(&self.path, format!("index database: {e}"))
    }

    /// Bring the index up to date for `paths`: `progress(done, total)` is called as changed
    /// sessions are indexed.
    pub fn update(
        &mut self,
        paths: &[PathBuf],
        opts: &DiagnoseOptions,
        progress: &mut dyn FnMut(usize, usize),
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
                if under(&k.0, &roots) {
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
        let mut jobs = Vec::new();
        let mut prints: HashMap<PathBuf, Option<Fingerprint>> = HashMap::new();
        for (si, source) in catalog.sources.iter().enumerate() {
            let files = match source.session_files() {
                Ok(f) => f,
                Err(e) => {
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
                        code: "format".into(),
                        message: message.clone(),
                    });
                    continue;
                }
                let from = match (known.get(&key), &print, sf.stamp.is_none()) {
                    (Some((_, old, _, count)), Some(now), true) => Fingerprint::parse(old)
                        .filter(|o| Fingerprint::appended(o, &sf.file, now))
                        .map_or(0, |_| count.saturating_sub(1)),
                    _ => 0,
                };
                jobs.push(Job {
                    source: si,
                    existed: known.contains_key(&key),
                    id: sf.id,
                    file,
                    stamp,
                    size,
                    from,
                });
            }
        }
        self.run_jobs(&catalog, jobs, opts, &mut report, progress)?;
        // Sessions gone from disk.
        let gone: Vec<i64> = known
            .iter()
            .filter(|(k, _)| !seen.contains(*k))
            .map(|(_, v)| v.0)
            .collect();
        if !gone.is_empty() {
            let path = self.path.clone();
            let sql = |e: rusqlite::Error| Error::format(&path, format!("index database: {e}"));
            let tx = self.conn.transaction().map_err(sql)?;
            for id in &gone {
                store::remove(&tx, *id).map_err(sql)?;
            }
            tx.commit().map_err(sql)?;
        }
        report.removed = gone.len();
        Ok(report)
    }

    /// Load, diagnose and prepare the jobs on every core; write them here, in one transaction.
    fn run_jobs(
        &mut self,
        catalog: &crate::sources::Catalog,
        jobs: Vec<Job>,
        opts: &DiagnoseOptions,
        report: &mut IndexReport,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<()> {
        let total = jobs.len();
        progress(0, total);
        if total == 0 {
            return Ok(());
        }
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(total);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (tx, rx) = mpsc::sync_channel::<(usize, Result<Prepared>)>(workers * 2);
        let path = self.path.clone();
        let conn = &mut self.conn;
        std::thread::scope(|scope| -> Result<()> {
            for _ in 0..workers {
                let tx = tx.clone();
                let (jobs, next) = (&jobs, &next);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        let prepared = prepare(catalog, job, opts);
                        if tx.send((i, prepared)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let sql = |e: rusqlite::Error| Error::format(&path, format!("index database: {e}"));
            let db = conn.transaction().map_err(sql)?;
            for (done, (i, prepared)) in rx.into_iter().enumerate() {
                let job = &jobs[i];
                match prepared {
                    Ok(p) => {
                        store::write(&db, &job.file, &job.stamp, job.size, &p, job.from)
                            .map_err(sql)?;
                        if !job.existed {
                            report.added += 1;
                        } else {
                            report.updated += 1;
                            report.appended += usize::from(job.from > 0);
                        }
                    }
                    Err(e) => {
                        let problem = Problem::from(&e);
                        store::write_failure(&db, &job.file, &job.id, &job.stamp, &problem.message)
                            .map_err(sql)?;
                        report.problems.push(problem);
                    }
                }
                progress(done + 1, total);
            }
            db.commit().map_err(sql)
        })
    }

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
            .prepare("SELECT file, row_json, usage_json FROM sessions")
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String, String)> = q
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        let rows: Vec<FleetRow> = rows
            .into_iter()
            .filter(|(f, _, _)| under(f, &roots))
            .filter_map(|(_, row, usage)| {
                let mut row: FleetRow = serde_json::from_str(&row).ok()?;
                let buckets: Vec<crate::cost::Bucket> =
                    serde_json::from_str(&usage).unwrap_or_default();
                row.cost_usd = crate::cost::price_buckets(&buckets, prices);
                Some(row)
            })
            .collect();
        Ok(crate::analysis::fleet::fleet(rows, problems))
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

/// Load one session and make its rows.
fn prepare(
    catalog: &crate::sources::Catalog,
    job: &Job,
    opts: &DiagnoseOptions,
) -> Result<Prepared> {
    let session = catalog.sources[job.source].load(&job.id)?;
    let d = crate::api::diagnose(&session, opts)?;
    let cost = crate::cost::session_cost(&session, opts.price_table());
    Ok(Prepared {
        row: crate::analysis::fleet::row(
            &session.meta,
            &d,
            cost.as_ref().and_then(|c| c.total_usd),
        ),
        buckets: cost
            .map(|c| crate::cost::buckets(&c.per_request))
            .unwrap_or_default(),
        messages: rows::message_rows(&session),
        parts: rows::part_texts(&session),
        meta: session.meta,
    })
}
