//! The requests an agent recorded for a loaded session, each beside the one rebuilt from it
//! (`palimpsest context --recorded`, the Requests tab's "recorded request"). Reading the logs is
//! the source's (`sources::goose::requests`); placing and diffing them `compaction::recorded`'s.

use std::path::{Path, PathBuf};

use crate::compaction::Eras;
use crate::compaction::recorded::Held;
use crate::error::Problem;
use crate::model::{Session, SourceFormat};
use crate::sources::goose::requests;
pub use crate::views::RecordedSet;

/// Where the logs of `session` may be: `dirs` when given, else the source's own places
/// (goose: [`requests::log_dirs`]; other formats keep none).
pub fn recorded_dirs(session: &Session, state_home: Option<&Path>) -> Vec<PathBuf> {
    match session.meta.format {
        SourceFormat::Goose => requests::log_dirs(Path::new(&session.meta.path), state_home),
        _ => Vec::new(),
    }
}

/// Read the logs of the first of `dirs` that holds any and keep those that are `session`'s.
pub fn recorded(session: &Session, dirs: &[PathBuf]) -> RecordedSet {
    let Some((dir, logs)) = dirs
        .iter()
        .map(|d| (d, requests::logs_in(d)))
        .find(|(_, l)| !l.is_empty())
    else {
        return RecordedSet {
            dir: None,
            logs: 0,
            matched: Vec::new(),
            problems: Vec::new(),
        };
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
