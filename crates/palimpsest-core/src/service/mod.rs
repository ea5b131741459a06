//! The session service: one place that loads a session once and shares it with the live
//! follower, reads ahead, keeps the views derived from it, and decides for each view whether
//! the index answers (the index is a cache behind it: a file unchanged since it was indexed,
//! or only grown, opens from its rows) or the file is read, indexing its source afterwards.
//! The app's commands are calls on it ([`SessionService`]); following files and telling the
//! window are the app's, reached through [`Live`]. A session whose rows came from the index is
//! read whole only when a view asks for what the index does not hold, or, when an agent is
//! still writing it, in the background ([`SessionService::warm`]) while the window already
//! shows its rows.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use crate::api;
use crate::model::{Session, SessionMeta};
use crate::rpc::{ErrorCode, IpcError};
use crate::tokens::counter::Counted;
use crate::watch::{Patch, Primed};

use ahead::{ReadAhead, prime, read_ahead};
pub use indexing::Read;
pub use memo::Memo;
use slot::Kept;
pub use sweep::{SweepAsk, Swept};
pub use views::Messages;

pub mod ahead;
pub mod baselines;
pub mod cache;
mod fleet;
mod given;
pub mod indexing;
mod memo;
mod slot;
pub mod startup;
mod sweep;
mod timeline;
mod views;

/// What the service needs of the app's live follower.
pub trait Live: Send + Sync {
    /// Take `primed`, a transcript of source `source` read ahead: its next change is read on
    /// from there.
    fn primed(&self, source: &str, primed: Primed);
    /// Wait until the follower of `source` has taken its baseline, when it is a source the
    /// app follows from start (a read ahead handed over before that would be lost).
    fn await_baseline(&self, source: &str);
    /// A background read or index update failed: tell the user (a log line).
    fn report(&self, problem: String);
}

/// How recently a transcript must have been written for the service to read it ahead when it
/// is shown: one an agent is still writing, not a finished session opened for a post-mortem.
pub const WRITTEN_WITHIN: Duration = Duration::from_secs(10 * 60);

/// True when `file` was written in the last [`WRITTEN_WITHIN`]: an agent is likely still
/// writing it.
pub fn being_written(file: &str) -> bool {
    std::fs::metadata(file)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|w| w <= WRITTEN_WITHIN)
}

/// Where the service looks for what the fleet index keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum IndexUse {
    /// The user's index at its default place, made when missing and set aside when damaged,
    /// and brought up to date in the background after a view read a file (with a [`Live`]
    /// app): the window.
    #[default]
    Kept,
    /// The index at this file (its default place when `None`), and a view it cannot answer
    /// says so ([`SessionService::take_notices`]): a command run with `--index`.
    Asked(Option<PathBuf>),
    /// The index at this file (its default place when `None`) only when it exists already:
    /// a command on one file makes none.
    Existing(Option<PathBuf>),
    /// Never: every view reads the file (`--no-index`).
    Off,
}

/// The slot of the last session loaded, with the live changes waiting for it.
type Slot = Option<Kept>;

/// The last session loaded, shared with the background reads.
type Loaded = Arc<Mutex<Slot>>;

/// The session the window opened last, `(path, id)`: a background read of one it has left is
/// skipped rather than queued in front of the one it shows now.
type Wanted = Arc<Mutex<Option<(String, String)>>>;

/// The user's token cache, when it exists: the counts the Tokens tab and the index made, which
/// the views and replays reuse (the cut view counts in BPE once its session is counted). The
/// app reads the environment for it; core never does.
pub fn token_cache() -> Option<crate::tokens::TokenCache> {
    crate::tokens::TokenCache::default_dir().and_then(|d| crate::tokens::TokenCache::existing(&d))
}

/// The sessions the window works on: the last one loaded, what was derived from it, the
/// timeline being paged, the reads ahead. Shared by every command (all methods take `&self`).
#[derive(Default)]
pub struct SessionService {
    /// The last session loaded.
    loaded: Loaded,
    /// Heavy results for the session loaded last (post-mortem, token report).
    pub memo: Arc<Memo>,
    /// The session opened last (what a background read is still for).
    wanted: Wanted,
    /// The last timeline sent, `(path, id, rows)`: the window fetches it in pages.
    timeline: Mutex<Option<(String, String, timeline::Sent)>>,
    /// The app's live follower, once started.
    live: OnceLock<Arc<dyn Live>>,
    /// The sessions read ahead for the live follower, `(path, id)`: once each is enough.
    read_ahead: ReadAhead,
    /// The first lines of the big transcript shown last, `(path, id, session)`, while it is
    /// read whole (`timeline_first_lines`).
    first_lines: Mutex<Option<(String, String, Arc<Session>)>>,
    /// Sources waiting to be indexed, and whether the indexing thread runs.
    queue: Arc<Mutex<indexing::Queue>>,
    /// Where views look for the index's answers.
    index: IndexUse,
    /// What the index had to say since the last [`SessionService::take_notices`].
    notices: Mutex<Vec<String>>,
}

impl SessionService {
    /// A service asking the index as `index` says.
    pub fn new(index: IndexUse) -> Self {
        Self {
            index,
            ..Self::default()
        }
    }

    /// What the index had to say since the last call: a damaged index set aside, or, for
    /// [`IndexUse::Asked`], each view it could not answer.
    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut *self.notices.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The session id under `path`: `id` when given, else the one session `path` holds (from
    /// the index's listing or sweep digests when it holds `path` as it is, else read, and kept
    /// for the view that asks next). An error names `path` when it holds none or several.
    pub fn resolve(&self, path: &str, id: Option<&str>) -> Result<String, IpcError> {
        if let Some(id) = id {
            return Ok(id.to_owned());
        }
        let listed = self.ask_quietly(|ix| {
            Ok(ix
                .listing(Path::new(path))?
                .map(|(sessions, _)| sessions.into_iter().map(|m| m.id).collect::<Vec<_>>()))
        });
        if let Some([id]) = listed.as_deref() {
            return Ok(id.clone());
        }
        // A transcript only swept so far: its sweep digests name its session.
        if let Some(stamp) = crate::index::digests::stamp_of(Path::new(path))
            && let Some(id) = self.ask_quietly(|ix| ix.digested_session(Path::new(path), &stamp))
        {
            return Ok(id);
        }
        self.say_read_from(path);
        let mut slot = lock(&self.loaded)?;
        let (session, print) = api::load_session_printed(Path::new(path), None)?;
        let id = session.meta.id.clone();
        *slot = Some(Kept::read(path, &id, Arc::new(session), print));
        Ok(id)
    }

    /// Hand the service the app's live follower (once; later calls are ignored).
    pub fn set_live(&self, live: Arc<dyn Live>) {
        let _ = self.live.set(live);
    }

    /// Session `id` under `path`, from memory when it is the last one loaded.
    pub fn session(&self, path: &str, id: &str) -> Result<Arc<Session>, IpcError> {
        load_into(&self.loaded, &self.memo, path, id)
    }

    /// The counts of a loaded session once it is counted (the views then count in BPE as the
    /// Tokens tab does), made once per loaded copy: making them reads every text of the session,
    /// and each request step or cut asks for them. Until the session is counted they are asked
    /// for again, so a count made in the Tokens tab reaches the views.
    pub fn counts(&self, session: &Arc<Session>) -> Option<Arc<Counted>> {
        self.memo.get_some(session, "session_counts", || {
            api::session_counts(session, token_cache().as_ref()).map(Arc::new)
        })
    }

    /// Session `id` under `path` when it is loaded now; `None` while a read holds the slot or
    /// another session is kept (never waits).
    pub fn loaded_now(&self, path: &str, id: &str) -> Option<Arc<Session>> {
        let slot = self.loaded.try_lock().ok()?;
        slot.as_ref().filter(|k| k.is(path, id)).map(Kept::ready)
    }

    /// Read session `id` under `path` (listed as `meta`) in the background, so the commands
    /// that need it whole (a message, the cuts, the tabs) find it loaded; they wait for this
    /// load, never start a second one. Skipped when, by the time the read could start, the
    /// window has opened another session (clicking through big sessions must not queue a read
    /// of each). An agent is still writing it, so the live follower is read ahead too, and one
    /// read gives both: the window reads the session where the follower keeps it (two reads
    /// at once kept both cores from the window, and two copies doubled the app's memory).
    pub fn warm(&self, path: &str, id: &str, meta: &SessionMeta) {
        // Only a window reads behind what it shows; a command answers and ends.
        if self.live.get().is_none() {
            return;
        }
        let (loaded, wanted) = (Arc::clone(&self.loaded), Arc::clone(&self.wanted));
        let memo = Arc::clone(&self.memo);
        let key = (path.to_owned(), id.to_owned());
        let live = self.live.get().cloned();
        let done = Arc::clone(&self.read_ahead);
        let meta = meta.clone();
        std::thread::spawn(move || {
            // At the window's own priority: commands wait on this read (they take the slot it
            // holds), and a lowered read starved them on a busy machine.
            let Ok(mut guard) = lock(&loaded) else { return };
            let still = wanted.lock().is_ok_and(|w| w.as_ref() == Some(&key));
            if !still || guard.as_ref().is_some_and(|k| k.is(&key.0, &key.1)) {
                return;
            }
            if let Some(live) = live.as_ref() {
                // The window reads the session where the read ahead keeps it, as soon as it is
                // read, and the slot is let go then: what the follower remembers is made after.
                let mut slot = Some(guard);
                let primed = read_ahead(live.as_ref(), &done, &key.0, &meta, |current, print| {
                    if let Some(mut g) = slot.take() {
                        *g = Some(Kept::read_ahead(&key.0, &key.1, current, &meta.path, print));
                    }
                });
                if let Some(primed) = primed {
                    // The follower goes on in the session the window reads, now in place.
                    live.await_baseline(&key.0);
                    live.primed(&key.0, primed);
                    return;
                }
                // Not read ahead: read for the window alone, the slot held again.
                guard = match slot {
                    Some(g) => g,
                    None => return,
                };
            }
            if let Err(e) = load_locked(&mut guard, &memo, &key.0, &key.1)
                && let Some(live) = live.as_ref()
            {
                live.report(format!("cannot read {} ({}): {}", key.0, key.1, e.message));
            }
        });
    }

    /// Bring the kept session the live follower saw change up to date: read where the follower
    /// keeps it from now on, or taken whole when the follower read it whole and keeps none,
    /// when the slot holds it or the window shows it. The timeline made from the old copy
    /// goes. Skipped while a load holds the slot: that load reads the file as it is now anyway.
    pub fn patched(&self, path: &str, patch: &Patch) {
        let id = patch.session_id().to_owned();
        self.forget_timeline(path, &id);
        let shown = self
            .wanted
            .lock()
            .is_ok_and(|w| w.as_ref().is_some_and(|(p, i)| p == path && *i == id));
        let Ok(mut slot) = self.loaded.try_lock() else {
            return;
        };
        if shown || slot.as_ref().is_some_and(|k| k.is(path, &id)) {
            *slot = Kept::of(path, &id, patch);
        }
    }

    /// Forget the cached copy of session `id` under `path` (it changed on disk).
    pub fn forget(&self, path: &str, id: &str) {
        self.forget_timeline(path, id);
        if let Ok(mut loaded) = self.loaded.lock()
            && loaded.as_ref().is_some_and(|k| k.is(path, id))
        {
            *loaded = None;
        }
    }
}

/// Session `id` under `path` from `loaded` when it is the one kept there (with the live
/// changes waiting for it applied), else loaded and kept.
fn load_into(loaded: &Loaded, memo: &Memo, path: &str, id: &str) -> Result<Arc<Session>, IpcError> {
    // The lock is held while loading so two commands for the same session read it once.
    load_locked(&mut *lock(loaded)?, memo, path, id)
}

/// The loaded-session slot, locked.
fn lock(loaded: &Loaded) -> Result<MutexGuard<'_, Slot>, IpcError> {
    loaded.lock().map_err(|_| IpcError {
        code: ErrorCode::Internal,
        message: "a previous load panicked; reopen the session".into(),
    })
}

/// [`load_into`] with the slot already locked.
fn load_locked(
    slot: &mut Slot,
    memo: &Memo,
    path: &str,
    id: &str,
) -> Result<Arc<Session>, IpcError> {
    if let Some(kept) = slot.as_ref().filter(|k| k.is(path, id)) {
        let session = kept.ready();
        // The counts made for it before the follower changed it hold for it now.
        memo.carry(&session, "session_counts");
        return Ok(session);
    }
    let (session, print) = api::load_session_printed(Path::new(path), Some(id))?;
    let session = Arc::new(session);
    *slot = Some(Kept::read(path, id, Arc::clone(&session), print));
    Ok(session)
}
