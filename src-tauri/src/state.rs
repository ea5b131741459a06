//! What the app keeps between commands: the session service (core's, which loads, shares and
//! derives the sessions the window shows) and the start-up sources (found on the first
//! `list_sources`, off the main thread, and followed live from then on). The service reaches
//! the live follower through [`Following`], this app's [`Live`].

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};

use palimpsest_core::service::baselines::Baselines;
use palimpsest_core::service::startup::{self, StartupSource};
use palimpsest_core::service::{Live, SessionService};
use palimpsest_core::watch::Primed;

/// The user's token cache, when it exists (see [`palimpsest_core::service::token_cache`]).
pub use palimpsest_core::service::token_cache;

/// The app's state, managed by tauri: the session service and the start-up sources.
pub struct AppState {
    /// The path argument, if any (`startup::path_argument`).
    argument: Option<PathBuf>,
    /// Sources shown on start (`startup::startup_sources`), found on first use.
    startup: OnceLock<Vec<StartupSource>>,
    /// The sessions the window works on.
    pub service: SessionService,
    /// Where to send a source path to follow it live (`live::start`), once started.
    live: Arc<OnceLock<Sender<crate::live::ToLive>>>,
    /// Start-up sources whose live follower has taken its baseline.
    baselines: Arc<Baselines>,
    /// The start-up sources' paths, once found (what a read ahead's hand-over waits on).
    startup_paths: Arc<OnceLock<Vec<String>>>,
    /// Where to send the alert settings (`alerts::start`), once started.
    alerts: OnceLock<Sender<crate::alerts::ToAlerts>>,
}

impl std::ops::Deref for AppState {
    type Target = SessionService;
    fn deref(&self) -> &SessionService {
        &self.service
    }
}

/// The app's live follower as the service sees it: read-ahead transcripts go to the live
/// thread, a hand-over waits for a start-up source's baseline, problems are logged.
struct Following {
    live: Arc<OnceLock<Sender<crate::live::ToLive>>>,
    baselines: Arc<Baselines>,
    /// The start-up sources' paths, once found.
    startup: Arc<OnceLock<Vec<String>>>,
}

impl Live for Following {
    fn primed(&self, source: &str, primed: Primed) {
        if let Some(tx) = self.live.get() {
            let _ = tx.send(crate::live::ToLive::Primed(
                source.to_owned(),
                Box::new(primed),
            ));
        }
    }

    fn await_baseline(&self, source: &str) {
        if self
            .startup
            .get()
            .is_some_and(|s| s.iter().any(|s| s == source))
        {
            self.baselines.wait(source);
        }
    }

    fn report(&self, problem: String) {
        eprintln!("palimpsest-app: {problem}");
    }
}

impl AppState {
    /// State for the given path argument, with nothing found or loaded yet.
    pub fn new(argument: Option<PathBuf>) -> Self {
        let state = Self {
            argument,
            startup: OnceLock::new(),
            service: SessionService::default(),
            live: Arc::default(),
            baselines: Arc::default(),
            startup_paths: Arc::default(),
            alerts: OnceLock::new(),
        };
        state.service.set_live(Arc::new(Following {
            live: Arc::clone(&state.live),
            baselines: Arc::clone(&state.baselines),
            startup: Arc::clone(&state.startup_paths),
        }));
        state
    }

    /// The start-up sources, found on the first call (every family's default folder is looked
    /// at and counted, which must not hold up the window) and followed live from then on.
    pub fn startup(&self) -> &[StartupSource] {
        self.startup.get_or_init(|| {
            let found = startup::startup_sources_here(self.argument.clone());
            let _ = self.startup_paths.set(
                found
                    .iter()
                    .map(|s| s.path.to_string_lossy().into_owned())
                    .collect(),
            );
            for s in &found {
                let path = s.path.to_string_lossy().into_owned();
                let (live, taken) = (self.live.get().cloned(), Arc::clone(&self.baselines));
                std::thread::spawn(move || {
                    let taken = taken.taken_on_drop(path);
                    follow_with(live.as_ref(), taken.path());
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

    /// Start following live: `tx` takes the sources to follow and the transcripts read ahead.
    pub fn set_live(&self, tx: Sender<crate::live::ToLive>) {
        let _ = self.live.set(tx);
    }

    /// Where the alert settings go (`alerts::start`).
    pub fn set_alerts(&self, tx: Sender<crate::alerts::ToAlerts>) {
        let _ = self.alerts.set(tx);
    }

    /// Alerts on (at `rules`, the post-mortem's when `None`) or off, on the desktop too or
    /// not: the thresholds in effect.
    pub fn alerts(
        &self,
        on: bool,
        notify: bool,
        rules: Option<palimpsest_core::analysis::alerts::AlertRules>,
    ) -> palimpsest_core::analysis::alerts::AlertRules {
        let rules = rules.unwrap_or_default();
        let alerter =
            on.then(|| Box::new(palimpsest_core::watch::Alerter::new(rules.clone(), None)));
        if let Some(tx) = self.alerts.get() {
            let _ = tx.send(crate::alerts::ToAlerts::Set { alerter, notify });
        }
        rules
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

#[cfg(test)]
mod tests {
    use super::AppState;

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
