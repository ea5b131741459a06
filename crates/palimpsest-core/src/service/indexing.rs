//! The service's use of the fleet index: a session opens from it when its file is unchanged since
//! it was indexed (the rows of a 200 MB transcript in a fraction of a second, the session read
//! behind them), and a source whose session had to be read from its file is indexed in the
//! background afterwards, one source at a time, so the next opening is quick; that update takes
//! the window's copy of the session ([`Read`]) instead of reading the file again while the file
//! is as it was read. The index is `palimpsest-index`'s; this only decides when.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use super::{IndexUse, SessionService};
use crate::api::{self, DiagnoseOptions, RecordedSet};
use crate::error::Result;
use crate::index::{AsOf, Given, Index};
use crate::model::Session;
use crate::views::MessageDetail;
use crate::views::cuts::{RequestView, SessionCuts};
use crate::views::timeline::Timeline;
use crate::views::tokens::TokenReport;

impl SessionService {
    /// What `f` answers from the index as [`IndexUse`] says (a damaged index is set aside and
    /// asked again, and said); for [`IndexUse::Asked`], a question it cannot answer is said
    /// too, naming `path`.
    pub(super) fn ask<T>(
        &self,
        path: &str,
        f: impl FnMut(&Index) -> Result<Option<T>>,
    ) -> Option<T> {
        let found = self.ask_quietly(f);
        if found.is_none() && matches!(self.index, IndexUse::Asked(_)) {
            self.say(format!(
                "not in the index as it is on disk now: read from {path}"
            ));
        }
        found
    }

    /// [`SessionService::ask`] without saying that the index could not answer.
    pub(super) fn ask_quietly<T>(
        &self,
        mut f: impl FnMut(&Index) -> Result<Option<T>>,
    ) -> Option<T> {
        let at = match &self.index {
            IndexUse::Off => return None,
            IndexUse::Existing(at) => {
                let file = at.clone().or_else(Index::default_path)?;
                let ix = file.is_file().then(|| Index::open(&file).ok()).flatten()?;
                return f(&ix).ok().flatten();
            }
            IndexUse::Kept => None,
            IndexUse::Asked(at) => at.as_deref(),
        };
        match api::with_index(at, |ix| f(ix)) {
            Ok((found, notices)) => {
                for n in notices {
                    self.say(n);
                }
                found
            }
            Err(e) => {
                if matches!(self.index, IndexUse::Asked(_)) {
                    self.say(format!("cannot read the index: {e}"));
                }
                None
            }
        }
    }

    /// Keep `notice` for [`SessionService::take_notices`], once.
    pub(super) fn say(&self, notice: String) {
        let mut notices = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        if !notices.contains(&notice) {
            notices.push(notice);
        }
    }

    /// The timeline of session `id` under `path` from the index, when it holds it as it is on
    /// disk; `None` when it does not, or when the index cannot be opened (the file is read then).
    pub(super) fn indexed_timeline(&self, path: &str, id: &str) -> Option<Timeline> {
        self.ask(path, |ix| {
            super::cache::timeline_indexed(ix, Path::new(path), Some(id))
        })
    }

    /// The rows the index holds of session `id` under `path` when its file is as indexed or
    /// only grew since (`grown_bytes` says by how much): the first screen of a transcript an
    /// agent went on writing, without waiting for it to be read whole.
    pub(super) fn indexed_timeline_grown(&self, path: &str, id: &str) -> Option<Timeline> {
        self.ask_quietly(|ix| super::cache::timeline_indexed_grown(ix, Path::new(path), Some(id)))
    }

    /// Every row the index holds of session `id` under `path`, as of `as_of`.
    pub(super) fn indexed_rows(&self, path: &str, id: &str, as_of: AsOf) -> Option<Timeline> {
        match as_of {
            AsOf::Same => self.indexed_timeline(path, id),
            AsOf::Grown => self.indexed_timeline_grown(path, id),
        }
    }

    /// The first `limit` rows of [`SessionService::indexed_rows`], `total_rows` counting them all.
    pub(super) fn indexed_head(
        &self,
        path: &str,
        id: &str,
        as_of: AsOf,
        limit: usize,
    ) -> Option<Timeline> {
        self.ask_quietly(|ix| {
            super::cache::timeline_indexed_head(ix, Path::new(path), Some(id), as_of, limit)
        })
    }

    /// Message `index` of session `id` under `path` read by offset through the index, when it
    /// holds the file as it is, or, for the window, as it was before lines were appended (the
    /// window shows it while the session is still being read; a command answers only what
    /// equals the file).
    pub(super) fn indexed_message(
        &self,
        path: &str,
        id: &str,
        index: usize,
    ) -> Option<MessageDetail> {
        let grown = self.index == IndexUse::Kept;
        self.ask(path, |ix| {
            if grown {
                super::cache::message_indexed_grown(ix, Path::new(path), Some(id), index)
            } else {
                super::cache::message_indexed(ix, Path::new(path), Some(id), index)
            }
        })
    }

    /// The diagnosis of session `id` under `path` as the index made it, when it holds the
    /// file as it is (the index keeps the default options' diagnosis).
    pub(super) fn indexed_diagnosis(
        &self,
        path: &str,
        id: &str,
        opts: &DiagnoseOptions,
    ) -> Option<crate::analysis::Diagnosis> {
        self.ask(path, |ix| {
            super::cache::diagnosis_indexed(ix, Path::new(path), Some(id), opts)
        })
    }

    /// The token report of session `id` under `path` in `encoding` as the index made it, when
    /// it holds the file as it is, cut to `report`'s top lists and priced with `prices`.
    pub(super) fn indexed_token_report(
        &self,
        path: &str,
        id: &str,
        encoding: Option<crate::tokens::Encoding>,
        report: &crate::views::tokens::ReportOptions,
        prices: &crate::cost::PriceTable,
    ) -> Option<TokenReport> {
        self.ask(path, |ix| {
            super::cache::token_report_indexed_as(
                ix,
                Path::new(path),
                Some(id),
                encoding,
                report,
                prices,
            )
        })
    }

    /// The cut view of session `id` under `path` as the index made it, when it holds the file
    /// as it is (the ribbon, the cut marks and the Requests list without the session read).
    pub(super) fn indexed_cut_view(&self, path: &str, id: &str) -> Option<SessionCuts> {
        self.ask(path, |ix| {
            super::cache::cut_view_indexed(ix, Path::new(path), Some(id))
        })
    }

    /// What the model saw at request `number`, from the index when it holds the file as it is.
    pub(super) fn indexed_request_view(
        &self,
        path: &str,
        id: &str,
        number: usize,
    ) -> Option<RequestView> {
        self.ask(path, |ix| {
            super::cache::request_view_indexed(ix, Path::new(path), Some(id), number)
        })
    }

    /// The context of request `number` (`None`: the next one), from the index when it holds
    /// the file as it is, its messages read back by offset.
    pub(super) fn indexed_request_context(
        &self,
        path: &str,
        id: &str,
        number: Option<usize>,
    ) -> Option<crate::compaction::RequestContext> {
        self.ask(path, |ix| {
            super::cache::request_context_indexed(ix, Path::new(path), Some(id), number)
        })
    }

    /// The recorded requests of session `id` under `path` when the index lists it as it is on
    /// disk and no place its listing names holds a log (every Claude Code and Codex session):
    /// the empty set without reading the session.
    pub(super) fn indexed_nothing_recorded(
        &self,
        path: &str,
        id: &str,
        state_home: Option<&Path>,
    ) -> Option<RecordedSet> {
        self.ask_quietly(|ix| {
            let Some((listed, _)) = ix.listing(Path::new(path))? else {
                return Ok(None);
            };
            Ok(listed
                .into_iter()
                .find(|m| m.id == id)
                .and_then(|meta| api::nothing_recorded(&api::recorded_dirs_of(&meta, state_home))))
        })
    }

    /// The spill review of session `id` under `path` from the spill files the index found in
    /// it (the disk looked at now), when it holds the file as it is.
    pub(super) fn indexed_spills(
        &self,
        path: &str,
        id: &str,
        opts: &DiagnoseOptions,
    ) -> Option<crate::analysis::SpillReview> {
        self.ask(path, |ix| {
            super::cache::spills_indexed(ix, Path::new(path), Some(id), opts)
        })
    }

    /// Session `id` under `path` message by message from the index, when it holds the file as
    /// it is and can give back every message (a Claude Code transcript): `show` of a 200 MB
    /// transcript then holds one message at a time.
    pub(super) fn indexed_messages(
        &self,
        path: &str,
        id: &str,
    ) -> Option<crate::index::StoredMessages> {
        self.ask_quietly(|ix| super::cache::messages_indexed(ix, Path::new(path), Some(id)))
    }
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
        // Only the window keeps the index up to date behind its views; a command asks it.
        if self.index != IndexUse::Kept || self.live.get().is_none() {
            return;
        }
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
