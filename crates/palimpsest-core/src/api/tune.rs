//! The fleet tuned (`tune`, the window's Tune view): every session under the paths asked
//! replayed under every setting of a grid, measured against its own recorded re-reads (from its
//! diagnosis), and summed into the fleet's answer with its Pareto front and knee. Sessions run
//! on as many threads as there are cores, each with its own token cache. Each session's cells
//! are kept in the index under its file's fingerprint (`index::tune_cells`): a session whose
//! file is unchanged is not read again, and only the settings it was never tuned at are
//! replayed. Replaying and summing are `crate::replay::tune`'s and `tune_fleet`'s; this loads,
//! diagnoses, counts and keeps.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Problem;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::index::tune_cells::stamp_of;
use crate::model::{SessionMeta, SourceFormat};
use crate::replay::options::ReplayOptions;
use crate::replay::tune::{Cell, Setting, tune_session};
use crate::replay::tune_fleet::{SessionTune, Tune, tune_fleet};
use crate::sources;
use crate::tokens::TokenCache;

/// What `tune --json` prints and the Tune view receives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TuneView {
    /// The fleet tuned.
    pub tune: Tune,
    /// Sessions that could not be read or replayed; the rest still count.
    pub problems: Vec<Problem>,
    /// Sessions answered whole from the index (their files unchanged since they were tuned at
    /// every setting asked).
    pub from_index: usize,
    /// Sessions read and replayed (at the settings the index did not hold).
    pub replayed: usize,
    /// Each setting's replay options, in the settings' order: what the Replay tab opens a
    /// session at from the view.
    #[serde(default)]
    pub options: Vec<ReplayOptions>,
    /// What the filters can choose among: every session's harness, model, project and dates,
    /// before the filter.
    #[serde(default)]
    pub facets: TuneFacets,
}

/// Which sessions of the fleet count: the Tune view's filters, `tune --harness --model
/// --project --since --until`. An empty list keeps every value; a date bound leaves out the
/// sessions with no date.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TuneFilter {
    /// Harnesses kept.
    #[serde(default)]
    pub formats: Vec<SourceFormat>,
    /// Models kept.
    #[serde(default)]
    pub models: Vec<String>,
    /// Projects (working dirs) kept.
    #[serde(default)]
    pub projects: Vec<String>,
    /// Sessions last written at or after this (ms since the epoch).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub since: Option<i64>,
    /// Sessions last written before this (ms since the epoch).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub until: Option<i64>,
}

impl TuneFilter {
    /// Whether session `s` counts.
    pub fn keeps(&self, s: &SessionTune) -> bool {
        let listed = |list: &[String], v: &Option<String>| {
            list.is_empty() || v.as_ref().is_some_and(|v| list.contains(v))
        };
        let dated = |bound: Option<i64>, ok: fn(i64, i64) -> bool| {
            bound.is_none_or(|b| s.updated.is_some_and(|u| ok(u, b)))
        };
        (self.formats.is_empty() || self.formats.contains(&s.format))
            && listed(&self.models, &s.model)
            && listed(&self.projects, &s.project)
            && dated(self.since, |u, b| u >= b)
            && dated(self.until, |u, b| u < b)
    }
}

/// The values a fleet's sessions hold, for the filters to offer: each list sorted, once.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TuneFacets {
    /// Every session tuned, before the filter.
    pub sessions: usize,
    /// Their harnesses.
    pub formats: Vec<SourceFormat>,
    /// Their models.
    pub models: Vec<String>,
    /// Their projects.
    pub projects: Vec<String>,
    /// The earliest last-written date (ms since the epoch).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub first: Option<i64>,
    /// The latest.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub last: Option<i64>,
}

impl TuneFacets {
    fn of(sessions: &[SessionTune]) -> Self {
        let mut f = TuneFacets {
            sessions: sessions.len(),
            ..Default::default()
        };
        for s in sessions {
            f.formats.push(s.format);
            f.models.extend(s.model.clone());
            f.projects.extend(s.project.clone());
        }
        f.formats.sort();
        f.formats.dedup();
        for list in [&mut f.models, &mut f.projects] {
            list.sort();
            list.dedup();
        }
        f.first = sessions.iter().filter_map(|s| s.updated).min();
        f.last = sessions.iter().filter_map(|s| s.updated).max();
        f
    }
}

/// Midnight UTC of day `YYYY-MM-DD`, in ms since the epoch (`tune --since`, `--until`).
pub fn day_start(day: &str) -> Result<i64> {
    let d = chrono::NaiveDate::parse_from_str(day.trim(), "%Y-%m-%d")
        .map_err(|_| Error::OutOfRange(format!("not a day (YYYY-MM-DD): {day}")))?;
    Ok(d.and_time(chrono::NaiveTime::MIN)
        .and_utc()
        .timestamp_millis())
}

/// Opens a token cache for one thread (the caches are SQLite connections, one per thread).
pub type OpenCache<'a> = &'a (dyn Fn() -> Option<TokenCache> + Sync);

/// Tune every session under `paths` with `base` at each of `settings`, keeping and reusing
/// cells in `index` when given; the fleet's answer counts the sessions `filter` keeps (all are
/// tuned: their cells are kept for the next filter). `progress` is told `(done, total)` after
/// each session; `cancel`, once set, stops before the next session and answers `Cancelled`.
#[allow(clippy::too_many_arguments)]
pub fn tune(
    paths: &[PathBuf],
    base: &ReplayOptions,
    settings: &[Setting],
    filter: &TuneFilter,
    index: Option<&Mutex<Index>>,
    open_cache: OpenCache<'_>,
    progress: &(dyn Fn(usize, usize) + Sync),
    cancel: Option<&AtomicBool>,
) -> Result<TuneView> {
    let mut problems = Vec::new();
    // Each session with the source that listed it (asking a catalog per session would list
    // every source again each time).
    let mut work: Vec<(usize, usize, SessionMeta)> = Vec::new();
    let mut catalogs = Vec::new();
    for path in paths {
        let catalog = sources::open(path)?;
        problems.extend(catalog.problems.iter().map(Problem::from));
        catalogs.push(catalog);
    }
    for (c, catalog) in catalogs.iter().enumerate() {
        for (s, source) in catalog.sources.iter().enumerate() {
            match source.list() {
                Ok(metas) => work.extend(metas.into_iter().map(|m| (c, s, m))),
                Err(e) => problems.push(Problem::from(&e)),
            }
        }
    }
    let total = work.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    type Done = std::result::Result<(SessionTune, bool), Problem>;
    let out: Mutex<Vec<(usize, Done)>> = Mutex::default();
    // The setting keys: the whole options each setting makes, so a base that changed (another
    // window, another trigger) never answers from cells made under the old one.
    let keys: Vec<String> = settings
        .iter()
        .map(|s| serde_json::to_string(&s.apply(base)).unwrap_or_default())
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(total)
        .max(1);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let cache = open_cache();
                loop {
                    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        return;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((c, s, meta)) = work.get(k) else {
                        return;
                    };
                    let source = &catalogs[*c].sources[*s];
                    let ask = Ask {
                        base,
                        settings,
                        keys: &keys,
                        index,
                    };
                    let one = kept_or_tuned(source.as_ref(), meta, &ask, cache.as_ref());
                    out.lock()
                        .expect("no thread panicked holding it")
                        .push((k, one));
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }
    let mut results = out.into_inner().expect("no thread panicked holding it");
    results.sort_by_key(|(k, _)| *k);
    let mut sessions = Vec::new();
    let mut from_index = 0;
    for (_, r) in results {
        match r {
            Ok((s, kept)) => {
                from_index += usize::from(kept);
                sessions.push(s);
            }
            Err(p) => problems.push(p),
        }
    }
    let replayed = sessions.len() - from_index;
    let facets = TuneFacets::of(&sessions);
    sessions.retain(|s| filter.keeps(s));
    Ok(TuneView {
        replayed,
        from_index,
        tune: tune_fleet(base.policy, settings, sessions),
        problems,
        options: settings.iter().map(|s| s.apply(base)).collect(),
        facets,
    })
}

/// What every session is asked.
struct Ask<'a> {
    base: &'a ReplayOptions,
    settings: &'a [Setting],
    keys: &'a [String],
    index: Option<&'a Mutex<Index>>,
}

/// The index row of a session's listing data and recorded re-reads (its cells are keyed by
/// their settings, never empty).
const HEAD: &str = "";

/// The session's cells from the index where its file is as they were made of, the rest made
/// now and kept; true when none had to be made.
fn kept_or_tuned(
    source: &dyn sources::SessionSource,
    meta: &SessionMeta,
    ask: &Ask<'_>,
    cache: Option<&TokenCache>,
) -> std::result::Result<(SessionTune, bool), Problem> {
    let file = Path::new(&meta.path);
    let stamp = ask.index.and_then(|_| stamp_of(file));
    let kept = match (ask.index, &stamp) {
        (Some(ix), Some(stamp)) => ix
            .lock()
            .expect("no thread panicked holding it")
            .tune_cells(file, &meta.id, stamp)
            .unwrap_or_default(),
        _ => Default::default(),
    };
    let head: Option<SessionTune> = kept.get(HEAD).and_then(|h| serde_json::from_str(h).ok());
    // Cells count only beside their session's head row.
    let cells: Vec<Option<Cell>> = ask
        .keys
        .iter()
        .map(|k| {
            kept.get(k)
                .filter(|_| head.is_some())
                .and_then(|c| serde_json::from_str(c).ok())
        })
        .collect();
    if let Some(mut head) = head
        && cells.iter().all(Option::is_some)
    {
        head.cells = cells.into_iter().flatten().collect();
        return Ok((head, true));
    }
    let missing: Vec<usize> = (0..cells.len()).filter(|&k| cells[k].is_none()).collect();
    let asked: Vec<Setting> = missing.iter().map(|&k| ask.settings[k].clone()).collect();
    let mut made = one_session(source, meta, ask.base, &asked, cache)?;
    let mut fresh = std::mem::take(&mut made.cells).into_iter().zip(&missing);
    let mut rows = Vec::new();
    let mut all = Vec::with_capacity(cells.len());
    for (k, c) in cells.into_iter().enumerate() {
        let c = match c {
            Some(c) => c,
            None => {
                let (c, at) = fresh.next().expect("one made per missing setting");
                debug_assert_eq!(*at, k);
                rows.push((
                    ask.keys[k].clone(),
                    serde_json::to_string(&c).unwrap_or_default(),
                ));
                c
            }
        };
        all.push(c);
    }
    // Kept only when the file is still as it was before it was read: a copy read while the
    // file grew is not the file the stamp names.
    if let (Some(ix), Some(stamp)) = (ask.index, &stamp)
        && stamp_of(file).as_ref() == Some(stamp)
    {
        rows.push((
            HEAD.to_owned(),
            serde_json::to_string(&made).unwrap_or_default(),
        ));
        let _ = ix
            .lock()
            .expect("no thread panicked holding it")
            .save_tune_cells(file, &meta.id, stamp, &rows);
    }
    made.cells = all;
    Ok((made, false))
}

fn one_session(
    source: &dyn sources::SessionSource,
    meta: &SessionMeta,
    base: &ReplayOptions,
    settings: &[Setting],
    cache: Option<&TokenCache>,
) -> std::result::Result<SessionTune, Problem> {
    let session = source.load(&meta.id).map_err(|e| Problem::from(&e))?;
    let d = super::diagnose(&session, &super::DiagnoseOptions::default())
        .map_err(|e| Problem::from(&e))?;
    // Profiling: each long result counted afresh keeps its pieces for the caps to cut.
    let counter = super::replay::replay_counter(&session, cache).profiling();
    let cells = tune_session(&session, base, settings, &d.reread_events, &counter);
    let m = &session.meta;
    Ok(SessionTune {
        session_id: m.id.clone(),
        name: m.name.clone(),
        path: m.path.clone(),
        format: m.format,
        model: m.model.clone(),
        project: m.working_dir.clone(),
        updated: m.updated,
        recorded: d
            .reread_events
            .iter()
            .filter(|r| r.after_compaction.is_some())
            .count(),
        cells,
    })
}
