//! The fleet tuned (`tune`, the window's Tune view): every session under the paths asked
//! replayed under every setting of a grid, measured against its own recorded re-reads (from its
//! diagnosis), and summed into the fleet's answer with its Pareto front and knee. Sessions run
//! on as many threads as there are cores, each with its own token cache. Replaying and summing
//! are `crate::replay::tune`'s and `tune_fleet`'s; this loads, diagnoses and counts.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Problem;
use crate::error::{Error, Result};
use crate::model::SessionMeta;
use crate::replay::options::ReplayOptions;
use crate::replay::tune::{Setting, tune_session};
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
}

/// Opens a token cache for one thread (the caches are SQLite connections, one per thread).
pub type OpenCache<'a> = &'a (dyn Fn() -> Option<TokenCache> + Sync);

/// Tune every session under `paths` with `base` at each of `settings`. `progress` is told
/// `(done, total)` after each session; `cancel`, once set, stops before the next session and
/// answers `Cancelled`.
pub fn tune(
    paths: &[PathBuf],
    base: &ReplayOptions,
    settings: &[Setting],
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
    let out: Mutex<Vec<(usize, std::result::Result<SessionTune, Problem>)>> = Mutex::default();
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
                    let one = one_session(source.as_ref(), meta, base, settings, cache.as_ref());
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
    for (_, r) in results {
        match r {
            Ok(s) => sessions.push(s),
            Err(p) => problems.push(p),
        }
    }
    Ok(TuneView {
        tune: tune_fleet(base.policy, settings, sessions),
        problems,
    })
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
    let counter = super::replay::replay_counter(&session, cache);
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
