//! The service's use of the fleet index: a session opens from it when its file is unchanged since
//! it was indexed (the rows of a 200 MB transcript in a fraction of a second, the session read
//! behind them), and a source whose session had to be read from its file is indexed in the
//! background afterwards, one source at a time, so the next opening is quick; that update takes
//! the window's copy of the session ([`Read`]) instead of reading the file again while the file
//! is as it was read. The index is `palimpsest-index`'s; this only decides when.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use super::{IndexUse, SessionService};
use crate::api::{self, DiagnoseOptions};
use crate::error::Result;
use crate::index::{Given, Index};
use crate::model::Session;

impl SessionService {
    /// What `f` answers from the index as [`IndexUse`] says (a damaged index is set aside and
    /// asked again, and said); for [`IndexUse::Asked`], a question it cannot answer is said
    /// too, naming `path`.
    pub(super) fn ask<T>(
        &self,
        path: &str,
        f: impl FnMut(&mut Index) -> Result<Option<T>>,
    ) -> Option<T> {
        let found = self.ask_quietly(f);
        if found.is_none() {
            self.say_read_from(path);
        }
        found
    }

    /// For [`IndexUse::Asked`], say that `path` is read because the index does not hold it as
    /// it is.
    pub(super) fn say_read_from(&self, path: &str) {
        if matches!(self.index, IndexUse::Asked(_)) {
            self.say(format!(
                "not in the index as it is on disk now: read from {path}"
            ));
        }
    }

    /// [`SessionService::ask`] without saying that the index could not answer.
    pub(super) fn ask_quietly<T>(
        &self,
        mut f: impl FnMut(&mut Index) -> Result<Option<T>>,
    ) -> Option<T> {
        let at = match &self.index {
            IndexUse::Off => return None,
            IndexUse::Existing(at) => {
                let mut ix = Index::open(&existing_file(at)?).ok()?;
                return f(&mut ix).ok().flatten();
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
}

/// The index file a command may use only when it is there already: `at`, else the default one.
pub(super) fn existing_file(at: &Option<PathBuf>) -> Option<PathBuf> {
    at.clone()
        .or_else(Index::default_path)
        .filter(|p| p.is_file())
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
            // At the priority of the command that queued it (a thread starts at its parent's
            // nice value), never lower: a search or fleet command waits on this thread's write
            // lock on the index, and at nice 19 a busy machine starved the holder (a search
            // took 30 s, the fleet table over two minutes, behind it).
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
