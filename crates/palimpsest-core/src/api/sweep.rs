//! Sweeps that keep goose's digests in the index (`replay::digest`, `index::digests`): the
//! command's, which loads the session only when the index has no digest of the file as it is,
//! and the Replay tab's, which has the session loaded already. What a sweep computes is
//! `replay::options`'; this only decides where its input comes from.

use std::path::Path;

use crate::error::Result;
use crate::index::Index;
use crate::index::digests::stamp_of;
use crate::model::Session;
use crate::replay::digest::Digest;
use crate::replay::options::{PolicyName, ReplayOptions, goose_digests, sweep_digests};
use crate::replay::sweep::{Axis, Metric, SweepGrid};

/// goose's sweep of `path`'s session `id` over the tool-result `caps` (the columns): from the
/// digests `index` keeps when the transcript is as it was when they were made (no parse, no
/// count: what a second sweep of a 200 MB transcript costs is the sweep), else from the
/// session, whose digests are then kept. coworker's policy, a database and a run without an
/// index load the session every time. The cells are those of [`super::replay_sweep`] on the loaded
/// session.
pub fn replay_sweep_file(
    path: &Path,
    id: Option<&str>,
    opts: &ReplayOptions,
    rows: Axis,
    caps: Vec<usize>,
    metric: Metric,
    index: Option<&mut Index>,
) -> Result<SweptFile> {
    let cols = Axis::ToolResultCap(caps.clone());
    let cache = index.as_deref().and_then(Index::token_cache);
    let cache = cache.as_ref();
    let goose = opts.policy == PolicyName::Goose && matches!(rows, Axis::KeepTail(_));
    let stamp = goose
        .then(|| stamp_of(path))
        .flatten()
        .filter(|_| index.is_some());
    if let (Some(stamp), Some(ix)) = (&stamp, index.as_deref())
        && let Some(d) = ix.digests(path, id, stamp, &caps)?
        && let Some(grid) = sweep_digests(&d, opts, rows.clone(), cols.clone(), metric)
    {
        return Ok(SweptFile {
            grid,
            name: d[0].name.clone(),
            from_index: true,
        });
    }
    let session = super::load_session(path, id)?;
    let name = session.meta.name.clone();
    let (Some(stamp), Some(ix)) = (stamp, index) else {
        let grid = super::replay_sweep(&session, opts, rows, cols, metric, cache);
        return Ok(SweptFile {
            grid,
            name,
            from_index: false,
        });
    };
    let digests = made(&session, &caps, cache);
    // Kept only when the file did not change while it was read: a digest names what it was
    // made of.
    if stamp_of(path).as_deref() == Some(stamp.as_str()) {
        ix.save_digests(path, &session.meta.id, &stamp, &digests)?;
    }
    let grid = sweep_digests(&digests, opts, rows.clone(), cols.clone(), metric)
        .unwrap_or_else(|| super::replay_sweep(&session, opts, rows, cols, metric, cache));
    Ok(SweptFile {
        grid,
        name,
        from_index: false,
    })
}

/// A sweep of a session file ([`replay_sweep_file`]).
pub struct SweptFile {
    /// The grid.
    pub grid: SweepGrid,
    /// The session's name.
    pub name: String,
    /// True when it was swept from the index's digests, without reading the file.
    pub from_index: bool,
}

/// The Replay tab's sweep of a loaded `session` over its default grid
/// ([`crate::views::panels::default_axes`]): goose's from the index's digests when the file is as they
/// were made of, else from the session. Its digests are then kept when the index holds the
/// file as it is now and `session` is that one (the index's listing data equal the session's):
/// a session read before the file grew must not be kept under the grown file's fingerprint.
pub fn replay_sweep_view_indexed(
    session: &Session,
    opts: &ReplayOptions,
    metric: Metric,
    theme: crate::charts::ThemeName,
    index: Option<&mut Index>,
) -> Result<crate::views::panels::SweepView> {
    let (rows, cols) = crate::views::panels::default_axes(session, opts);
    let caps = match (&cols, opts.policy) {
        (Axis::ToolResultCap(c), PolicyName::Goose) => c.clone(),
        _ => Vec::new(),
    };
    // The file the session was read from (a source folder holds many).
    let path = Path::new(&session.meta.path);
    let stamp = stamp_of(path).filter(|_| !caps.is_empty());
    let id = session.meta.id.as_str();
    let cache = index.as_deref().and_then(Index::token_cache);
    let cache = cache.as_ref();
    let grid = match (stamp, index) {
        (Some(stamp), Some(ix)) => match ix.digests(path, Some(id), &stamp, &caps)? {
            Some(d) => sweep_digests(&d, opts, rows.clone(), cols.clone(), metric),
            None => {
                let digests = made(session, &caps, cache);
                if ix.holds_as_loaded(path, session)? {
                    ix.save_digests(path, id, &stamp, &digests)?;
                }
                sweep_digests(&digests, opts, rows.clone(), cols.clone(), metric)
            }
        },
        _ => None,
    }
    .unwrap_or_else(|| super::replay_sweep(session, opts, rows, cols, metric, cache));
    let title = crate::views::panels::sweep_title(session, metric);
    let svg = crate::charts::heatmap::heatmap_svg(&grid, &title, theme)?;
    Ok(crate::views::panels::SweepView { grid, svg })
}

/// goose's digests of `session` at `caps`, counted as every replay counts.
fn made(
    session: &Session,
    caps: &[usize],
    cache: Option<&crate::tokens::TokenCache>,
) -> Vec<Digest> {
    let counter = super::replay_counter(session, cache);
    let encoding = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    goose_digests(session, caps, encoding.as_str(), &counter)
}
