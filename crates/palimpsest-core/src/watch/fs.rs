//! File-system notifications for the sessions [`super::Tracker`] follows: notify's events turned
//! into "something under these paths changed", debounced; what changed is the tracker's to
//! find out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::error::{Error, Result};

/// File-system notifications for a set of paths, debounced into "something changed".
pub struct FsWatch {
    _watcher: notify::RecommendedWatcher,
    rx: mpsc::Receiver<()>,
}

/// How long a burst of writes may go on before it is reported as one change.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

impl FsWatch {
    /// Watch `paths` (files or folders, recursively). A file is watched through its folder so
    /// SQLite's `-wal` and `-shm` companions and atomic renames are seen too.
    pub fn new(paths: &[PathBuf]) -> Result<Self> {
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(ev) = res
                && !matches!(ev.kind, notify::EventKind::Access(_))
            {
                let _ = tx.send(());
            }
        })
        .map_err(|e| Error::Watch(format!("cannot watch files: {e}")))?;
        let mut dirs: HashMap<PathBuf, RecursiveMode> = HashMap::new();
        for p in paths {
            if p.is_dir() {
                dirs.insert(p.clone(), RecursiveMode::Recursive);
            } else {
                let parent = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                dirs.entry(parent.to_owned())
                    .or_insert(RecursiveMode::NonRecursive);
            }
        }
        for (dir, mode) in dirs {
            watcher
                .watch(&dir, mode)
                .map_err(|e| Error::Watch(format!("cannot watch {}: {e}", dir.display())))?;
        }
        Ok(FsWatch {
            _watcher: watcher,
            rx,
        })
    }

    /// Block until something changed (then let the burst settle for [`DEBOUNCE`]) or `timeout`
    /// passed. Returns true when a change was seen; callers refresh on both, since a poll
    /// catches what notifications miss (network file systems, some WAL checkpoints).
    pub fn wait(&self, timeout: Duration) -> bool {
        match self.rx.recv_timeout(timeout) {
            Ok(()) => {
                let settle = Instant::now() + DEBOUNCE;
                while let Some(left) = settle.checked_duration_since(Instant::now()) {
                    if self.rx.recv_timeout(left).is_err() {
                        break;
                    }
                }
                true
            }
            Err(_) => false,
        }
    }
}
