//! Following every open source at once, for the app: [`watch`](crate::watch)'s changes turned
//! into [`LiveEvent`]s that carry compact timeline rows and the source they belong to.
//!
//! A [`Follower`] keeps one [`Tracker`] per source (a goose `sessions.db`, a session file, a
//! Claude Code / Codex / coworker folder) and one [`FsWatch`] over all of them, rebuilt when a
//! source is added. [`Follower::poll`] blocks until something changed (or the poll interval
//! passed) and returns what changed, in order, already shaped for the UI: the whole `Message`s
//! of a change become [`TimelineRow`]s so a burst of large tool results never crosses IPC whole.
//! Asked to ([`Follower::observe`]), it also keeps what each look changed for an alerter
//! ([`crate::watch::Observed`]), which the app runs on a thread of its own.
//! Threads, event emission and the app's caches are the app's business (`src-tauri/src/live.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::Problem;
use crate::error::Result;
use crate::model::{CompactionRecord, SessionMeta};
use crate::views::timeline::{TimelineRow, row};
use crate::watch::{Change, FsWatch, Tracker};

/// One change to a followed source, as the app's UI applies it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LiveEvent {
    /// A session appeared under `path`.
    SessionAdded {
        /// The source path ([`crate::views::SourceGroup::path`]).
        path: String,
        /// Its listing.
        session: SessionMeta,
    },
    /// Rows were added at the end of a session.
    Appended {
        /// The source path.
        path: String,
        /// The session id.
        session_id: String,
        /// The new rows, in order; `index` is the position in the session.
        rows: Vec<TimelineRow>,
    },
    /// Everything from `from_index` on was replaced by `rows`.
    Rewritten {
        /// The source path.
        path: String,
        /// The session id.
        session_id: String,
        /// First index that differs.
        from_index: usize,
        /// The rows from `from_index` to the end, as they are now.
        rows: Vec<TimelineRow>,
    },
    /// Rows kept their content but changed visibility (a compaction hid the originals).
    VisibilityChanged {
        /// The source path.
        path: String,
        /// The session id.
        session_id: String,
        /// `(index, agent_visible, user_visible)` as they are now.
        rows: Vec<(usize, bool, bool)>,
    },
    /// A compaction appeared: a new cut.
    Compaction {
        /// The source path.
        path: String,
        /// The session id.
        session_id: String,
        /// The compaction as the reader recorded it.
        record: CompactionRecord,
    },
    /// Something could not be read; the rest is still followed.
    Problem {
        /// The source path.
        path: String,
        /// What went wrong, naming the file.
        problem: Problem,
    },
}

impl LiveEvent {
    /// The session the event is about, when it is about one.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            LiveEvent::SessionAdded { session, .. } => Some(&session.id),
            LiveEvent::Appended { session_id, .. }
            | LiveEvent::Rewritten { session_id, .. }
            | LiveEvent::VisibilityChanged { session_id, .. }
            | LiveEvent::Compaction { session_id, .. } => Some(session_id),
            LiveEvent::Problem { .. } => None,
        }
    }

    /// The source path the event belongs to.
    pub fn path(&self) -> &str {
        match self {
            LiveEvent::SessionAdded { path, .. }
            | LiveEvent::Appended { path, .. }
            | LiveEvent::Rewritten { path, .. }
            | LiveEvent::VisibilityChanged { path, .. }
            | LiveEvent::Compaction { path, .. }
            | LiveEvent::Problem { path, .. } => path,
        }
    }
}

/// A tracker's change as a UI event of source `path`.
pub fn live_event(path: &str, change: Change) -> LiveEvent {
    let path = path.to_owned();
    match change {
        Change::SessionAdded { session } => LiveEvent::SessionAdded { path, session },
        Change::Appended {
            session_id,
            messages,
        } => LiveEvent::Appended {
            path,
            session_id,
            rows: messages.iter().map(row).collect(),
        },
        Change::Rewritten {
            session_id,
            from_index,
            messages,
        } => LiveEvent::Rewritten {
            path,
            session_id,
            from_index,
            rows: messages.iter().map(row).collect(),
        },
        Change::VisibilityChanged {
            session_id,
            messages,
        } => LiveEvent::VisibilityChanged {
            path,
            session_id,
            rows: messages,
        },
        Change::Compaction { session_id, record } => LiveEvent::Compaction {
            path,
            session_id,
            record,
        },
        Change::Problem { problem } => LiveEvent::Problem { path, problem },
    }
}

/// Follows a set of sources; see the module docs.
pub struct Follower {
    sources: Vec<(String, Tracker)>,
    fs: Option<FsWatch>,
    /// When the sources were last listed; with no notification they are listed again only
    /// after [`SAFETY_POLL`], since listing a large database on every wake-up costs real CPU.
    last_refresh: Instant,
    /// A source was added and not yet looked at since its baseline.
    pending: bool,
    /// What each look changed, per source, kept for an alerter when the caller asked for it
    /// ([`Follower::observe`]).
    observed: Option<Vec<(String, crate::watch::Observed)>>,
    /// Patches taken for `observed`, kept for [`Follower::take_patches`].
    kept: Vec<(String, crate::watch::Patch)>,
}

/// How often sources are listed again when no notification came (what notify can miss: network
/// file systems, some checkpoints).
pub const SAFETY_POLL: Duration = Duration::from_secs(5);

impl Default for Follower {
    fn default() -> Self {
        Self::new()
    }
}

impl Follower {
    /// Following nothing yet.
    pub fn new() -> Self {
        Follower {
            sources: Vec::new(),
            fs: None,
            last_refresh: Instant::now(),
            pending: false,
            observed: None,
            kept: Vec::new(),
        }
    }

    /// Keep what each look changed for an alerter ([`Follower::take_observed`]) from now on,
    /// with the many sessions of a fleet read on line by line ([`crate::watch::FOLLOWED`]).
    pub fn observe(&mut self) {
        for (_, t) in &mut self.sources {
            t.keep_up_to(crate::watch::FOLLOWED);
        }
        self.observed.get_or_insert_with(Vec::new);
    }

    /// What changed since the last call, per source path (nothing unless
    /// [`Follower::observe`] was called).
    pub fn take_observed(&mut self) -> Vec<(String, crate::watch::Observed)> {
        self.observed
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The source paths followed, as given.
    pub fn paths(&self) -> Vec<&str> {
        self.sources.iter().map(|(p, _)| p.as_str()).collect()
    }

    /// Follow the source at `path` from its current state on (what exists now is not
    /// reported). Adding a path already followed does nothing.
    pub fn add(&mut self, path: &str) -> Result<()> {
        if self.sources.iter().any(|(p, _)| p == path) {
            return Ok(());
        }
        self.add_tracker(path, Tracker::new(Path::new(path), None)?)
    }

    /// Follow `path` from the baseline `tracker` took. A caller that lists the source for the
    /// window takes the baseline first (on its own thread), so whatever is written between that
    /// listing and this thread picking the source up is still reported (at worst twice, which
    /// the window's merge by session id and message index absorbs).
    pub fn add_tracker(&mut self, path: &str, mut tracker: Tracker) -> Result<()> {
        if self.sources.iter().any(|(p, _)| p == path) {
            return Ok(());
        }
        tracker.keep_patches();
        if self.observed.is_some() {
            tracker.keep_up_to(crate::watch::FOLLOWED);
        }
        self.sources.push((path.to_owned(), tracker));
        let paths: Vec<PathBuf> = self.sources.iter().map(|(p, _)| p.into()).collect();
        self.fs = Some(FsWatch::new(&paths)?);
        self.pending = true;
        Ok(())
    }

    /// Hand the tracker of source `path` a transcript read ahead ([`Tracker::adopt`]); returns
    /// whether it was taken.
    pub fn adopt(&mut self, path: &str, primed: crate::watch::Primed) -> bool {
        self.sources
            .iter_mut()
            .find(|(p, _)| p == path)
            .is_some_and(|(_, t)| t.adopt(primed))
    }

    /// Wait until a followed file changed or `poll` passed, then report what changed in every
    /// source, in order. Without a notification the sources are only listed again once
    /// [`SAFETY_POLL`] has passed (or right after a source was added).
    pub fn poll(&mut self, poll: Duration) -> Vec<LiveEvent> {
        let notified = match &self.fs {
            Some(fs) => fs.wait(poll),
            None => {
                std::thread::sleep(poll);
                false
            }
        };
        if notified || self.pending || self.last_refresh.elapsed() >= SAFETY_POLL {
            self.refresh()
        } else {
            Vec::new()
        }
    }

    /// Report what changed since the last call, without waiting.
    pub fn refresh(&mut self) -> Vec<LiveEvent> {
        self.last_refresh = Instant::now();
        self.pending = false;
        let mut out = Vec::new();
        for (path, tracker) in &mut self.sources {
            let changes = tracker.refresh();
            if let Some(observed) = self.observed.as_mut() {
                let patches = tracker.take_patches();
                self.kept
                    .extend(patches.iter().map(|p| (path.clone(), p.clone())));
                let o = crate::watch::Observed::of(&changes, patches);
                if !o.is_empty() {
                    observed.push((path.clone(), o));
                }
            }
            out.extend(changes.into_iter().map(|c| live_event(path, c)));
        }
        out
    }

    /// What changed in each session since the last call, as `(source path, patch)`: what the
    /// app keeps of a session followed live is patched with these rather than read again.
    pub fn take_patches(&mut self) -> Vec<(String, crate::watch::Patch)> {
        let mut out = std::mem::take(&mut self.kept);
        for (path, tracker) in &mut self.sources {
            out.extend(
                tracker
                    .take_patches()
                    .into_iter()
                    .map(|p| (path.clone(), p)),
            );
        }
        out
    }
}
