//! The requests an agent recorded for a loaded session, each beside the one rebuilt from it
//! (`palimpsest context --recorded`, the Requests tab's "recorded request"). Reading the logs is
//! the source's (`sources::goose::requests`); placing and diffing them `compaction::recorded`'s.

use std::path::{Path, PathBuf};

use crate::compaction::Eras;
use crate::compaction::recorded::Held;
use crate::error::Problem;
use crate::model::{Session, SessionMeta, SourceFormat};
use crate::sources::goose::requests;
pub use crate::views::RecordedSet;

/// Where the logs of `session` may be: `dirs` when given, else the source's own places
/// (goose: [`requests::log_dirs`]; other formats keep none).
pub fn recorded_dirs(session: &Session, state_home: Option<&Path>) -> Vec<PathBuf> {
    recorded_dirs_of(&session.meta, state_home)
}

/// [`recorded_dirs`] of the session listed as `meta`: they depend on its listing alone.
pub fn recorded_dirs_of(meta: &SessionMeta, state_home: Option<&Path>) -> Vec<PathBuf> {
    match meta.format {
        SourceFormat::Goose => requests::log_dirs(Path::new(&meta.path), state_home),
        _ => Vec::new(),
    }
}

/// What [`recorded`] gives when none of `dirs` holds a log (nothing to place, so nothing of
/// the session is read: a caller that has not loaded it need not); `None` when one does.
pub fn nothing_recorded(dirs: &[PathBuf]) -> Option<RecordedSet> {
    dirs.iter()
        .all(|d| requests::logs_in(d).is_empty())
        .then(none)
}

/// The set of a session no log was found for.
fn none() -> RecordedSet {
    RecordedSet {
        dir: None,
        logs: 0,
        matched: Vec::new(),
        problems: Vec::new(),
    }
}

/// Read the logs of the first of `dirs` that holds any and keep those that are `session`'s.
pub fn recorded(session: &Session, dirs: &[PathBuf]) -> RecordedSet {
    let Some((dir, logs)) = dirs
        .iter()
        .map(|d| (d, requests::logs_in(d)))
        .find(|(_, l)| !l.is_empty())
    else {
        return none();
    };
    let eras = Eras::new(session);
    let held = Held::new(session);
    let mut set = RecordedSet {
        dir: Some(dir.display().to_string()),
        logs: logs.len(),
        matched: Vec::new(),
        problems: Vec::new(),
    };
    for f in &logs {
        match requests::read(f) {
            Ok(log) => {
                if let Some(c) = held
                    .locate(&eras, &log)
                    .and_then(|n| held.compare(&eras, n, &log))
                {
                    set.matched.push(c);
                }
            }
            Err(e) => set.problems.push(Problem::from(&e)),
        }
    }
    set
}
