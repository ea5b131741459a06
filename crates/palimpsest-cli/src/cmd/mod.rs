//! One module per subcommand; each has `Args` (clap) and `run`.
//! Registering them is `main.rs`'s `Command` enum; the work is `palimpsest_core::api`'s.

pub mod alerts;
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
pub mod tune;
pub mod watch;

use std::path::PathBuf;

use anyhow::Context;
use palimpsest_core::service::{IndexUse, SessionService};
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

/// One session of a command, reached through the session service (the index a cache behind
/// it, asked as the command's flags say): the service, the path as the service names it, and
/// the session's id.
pub struct Served {
    /// The service the command's views are asked of.
    pub svc: SessionService,
    /// PATH.
    pub path: String,
    /// The session's id (PATH's one session when `--session` is not given).
    pub id: String,
    /// What the command is doing, for errors ("cannot `doing` PATH").
    doing: String,
}

impl Served {
    /// A view's answer, or its error as "cannot `doing` PATH" over the cause; what the index had
    /// to say (set aside as damaged, could not answer an `--index`) goes to stderr.
    pub fn answer<T>(&self, r: Result<T, palimpsest_core::rpc::IpcError>) -> anyhow::Result<T> {
        crate::output::notices(&self.svc.take_notices());
        r.with_context(|| format!("cannot {} {}", self.doing, self.path))
    }
}

/// `--index [FILE]` as the service asks the index: `Some(file)` (`Some(None)`: the default
/// one) asks it and says when it cannot answer; `None` does not ask.
pub fn asked(index: Option<Option<&std::path::Path>>) -> IndexUse {
    match index {
        Some(at) => IndexUse::Asked(at.map(std::path::Path::to_path_buf)),
        None => IndexUse::Off,
    }
}

/// `--no-index`, else the user's index when it exists (a command on one file makes none).
pub fn existing_unless(no_index: bool) -> IndexUse {
    if no_index {
        IndexUse::Off
    } else {
        IndexUse::Existing(None)
    }
}

impl Target {
    /// The session through the session service asking the index as `index` says; an error
    /// reads "cannot `doing` PATH" over the cause.
    pub fn serve(&self, index: IndexUse, doing: &str) -> anyhow::Result<Served> {
        let svc = SessionService::new(index);
        let path = self.path.to_string_lossy().into_owned();
        let resolved = svc.resolve(&path, self.session.as_deref());
        crate::output::notices(&svc.take_notices());
        let id = resolved.with_context(|| format!("cannot {doing} {}", self.path.display()))?;
        Ok(Served {
            svc,
            path,
            id,
            doing: doing.to_owned(),
        })
    }

    /// Load the session; an error reads "cannot `doing` PATH" over the cause.
    pub fn load(&self, doing: &str) -> anyhow::Result<Session> {
        api::load_session(&self.path, self.session.as_deref())
            .with_context(|| format!("cannot {doing} {}", self.path.display()))
    }
}
