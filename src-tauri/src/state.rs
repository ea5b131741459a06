//! What the app keeps between commands: the start-up sources (found on the first
//! `list_sources`, off the main thread, and followed live from then on) and the last session
//! loaded, so opening a message of a 100k-message session does not re-read the whole file.
//! A session whose rows came from the index is read here in the background ([`AppState::warm`])
//! while the window already shows them.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, OnceLock};

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::rpc::{ErrorCode, IpcError, SourceGroup, SourceOrigin};
use palimpsest_core::timeline::Timeline;

/// A source the app opens on start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupSource {
    /// Sidebar label.
    pub label: String,
    /// File or folder.
    pub path: PathBuf,
    /// Why it is shown.
    pub origin: SourceOrigin,
    /// The agent family of a default folder (`goose`, `claude-code`...); empty otherwise.
    pub family: String,
    /// Sessions counted without reading them (discovery's count); None when not counted.
    pub session_count: Option<usize>,
}

impl StartupSource {
    /// The sidebar group before its sessions are listed: name, path and count only.
    pub fn pending(&self) -> SourceGroup {
        SourceGroup {
            label: self.label.clone(),
            path: self.path.to_string_lossy().into_owned(),
            origin: self.origin,
            family: self.family.clone(),
            session_count: self.session_count,
            loaded: false,
            sessions: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// The last session loaded: `(path, id, session)`.
type Loaded = Arc<Mutex<Option<(String, String, Arc<Session>)>>>;

/// The app's state, managed by tauri.
pub struct AppState {
    /// The path argument, if any (`locations::path_argument`).
    argument: Option<PathBuf>,
    /// Sources shown on start (`locations::startup_sources`), found on first use.
    startup: OnceLock<Vec<StartupSource>>,
    /// The last session loaded.
    loaded: Loaded,
    /// Heavy results for the session loaded last (post-mortem, token report).
    pub memo: crate::memo::Memo,
    /// The last timeline sent, `(path, id, timeline)`: the window fetches it in pages.
    timeline: Mutex<Option<(String, String, Arc<Timeline>)>>,
    /// Where to send a source path to follow it live (`live::start`), once started.
    pub live: OnceLock<Sender<crate::live::Followed>>,
}

impl AppState {
    /// State for the given path argument, with nothing found or loaded yet.
    pub fn new(argument: Option<PathBuf>) -> Self {
        Self {
            argument,
            startup: OnceLock::new(),
            loaded: Arc::new(Mutex::new(None)),
            timeline: Mutex::new(None),
            memo: crate::memo::Memo::default(),
            live: OnceLock::new(),
        }
    }

    /// The start-up sources, found on the first call (every family's default folder is looked
    /// at and counted, which must not hold up the window) and followed live from then on.
    pub fn startup(&self) -> &[StartupSource] {
        self.startup.get_or_init(|| {
            let found = crate::locations::startup_sources_here(self.argument.clone());
            for s in &found {
                self.follow(&s.path.to_string_lossy());
            }
            found
        })
    }

    /// The start-up source at `path`, if `path` is one.
    pub fn startup_source(&self, path: &str) -> Option<&StartupSource> {
        self.startup().iter().find(|s| s.path == Path::new(path))
    }

    /// Session `id` under `path`, from memory when it is the last one loaded.
    pub fn session(&self, path: &str, id: &str) -> Result<Arc<Session>, IpcError> {
        load_into(&self.loaded, path, id)
    }

    /// Read session `id` under `path` in the background, so the commands that need it whole
    /// (a message, the cuts, the tabs) find it loaded; they wait for this load, never start a
    /// second one.
    pub fn warm(&self, path: &str, id: &str) {
        let (loaded, path, id) = (Arc::clone(&self.loaded), path.to_owned(), id.to_owned());
        std::thread::spawn(move || {
            if let Err(e) = load_into(&loaded, &path, &id) {
                eprintln!("palimpsest-app: cannot read {path} ({id}): {}", e.message);
            }
        });
    }

    /// The timeline of session `id` under `path`; `fresh` looks it up again (from the index
    /// when it holds the file as it is, the session then read behind it; else from the file,
    /// whose source is indexed afterwards), otherwise the one sent last is reused for its next
    /// page.
    pub fn timeline(&self, path: &str, id: &str, fresh: bool) -> Result<Arc<Timeline>, IpcError> {
        let mut kept = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        if !fresh
            && let Some((p, i, t)) = kept.as_ref()
            && p == path
            && i == id
        {
            return Ok(Arc::clone(t));
        }
        let t = match crate::indexing::timeline(path, id) {
            Some(t) => {
                self.warm(path, id);
                t
            }
            None => {
                let t = api::timeline(&*self.session(path, id)?);
                crate::indexing::later(path);
                t
            }
        };
        let t = Arc::new(t);
        *kept = Some((path.to_owned(), id.to_owned(), Arc::clone(&t)));
        Ok(t)
    }

    /// Forget the cached copy of session `id` under `path` (it changed on disk).
    pub fn forget(&self, path: &str, id: &str) {
        if let Ok(mut kept) = self.timeline.lock()
            && kept.as_ref().is_some_and(|(p, i, _)| p == path && i == id)
        {
            *kept = None;
        }
        if let Ok(mut loaded) = self.loaded.lock()
            && loaded
                .as_ref()
                .is_some_and(|(p, i, _)| p == path && i == id)
        {
            *loaded = None;
        }
    }

    /// Follow `path` live from now on. Call it before listing the source for the window: the
    /// baseline is taken here, on the caller's thread, so a session written between the listing
    /// and the watcher thread picking the source up is still reported.
    pub fn follow(&self, path: &str) {
        let Some(tx) = self.live.get() else { return };
        match palimpsest_core::watch::Tracker::new(Path::new(path), None) {
            Ok(tracker) => {
                let _ = tx.send((path.to_owned(), tracker));
            }
            Err(e) => eprintln!("palimpsest-app: not following {path}: {e}"),
        }
    }
}

/// Session `id` under `path` from `loaded` when it is the one kept there, else loaded and kept.
fn load_into(loaded: &Loaded, path: &str, id: &str) -> Result<Arc<Session>, IpcError> {
    // The lock is held while loading so two commands for the same session read it once.
    let mut loaded = loaded.lock().map_err(|_| IpcError {
        code: ErrorCode::Internal,
        message: "a previous load panicked; reopen the session".into(),
    })?;
    if let Some((p, i, s)) = loaded.as_ref()
        && p == path
        && i == id
    {
        return Ok(Arc::clone(s));
    }
    let session = Arc::new(api::load_session(Path::new(path), Some(id))?);
    *loaded = Some((path.to_owned(), id.to_owned(), Arc::clone(&session)));
    Ok(session)
}
