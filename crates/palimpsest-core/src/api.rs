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

// ---- Token accounting (`crate::tokens`) and its charts (`crate::charts`). ----

/// Options of [`token_report`].
#[derive(Debug, Clone, Default)]
pub struct TokenOptions {
    /// The vocabulary; `None` picks it from the session's model.
    pub encoding: Option<crate::tokens::Encoding>,
    /// Where the count cache lives; `None` counts without caching.
    pub cache_dir: Option<std::path::PathBuf>,
    /// Views: how many top tools/parts, which trigger line.
    pub report: crate::tokens::report::ReportOptions,
}

/// Count a loaded session's tokens (reusing and filling the cache) and build the Tokens view.
/// `progress` is called as counting advances; setting `cancel` stops it with `Error::Cancelled`.
pub fn token_report(
    session: &Session,
    opts: &TokenOptions,
    progress: &mut dyn FnMut(crate::tokens::Progress),
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<crate::tokens::report::TokenReport> {
    use crate::tokens::{self, Encoding, TokenCache};
    let encoding = opts
        .encoding
        .unwrap_or_else(|| Encoding::for_model(session.meta.model.as_deref()));
    let cache = opts.cache_dir.as_deref().map(TokenCache::open).transpose()?;
    let counts = tokens::count_session(session, encoding, cache.as_ref(), progress, cancel)?;
    Ok(tokens::report::build(session, &counts, opts.report))
}

/// The Tokens view as one SVG (final-context share, processed share, context per request with
/// compaction cuts, top tools), in the light or dark theme.
pub fn token_charts_svg(
    report: &crate::tokens::report::TokenReport,
    theme: crate::charts::ThemeName,
) -> Result<String> {
    crate::charts::tokens_svg(report, theme)
}
