//! The operations the CLI and the app share, and the data they exchange.
//!
//! Both front ends call these functions and serialise these types as they are (`--json` prints
//! exactly what the app receives), so a view's data comes from one place. Logic lives in the
//! concern modules; this file only composes them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta};
use crate::sources;

/// An error as front ends show it: a stable code and a message naming the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Problem {
    /// Stable machine code ([`Error::code`]).
    pub code: String,
    /// Human message naming the file (and line or row).
    pub message: String,
}

impl From<&Error> for Problem {
    fn from(e: &Error) -> Self {
        Problem {
            code: e.code().to_owned(),
            message: e.to_string(),
        }
    }
}

/// The sessions under a path, and what failed to open there.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionList {
    /// Every session found, newest update first.
    pub sessions: Vec<SessionMeta>,
    /// Files that failed, each naming its file; the rest still loads.
    pub problems: Vec<Problem>,
}

/// List every session under `path` (a file or a folder).
pub fn list_sessions(path: &Path) -> Result<SessionList> {
    let catalog = sources::open(path)?;
    let (mut sessions, list_problems) = catalog.list();
    sessions.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
    let problems = catalog
        .problems
        .iter()
        .chain(list_problems.iter())
        .map(Problem::from)
        .collect();
    Ok(SessionList { sessions, problems })
}

/// Load one session; `id` may be omitted when `path` holds exactly one.
pub fn load_session(path: &Path, id: Option<&str>) -> Result<Session> {
    sources::open(path)?.load(path, id)
}
