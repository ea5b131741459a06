//! One module per subcommand; each has `Args` (clap) and `run`.
//! Registering them is `main.rs`'s `Command` enum; the work is `palimpsest_core::api`'s.

pub mod cap;
pub mod compactions;
pub mod context;
pub mod diagnose;
pub mod diff;
pub mod export;
pub mod index;
pub mod lint;
pub mod recorded;
pub mod replay;
pub mod report;
pub mod search;
pub mod sessions;
pub mod show;
pub mod show_message;
pub mod show_rows;
pub mod show_stream;
pub mod sources;
pub mod spills;
pub mod sweep;
pub mod tokens;
pub mod watch;

use std::path::PathBuf;

use anyhow::Context;
use palimpsest_core::{api, model::Session};

/// The user's token cache, when it exists: the counts the Tokens view and the index made,
/// which the views and replays reuse (a view counts in BPE once its session is counted). The
/// CLI reads the environment for it; core never does.
pub fn token_cache() -> Option<palimpsest_core::tokens::TokenCache> {
    palimpsest_core::tokens::TokenCache::default_dir()
        .and_then(|d| palimpsest_core::tokens::TokenCache::existing(&d))
}

/// `session`'s counts once it is counted, from the user's token cache: the views then count in
/// BPE as the Tokens tab does ([`api::session_counts`]).
pub fn session_counts(session: &Session) -> Option<palimpsest_core::tokens::counter::Counted> {
    api::session_counts(session, token_cache().as_ref())
}

/// The `PATH [--session ID]` pair that the commands reading one session share, so their
/// positional, flag and help text stay the same everywhere.
#[derive(clap::Args)]
pub struct Target {
    /// A session file, a database or a folder.
    pub path: PathBuf,
    /// The session id; optional when PATH holds one session.
    #[arg(long)]
    pub session: Option<String>,
}

impl Target {
    /// The session's cut view from the user's index ([`api::existing_index`]), when it holds
    /// the file as it is now; `None` sends the caller to the file.
    pub fn indexed_cuts(
        &self,
    ) -> Option<(
        palimpsest_core::model::SessionMeta,
        palimpsest_core::views::cuts::SessionCuts,
    )> {
        let ix = api::existing_index()?;
        api::session_cuts_indexed(&ix, &self.path, self.session.as_deref())
            .ok()
            .flatten()
    }

    /// What `ask` answers from the fleet index (`index`: `Some(file)`, `Some(None)` the
    /// default one; `None`: not asked). When asked and it cannot answer, says so on stderr: the
    /// caller then reads the file.
    pub fn ask_index<T>(
        &self,
        index: Option<Option<&std::path::Path>>,
        ask: impl Fn(&palimpsest_core::index::Index) -> palimpsest_core::error::Result<Option<T>>,
    ) -> anyhow::Result<Option<T>> {
        let Some(at) = index else { return Ok(None) };
        let (found, notices) =
            api::with_index(at, |ix| ask(ix)).context("cannot read the index")?;
        crate::output::notices(&notices);
        if found.is_none() {
            eprintln!(
                "not in the index as it is on disk now: read from {}",
                self.path.display()
            );
        }
        Ok(found)
    }

    /// Load the session; an error reads "cannot `doing` PATH" over the cause.
    pub fn load(&self, doing: &str) -> anyhow::Result<Session> {
        api::load_session(&self.path, self.session.as_deref())
            .with_context(|| format!("cannot {doing} {}", self.path.display()))
    }
}
