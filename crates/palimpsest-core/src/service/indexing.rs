//! The service's use of the fleet index: a session opens from it when its file is unchanged since
//! it was indexed (the rows of a 200 MB transcript in a fraction of a second, the session read
//! behind them), and a source whose session had to be read from its file is indexed in the
//! background afterwards, one source at a time, so the next opening is quick; that update takes
//! the window's copy of the session ([`Read`]) instead of reading the file again while the file
//! is as it was read. The index is `palimpsest-index`'s; this only decides when.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use crate::api::{self, DiagnoseOptions};
use crate::index::{AsOf, Given};
use crate::model::Session;
use crate::views::timeline::Timeline;

/// The timeline of session `id` under `path` from the index, when it holds it as it is on
/// disk; `None` when it does not, or when the index cannot be opened (the file is read then).
pub(super) fn timeline(path: &str, id: &str) -> Option<Timeline> {
    let ix = api::open_index(None).ok()?;
    api::timeline_indexed(&ix, Path::new(path), Some(id))
        .ok()
        .flatten()
}

/// The rows the index holds of session `id` under `path` when its file is as indexed or only
/// grew since (`grown_bytes` says by how much): the first screen of a transcript an agent went
/// on writing, without waiting for it to be read whole.
pub(super) fn timeline_grown(path: &str, id: &str) -> Option<Timeline> {
    let ix = api::open_index(None).ok()?;
    api::timeline_indexed_grown(&ix, Path::new(path), Some(id))
        .ok()
        .flatten()
}

/// Every row the index holds of session `id` under `path`: as [`timeline`], or with
/// [`AsOf::Grown`] as [`timeline_grown`].
pub(super) fn timeline_rows(path: &str, id: &str, as_of: AsOf) -> Option<Timeline> {
    match as_of {
        AsOf::Same => timeline(path, id),
        AsOf::Grown => timeline_grown(path, id),
    }
}

/// The first `limit` rows of [`timeline_rows`], `total_rows` counting them all.
pub(super) fn timeline_head(path: &str, id: &str, as_of: AsOf, limit: usize) -> Option<Timeline> {
    let ix = api::open_index(None).ok()?;
    api::timeline_indexed_head(&ix, Path::new(path), Some(id), as_of, limit)
        .ok()
        .flatten()
}

/// Message `index` of session `id` under `path` read by offset through the index, when it
/// holds the file as it is or as it was before lines were appended (the window shows it while
/// the session is still being read).
pub(super) fn message(path: &str, id: &str, index: usize) -> Option<crate::views::MessageDetail> {
    let ix = api::open_index(None).ok()?;
    api::message_indexed_grown(&ix, Path::new(path), Some(id), index)
        .ok()
        .flatten()
}

/// The diagnosis of session `id` under `path` as the index made it, when it holds the file as
/// it is (the Post-mortem draws it without waiting for the session to be read whole).
pub(super) fn diagnosis(path: &str, id: &str) -> Option<crate::analysis::Diagnosis> {
    let ix = api::open_index(None).ok()?;
    api::diagnosis_indexed(&ix, Path::new(path), Some(id), &DiagnoseOptions::default())
        .ok()
        .flatten()
}

/// The token report of session `id` under `path` in `encoding` as the index made it, when it
/// holds the file as it is (the Tokens view draws it without waiting for the session).
pub(super) fn token_report(
    path: &str,
    id: &str,
    encoding: Option<crate::tokens::Encoding>,
) -> Option<crate::views::tokens::TokenReport> {
    let ix = api::open_index(None).ok()?;
    api::token_report_indexed(&ix, Path::new(path), Some(id), encoding)
        .ok()
        .flatten()
}

/// The cut view of session `id` under `path` as the index made it, when it holds the file as it
/// is (the ribbon, the cut marks and the Requests list without the session read whole).
pub(super) fn cut_view(path: &str, id: &str) -> Option<crate::views::cuts::SessionCuts> {
    let ix = api::open_index(None).ok()?;
    api::cut_view_indexed(&ix, Path::new(path), Some(id))
        .ok()
        .flatten()
}

/// What the model saw at request `number` of session `id` under `path`, from the index when it
/// holds the file as it is (the Requests tab without the session read whole).
pub(super) fn request_view(
    path: &str,
    id: &str,
    number: usize,
) -> Option<crate::views::cuts::RequestView> {
    let ix = api::open_index(None).ok()?;
    api::request_view_indexed(&ix, Path::new(path), Some(id), number)
        .ok()
        .flatten()
}

/// The recorded requests of session `id` under `path` when the index lists it as it is on disk
/// and no place its listing names holds a log (every Claude Code and Codex session): the
/// Requests tab then reads nothing of the session.
pub(super) fn nothing_recorded(
    path: &str,
    id: &str,
    state_home: Option<&Path>,
) -> Option<crate::api::RecordedSet> {
    let ix = api::open_index(None).ok()?;
    let (listed, _) = ix.listing(Path::new(path)).ok()??;
    let meta = listed.into_iter().find(|m| m.id == id)?;
    api::nothing_recorded(&api::recorded_dirs_of(&meta, state_home))
}

/// The spill review of session `id` under `path` from the spill files the index found in it
/// (the disk looked at now), when it holds the file as it is: the Spills tab without the
/// session read whole.
pub(super) fn spills(
    path: &str,
    id: &str,
    opts: &DiagnoseOptions,
) -> Option<crate::analysis::SpillReview> {
    let ix = api::open_index(None).ok()?;
    api::spills_indexed(&ix, Path::new(path), Some(id), opts)
        .ok()
        .flatten()
}

/// One spill file of session `id` under `path` with its text, found through the index as
/// [`spills`] does; `None` when the index does not hold the file as it is (a refusal is an
/// answer: `Some(Err)`).
pub(super) fn spill_text(
    path: &str,
    id: &str,
    file: &str,
    opts: &DiagnoseOptions,
    confirmation: crate::analysis::spill_text::Confirmation,
) -> Option<crate::error::Result<crate::analysis::SpillEntry>> {
    let review = spills(path, id, &api::unread(opts))?;
    Some(api::spill_text_in(&review, file, confirmation))
}

/// A session the window read from its source's file, for the index to take instead of reading
/// the file again when the file is still as it was ([`crate::index::Given`]).
pub struct Read {
    /// The session's id.
    pub id: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The file's fingerprint from before the read.
    pub print: crate::index::fingerprint::Fingerprint,
    /// The window's copy, while it keeps it.
    pub session: Weak<Session>,
}

impl Read {
    /// What the index takes ([`Given`]), while the window still keeps the copy.
    pub fn upgrade(self) -> Option<Given> {
        Some(Given {
            file: self.file,
            id: self.id,
            print: self.print,
            session: self.session.upgrade()?,
        })
    }
}

/// Sources waiting to be indexed (each with the session the window read from it, if any), and
/// whether the indexing thread is running.
pub(super) type Queue = (Vec<(PathBuf, Option<Read>)>, bool);

impl super::SessionService {
    /// Bring the index up to date for `path` in the background (after the window has what it
    /// asked for), from `read` when the window's copy is still there and its file unchanged (a
    /// 2 GB transcript is not read a second time, nor held twice). A source already waiting is
    /// not queued twice; one thread works through them.
    pub fn index_later(&self, path: &str, read: Option<Read>) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let p = PathBuf::from(path);
        match q.0.iter_mut().find(|(w, _)| *w == p) {
            Some(waiting) => waiting.1 = read.or(waiting.1.take()),
            None => q.0.push((p, read)),
        }
        if q.1 {
            return;
        }
        q.1 = true;
        let (queue, live) = (Arc::clone(&self.queue), self.live.get().cloned());
        std::thread::spawn(move || {
            // Behind whatever the window does: indexing a big transcript reads it whole again
            // unless the window's copy is taken.
            super::ahead::lowest_priority();
            loop {
                let (next, read) = {
                    let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
                    if q.0.is_empty() {
                        q.1 = false;
                        return;
                    }
                    q.0.remove(0)
                };
                // Upgraded only now: a copy the window let go of meanwhile is read from the file.
                let given: Vec<Given> = read.and_then(Read::upgrade).into_iter().collect();
                let done = api::open_index(None).and_then(|mut ix| {
                    api::index_update_given(
                        &mut ix,
                        std::slice::from_ref(&next),
                        &DiagnoseOptions::default(),
                        &given,
                    )
                });
                if let (Err(e), Some(live)) = (done, live.as_ref()) {
                    live.report(format!("cannot index {}: {e}", next.display()));
                }
            }
        });
    }
}
