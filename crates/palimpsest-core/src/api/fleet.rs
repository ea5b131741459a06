//! The fleet operations of [`super`] on the index: bring it up to date, the fleet table from
//! it, search across every session. The index itself is `crate::index`'s; this only picks the
//! paths (the default session folders when none are given) and the index file.

use std::path::{Path, PathBuf};

use super::DiagnoseOptions;
use crate::error::Result;
use crate::index::{Index, IndexReport};

/// The default session folders of this machine that exist (`palimpsest sources`' list).
pub fn default_paths() -> Vec<PathBuf> {
    let m = crate::env::machine();
    crate::sources::discovery::default_locations(m.home(), &|k| m.var_str(k))
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.exists())
        .collect()
}

/// Open the index at `at`, or at its default place.
pub fn open_index(at: Option<&Path>) -> Result<Index> {
    match at {
        Some(p) => Index::open(p),
        None => Index::open_default(),
    }
}

/// Run `f` on the index at `at` (its default place when `None`), and once more on a new index
/// when the file turns out damaged while `f` runs (it is then set aside: a cache is built
/// again, never repaired). Returns `f`'s answer with what was done to the index, for the
/// caller to tell the user (damaged files set aside).
pub fn with_index<T>(
    at: Option<&Path>,
    mut f: impl FnMut(&mut Index) -> Result<T>,
) -> Result<(T, Vec<String>)> {
    let mut notices = Vec::new();
    let mut ix = open_index(at)?;
    notices.extend(ix.notice().map(str::to_owned));
    match f(&mut ix) {
        Err(crate::error::Error::CacheDamaged { message, .. }) => {
            notices.push(message);
            drop(ix);
            let mut ix = open_index(at)?;
            notices.extend(ix.notice().map(str::to_owned));
            Ok((f(&mut ix)?, notices))
        }
        done => Ok((done?, notices)),
    }
}

/// Bring the index up to date for `paths` (the default folders when empty).
pub fn index_update(
    index: &mut Index,
    paths: &[PathBuf],
    opts: &DiagnoseOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<IndexReport> {
    let paths = if paths.is_empty() {
        default_paths()
    } else {
        paths.to_vec()
    };
    index.update(&paths, opts, progress)
}

/// [`index_update`] of `paths` (not the default folders), indexing the sessions in `given`
/// from the copies the caller read ([`crate::index::Given`]) when their files are as read.
pub fn index_update_given(
    index: &mut Index,
    paths: &[PathBuf],
    opts: &DiagnoseOptions,
    given: &[crate::index::Given],
) -> Result<IndexReport> {
    index.update_given(paths, opts, &mut |_, _| {}, given)
}

/// Session `id` of the file `path` ([`super::load_session`]) with the file's fingerprint from
/// before the read, so an index update can take this copy ([`crate::index::Given`]) instead
/// of reading the file again. No fingerprint for a folder: which of its files the session is
/// in is known only once it is read.
pub fn load_session_printed(
    path: &Path,
    id: Option<&str>,
) -> Result<(
    crate::model::Session,
    Option<crate::index::fingerprint::Fingerprint>,
)> {
    let print = path
        .is_file()
        .then(|| crate::index::fingerprint::Fingerprint::of(path).ok())
        .flatten();
    Ok((super::load_session(path, id)?, print))
}

/// The fleet table of `path` from the index, brought up to date first (incrementally).
pub fn fleet_indexed(
    index: &mut Index,
    path: &Path,
    opts: &DiagnoseOptions,
) -> Result<crate::analysis::Fleet> {
    fleet_indexed_given(index, path, opts, &[], &mut |_, _| {})
}

/// [`fleet_indexed`], the update taking the sessions in `given` as read already (the app's
/// copy of a transcript it follows live): one whose file is as read is not read again.
/// `progress(done, total)` is called as changed sessions are indexed; `opts.cancel` stops it.
pub fn fleet_indexed_given(
    index: &mut Index,
    path: &Path,
    opts: &DiagnoseOptions,
    given: &[crate::index::Given],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<crate::analysis::Fleet> {
    let paths = [path.to_owned()];
    let report = index.update_given(&paths, opts, progress, given)?;
    index.fleet(&paths, report.problems, opts.price_table())
}

/// Search every indexed session under `paths` (the default folders when empty), after
/// bringing the index up to date for them.
pub fn search(
    index: &mut Index,
    paths: &[PathBuf],
    query: &crate::index::search::Query,
    opts: &DiagnoseOptions,
) -> Result<(Vec<crate::index::search::Hit>, IndexReport)> {
    search_given(index, paths, query, opts, &[])
}

/// [`search`], the update taking the sessions in `given` as read already (see
/// [`fleet_indexed_given`]).
pub fn search_given(
    index: &mut Index,
    paths: &[PathBuf],
    query: &crate::index::search::Query,
    opts: &DiagnoseOptions,
    given: &[crate::index::Given],
) -> Result<(Vec<crate::index::search::Hit>, IndexReport)> {
    let paths = if paths.is_empty() {
        default_paths()
    } else {
        paths.to_vec()
    };
    let report = index.update_given(&paths, opts, &mut |_, _| {}, given)?;
    Ok((index.search(&paths, query)?, report))
}

/// [`search`] without the index, for when it cannot be written (a read-only or full cache
/// folder): every session under `paths` (the default folders when empty) read and scanned, as
/// the index's answer is checked against ([`crate::index::search::scan`]). Slower, the same
/// hits.
pub fn search_unindexed(
    paths: &[PathBuf],
    query: &crate::index::search::Query,
) -> Result<(Vec<crate::index::search::Hit>, Vec<crate::error::Problem>)> {
    use crate::error::Problem;
    // Canonical, as the index keys them: the hits name the same files either way.
    let paths: Vec<PathBuf> = if paths.is_empty() {
        default_paths()
    } else {
        paths.to_vec()
    }
    .into_iter()
    .map(|p| p.canonicalize().unwrap_or(p))
    .collect();
    let mut sessions = Vec::new();
    let mut problems = Vec::new();
    for p in &paths {
        let catalog = match crate::sources::open(p) {
            Ok(c) => c,
            Err(e) => {
                problems.push(Problem::from(&e));
                continue;
            }
        };
        problems.extend(catalog.problems.iter().map(Problem::from));
        for source in &catalog.sources {
            match source.list() {
                Ok(metas) => {
                    for m in metas {
                        match source.load(&m.id) {
                            Ok(s) => sessions.push(s),
                            Err(e) => problems.push(Problem::from(&e)),
                        }
                    }
                }
                Err(e) => problems.push(Problem::from(&e)),
            }
        }
    }
    Ok((crate::index::search::scan(&sessions, query)?, problems))
}

/// Bring the index up to date for `paths` (the default folders when empty), then write every
/// session under them as Parquet files in `dir` (`crate::export`), priced at `opts`' table.
pub fn export_parquet(
    index: &mut Index,
    paths: &[PathBuf],
    dir: &Path,
    opts: &DiagnoseOptions,
    export: &crate::export::ExportOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(crate::export::ExportReport, IndexReport)> {
    let paths = if paths.is_empty() {
        default_paths()
    } else {
        paths.to_vec()
    };
    let report = index.update(&paths, opts, progress)?;
    let tables = crate::export::tables(index, &paths, opts.price_table(), export)?;
    Ok((crate::export::write(dir, &tables)?, report))
}
