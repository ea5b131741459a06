//! What the app keeps between commands: the start-up sources and the last session loaded, so
//! opening a message of a 100k-message session does not re-read the whole file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::rpc::{ErrorCode, IpcError, SourceOrigin};

/// A source the app opens on start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupSource {
    /// Sidebar label.
    pub label: String,
    /// File or folder.
    pub path: PathBuf,
    /// Why it is shown.
    pub origin: SourceOrigin,
}

/// The app's state, managed by tauri.
pub struct AppState {
    /// Sources shown on start (`locations::startup_sources`).
    pub startup: Vec<StartupSource>,
    /// The last session loaded: `(path, id, session)`.
    loaded: Mutex<Option<(String, String, Arc<Session>)>>,
}

impl AppState {
    /// State with the given start-up sources and nothing loaded.
    pub fn new(startup: Vec<StartupSource>) -> Self {
        Self {
            startup,
            loaded: Mutex::new(None),
        }
    }

    /// Session `id` under `path`, from memory when it is the last one loaded.
    pub fn session(&self, path: &str, id: &str) -> Result<Arc<Session>, IpcError> {
        // The lock is held while loading so two commands for the same session read it once.
        let mut loaded = self.loaded.lock().map_err(|_| IpcError {
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
}
