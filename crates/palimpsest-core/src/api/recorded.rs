//! The requests an agent recorded for a loaded session, each beside the one rebuilt from it
//! (`palimpsest context --recorded`, the Requests tab's "recorded request"). Reading the logs is
//! the source's (goose: `sources::goose::requests`, a folder of one log per request; Aider:
//! `sources::aider::recorded`, one request log beside the chat log); placing and diffing them
//! `compaction::recorded`'s.

use std::path::{Path, PathBuf};

use crate::compaction::Eras;
use crate::compaction::recorded::Held;
use crate::error::Problem;
use crate::model::{Session, SessionMeta, SourceFormat};
use crate::sources::aider;
use crate::sources::goose::requests;
pub use crate::views::RecordedSet;

/// Where the logs of `session` may be: `dirs` when given, else the source's own places
/// (goose: [`requests::log_dirs`]; Aider: the `.aider.llm.history` file beside its chat log;
/// other formats keep none).
pub fn recorded_dirs(session: &Session, state_home: Option<&Path>) -> Vec<PathBuf> {
    recorded_dirs_of(&session.meta, state_home)
}

/// [`recorded_dirs`] of the session listed as `meta`: they depend on its listing alone.
pub fn recorded_dirs_of(meta: &SessionMeta, state_home: Option<&Path>) -> Vec<PathBuf> {
    match meta.format {
        SourceFormat::Goose => requests::log_dirs(Path::new(&meta.path), state_home),
        SourceFormat::Aider => vec![Path::new(&meta.path).with_file_name(aider::LLM_LOG)],
        _ => Vec::new(),
    }
}

/// What [`recorded`] gives when none of `dirs` holds a log (nothing to place, so nothing of
/// the session is read: a caller that has not loaded it need not); `None` when one does.
pub fn nothing_recorded(dirs: &[PathBuf]) -> Option<RecordedSet> {
    dirs.iter().all(|d| logs_in(d).is_empty()).then(none)
}

/// The logs at `d`: a folder's request logs, or the request log `d` is.
fn logs_in(d: &Path) -> Vec<PathBuf> {
    if d.is_file() {
        vec![d.to_owned()]
    } else {
        requests::logs_in(d)
    }
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
        .map(|d| (d, logs_in(d)))
        .find(|(_, l)| !l.is_empty())
    else {
        return none();
    };
    let eras = Eras::new(session);
    let held = Held::new(session);
    let mut set = RecordedSet {
        dir: Some(dir.display().to_string()),
        logs: 0,
        matched: Vec::new(),
        problems: Vec::new(),
    };
    for f in &logs {
        // goose logs one request per file; Aider every request of the chat log in one.
        let read = match session.meta.format {
            SourceFormat::Aider => {
                aider::recorded(Path::new(&session.meta.path), f, &session.meta.id)
            }
            _ => requests::read(f).map(|log| vec![log]),
        };
        match read {
            Ok(read) => {
                set.logs += read.len();
                set.matched.extend(read.iter().filter_map(|log| {
                    held.locate(&eras, log)
                        .and_then(|n| held.compare(&eras, n, log))
                }));
            }
            Err(e) => set.problems.push(Problem::from(&e)),
        }
    }
    set
}
