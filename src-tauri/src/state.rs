//! What the app keeps between commands: the start-up sources (found on the first
//! `list_sources`, off the main thread, and followed live from then on) and the last session
//! loaded, so opening a message of a 100k-message session does not re-read the whole file.
//! A session whose rows came from the index is read whole only when a view asks for what the
//! index does not hold (the timeline, a message, the cut view, the Post-mortem and the Tokens
//! view answer from it), or, when an agent is still writing it, here in the background
//! ([`AppState::warm`]) while the window already shows its rows.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use palimpsest_core::api;
use palimpsest_core::model::{Session, SessionMeta};
use palimpsest_core::rpc::{ErrorCode, IpcError};
use palimpsest_core::tokens::counter::Counted;
use palimpsest_core::views::{SourceGroup, SourceOrigin};
use palimpsest_core::watch::Patch;

use crate::ahead::{ReadAhead, prime, read_ahead};
use crate::memo::Memo;
use crate::slot::Kept;

mod given;
mod timeline;

/// A source the app opens on start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupSource {
    /// Sidebar label.
    pub label: String,
    /// File or folder.
    pub path: PathBuf,
    /// Why it is shown.
    pub origin: SourceOrigin,
    /// The agent family of a default folder; `None` for a path argument or the fixtures.
    pub family: Option<palimpsest_core::model::Family>,
    /// Sessions counted without reading them (discovery's count); None when not counted.
    pub session_count: Option<usize>,
}

impl StartupSource {
    /// The sidebar group before its sessions are listed: name, path and count, and for a file
    /// of one conversation the session to open first (`api::first_conversation`).
    pub fn pending(&self) -> SourceGroup {
        SourceGroup {
            label: self.label.clone(),
            path: self.path.to_string_lossy().into_owned(),
            origin: self.origin,
            family: self.family,
            session_count: self.session_count,
            loaded: false,
            sessions: Vec::new(),
            problems: Vec::new(),
            opens: palimpsest_core::api::first_conversation(&self.path),
        }
    }
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
pub fn token_cache() -> Option<palimpsest_core::tokens::TokenCache> {
    palimpsest_core::tokens::TokenCache::default_dir()
        .and_then(|d| palimpsest_core::tokens::TokenCache::existing(&d))
}

/// The app's state, managed by tauri.
pub struct AppState {
    /// The path argument, if any (`locations::path_argument`).
    argument: Option<PathBuf>,
    /// Sources shown on start (`locations::startup_sources`), found on first use.
    startup: OnceLock<Vec<StartupSource>>,
    /// The last session loaded.
    loaded: Loaded,
    /// Heavy results for the session loaded last (post-mortem, token report).
    pub memo: Arc<Memo>,
    /// The session opened last (what a background read is still for).
    wanted: Wanted,
    /// The last timeline sent, `(path, id, rows)`: the window fetches it in pages.
    timeline: Mutex<Option<(String, String, timeline::Sent)>>,
    /// Where to send a source path to follow it live (`live::start`), once started.
    pub live: OnceLock<Sender<crate::live::ToLive>>,
    /// The sessions read ahead for the live follower, `(path, id)`: once each is enough.
    read_ahead: ReadAhead,
    /// Start-up sources whose live follower has taken its baseline.
    baselines: Arc<Baselines>,
    /// The first lines of the big transcript shown last, `(path, id, session)`, while it is
    /// read whole (`timeline_first_lines`).
    first_lines: Mutex<Option<(String, String, Arc<Session>)>>,
}

/// The start-up sources whose live follower has taken its baseline. A source is listed for the
/// window only after that (so nothing written between the two goes unreported), but the list
/// of sources, and so the first screen of a file given on the command line, does not wait for
/// it: the baseline of a 2 GB transcript no index holds lists it whole (3.5 s).
#[derive(Default)]
struct Baselines {
    taken: Mutex<std::collections::HashSet<String>>,
    changed: std::sync::Condvar,
}

impl Baselines {
    /// Wait until `path`'s baseline is taken.
    fn wait(&self, path: &str) {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while !taken.contains(path) {
            taken = self.changed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Marks `.1`'s baseline taken when dropped: a follower that panicked must not hold up the
/// listing for good.
struct Taken(Arc<Baselines>, String);

impl Drop for Taken {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(|e| e.into_inner());
        taken.insert(std::mem::take(&mut self.1));
        self.0.changed.notify_all();
    }
}

impl AppState {
    /// State for the given path argument, with nothing found or loaded yet.
    pub fn new(argument: Option<PathBuf>) -> Self {
        Self {
            argument,
            startup: OnceLock::new(),
            loaded: Arc::new(Mutex::new(None)),
            timeline: Mutex::new(None),
            wanted: Arc::new(Mutex::new(None)),
            memo: Arc::default(),
            live: OnceLock::new(),
            read_ahead: ReadAhead::default(),
            baselines: Arc::default(),
            first_lines: Mutex::new(None),
        }
    }

    /// The start-up sources, found on the first call (every family's default folder is looked
    /// at and counted, which must not hold up the window) and followed live from then on.
    pub fn startup(&self) -> &[StartupSource] {
        self.startup.get_or_init(|| {
            let found = crate::locations::startup_sources_here(self.argument.clone());
            for s in &found {
                let path = s.path.to_string_lossy().into_owned();
                let (live, taken) = (self.live.get().cloned(), Arc::clone(&self.baselines));
                std::thread::spawn(move || {
                    let taken = Taken(taken, path);
                    follow_with(live.as_ref(), &taken.1);
                });
            }
            found
        })
    }

    /// Wait until the live follower of start-up source `path` has taken its baseline, before
    /// the source is listed for the window; other paths need not wait.
    pub fn await_baseline(&self, path: &str) {
        if self.startup_source(path).is_some() {
            self.baselines.wait(path);
        }
    }

    /// The start-up source at `path`, if `path` is one.
    pub fn startup_source(&self, path: &str) -> Option<&StartupSource> {
        self.startup().iter().find(|s| s.path == Path::new(path))
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
        let (loaded, wanted) = (Arc::clone(&self.loaded), Arc::clone(&self.wanted));
        let memo = Arc::clone(&self.memo);
        let key = (path.to_owned(), id.to_owned());
        let live = self.live.get().cloned();
        let done = Arc::clone(&self.read_ahead);
        let meta = meta.clone();
        // The follower takes a read ahead only once it follows the source.
        let baseline = self
            .startup_source(path)
            .map(|_| Arc::clone(&self.baselines));
        std::thread::spawn(move || {
            // At the window's own priority: commands wait on this read (they take the slot it
            // holds), and a lowered read starved them on a busy machine.
            let Ok(mut guard) = lock(&loaded) else { return };
            let still = wanted.lock().is_ok_and(|w| w.as_ref() == Some(&key));
            if !still || guard.as_ref().is_some_and(|k| k.is(&key.0, &key.1)) {
                return;
            }
            if let Some(tx) = live.as_ref() {
                // The window reads the session where the read ahead keeps it, as soon as it is
                // read, and the slot is let go then: what the follower remembers is made after.
                let mut slot = Some(guard);
                let primed = read_ahead(&done, &key.0, &meta, |current, print| {
                    if let Some(mut g) = slot.take() {
                        *g = Some(Kept::read_ahead(&key.0, &key.1, current, &meta.path, print));
                    }
                });
                if let Some(primed) = primed {
                    // The follower goes on in the session the window reads, now in place.
                    if let Some(b) = &baseline {
                        b.wait(&key.0);
                    }
                    let _ = tx.send(crate::live::ToLive::Primed(key.0, Box::new(primed)));
                    return;
                }
                // Not read ahead: read for the window alone, the slot held again.
                guard = match slot {
                    Some(g) => g,
                    None => return,
                };
            }
            if let Err(e) = load_locked(&mut guard, &memo, &key.0, &key.1) {
                eprintln!(
                    "palimpsest-app: cannot read {} ({}): {}",
                    key.0, key.1, e.message
                );
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

    /// Follow `path` live from now on. Call it before listing the source for the window: the
    /// baseline is taken here, on the caller's thread, so a session written between the listing
    /// and the watcher thread picking the source up is still reported. A file that grew since
    /// it was indexed starts from the index's listing (`Tracker::following`) instead of being
    /// listed whole first; the read behind the window's rows then becomes the baseline.
    pub fn follow(&self, path: &str) {
        follow_with(self.live.get(), path);
    }
}

/// [`AppState::follow`] through `live`, when it is started.
fn follow_with(live: Option<&Sender<crate::live::ToLive>>, path: &str) {
    let Some(tx) = live else { return };
    match palimpsest_core::watch::Tracker::following(
        Path::new(path),
        None,
        palimpsest_core::watch::READ_AHEAD_WAIT,
    ) {
        Ok(tracker) => {
            let _ = tx.send(crate::live::ToLive::Follow(path.to_owned(), tracker));
        }
        Err(e) => eprintln!("palimpsest-app: not following {path}: {e}"),
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{AppState, Baselines, Taken};

    /// A source is listed once its follower took its baseline, even when that follower
    /// panicked: the listing must not wait for good.
    #[test]
    fn a_listing_waits_for_its_baseline_and_a_failed_follower_releases_it() {
        let b = Arc::new(Baselines::default());
        let (quick, failing) = (Arc::clone(&b), Arc::clone(&b));
        let t1 = std::thread::spawn(move || {
            let _taken = Taken(quick, "/a".into());
            std::thread::sleep(std::time::Duration::from_millis(50));
        });
        let t2 = std::thread::spawn(move || {
            let _taken = Taken(failing, "/b".into());
            panic!("a follower that failed");
        });
        b.wait("/a");
        b.wait("/b");
        assert!(
            t1.join().is_ok() && t2.join().is_err(),
            "one follower ended, one panicked"
        );
        let taken = b.taken.lock().unwrap();
        assert!(
            taken.contains("/a") && taken.contains("/b"),
            "both baselines count as taken"
        );
    }

    /// The start-up sources are listed at once; a source's listing then waits for its own
    /// baseline only (without a live thread, the follower has nothing to do).
    #[test]
    fn the_sources_come_before_their_baselines() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let state = AppState::new(Some(fixtures));
        let found = state.startup();
        assert_eq!(found.len(), 1, "the argument is the one source");
        let path = found[0].path.to_string_lossy().into_owned();
        state.await_baseline(&path);
        state.await_baseline("/not/a/start-up/source");
    }
}
