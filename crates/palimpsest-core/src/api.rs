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
use crate::tokens::counter::Counted;

pub use crate::error::Problem;

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
    list_known(path, &|_| None)
}

/// [`list_sessions`], taking the entry of each session `known` has instead of reading its file.
fn list_known(path: &Path, known: &sources::Known<'_>) -> Result<SessionList> {
    let catalog = sources::open(path)?;
    let (mut sessions, list_problems) = catalog.list_known(known);
    sessions.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
    let problems = catalog
        .problems
        .iter()
        .chain(list_problems.iter())
        .map(Problem::from)
        .collect();
    Ok(SessionList { sessions, problems })
}

/// [`list_sessions`], answered from the index when nothing under the folder changed since it
/// was last brought up to date (a search, a fleet table or `palimpsest index`): no file is read.
/// Otherwise the folder is listed, each file as the index holds it when it is as indexed (a
/// home where one worker writes reads that worker's file alone); without a usable index, every
/// file is read.
pub fn list_sessions_indexed(path: &Path) -> Result<SessionList> {
    list_sessions_as_of(path, crate::index::AsOf::Same)
}

/// The index at its default place, when there is one (never created here): listing, and a
/// command given a file it holds as it is, answer from it without reading the file.
pub fn existing_index() -> Option<crate::index::Index> {
    crate::index::Index::default_path()
        .filter(|p| p.is_file())
        .and_then(|p| crate::index::Index::open(&p).ok())
}

/// The index's listing of `path` when it is a file that grew since it was indexed (bytes
/// appended, nothing else changed); `None` for anything else, a file as indexed included.
pub fn list_grown_file(path: &Path) -> Option<SessionList> {
    if !path.is_file() {
        return None;
    }
    let ix = existing_index()?;
    if ix.listing(path).ok().flatten().is_some() {
        return None;
    }
    let (sessions, problems) = ix
        .listing_as_of(path, crate::index::AsOf::Grown)
        .ok()
        .flatten()?;
    Some(SessionList { sessions, problems })
}

/// [`list_sessions_indexed`], but a file that only grew since it was indexed is listed as
/// the index has it (its counts as they were then) instead of being scanned whole: the
/// window's sidebar, which counts the session again once it is read.
fn list_sessions_as_of(path: &Path, as_of: crate::index::AsOf) -> Result<SessionList> {
    match existing_index() {
        Some(ix) => listing_with(&ix, path, as_of),
        None => list_sessions(path),
    }
}

/// [`list_sessions_indexed`] with the index given (a benchmark's, a test's).
pub fn list_sessions_with(ix: &crate::index::Index, path: &Path) -> Result<SessionList> {
    listing_with(ix, path, crate::index::AsOf::Same)
}

fn listing_with(
    ix: &crate::index::Index,
    path: &Path,
    as_of: crate::index::AsOf,
) -> Result<SessionList> {
    if let Some((sessions, problems)) = ix.listing_as_of(path, as_of).ok().flatten() {
        return Ok(SessionList { sessions, problems });
    }
    if !path.is_dir() {
        return list_sessions(path);
    }
    // The index holds files by their canonical paths.
    let root = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    list_known(&root, &|file| ix.known_meta(file))
}

/// Load one session; `id` may be omitted when `path` holds exactly one.
pub fn load_session(path: &Path, id: Option<&str>) -> Result<Session> {
    sources::open(path)?.load(path, id)
}

// ---- The app's views (src-tauri): sidebar sources, timeline rows, one whole message. ----

/// One sidebar source: the sessions under `path`, or the error that kept it from opening. From
/// the index when nothing under the folder changed since it was indexed
/// ([`list_sessions_indexed`]), or when `path` is a file that only grew since.
pub fn source_group(
    label: &str,
    path: &Path,
    origin: crate::views::SourceOrigin,
) -> crate::views::SourceGroup {
    let (sessions, problems) = match list_sessions_as_of(path, crate::index::AsOf::Grown) {
        Ok(list) => (list.sessions, list.problems),
        Err(e) => (Vec::new(), vec![Problem::from(&e)]),
    };
    // The family most sessions belong to: a folder the user added says what it holds.
    let mut families: Vec<(crate::model::Family, usize)> = Vec::new();
    for s in &sessions {
        let f = s.format.family();
        match families.iter_mut().find(|(x, _)| *x == f) {
            Some((_, n)) => *n += 1,
            None => families.push((f, 1)),
        }
    }
    let family = families.iter().max_by_key(|(_, n)| *n).map(|(f, _)| *f);
    crate::views::SourceGroup {
        label: label.to_owned(),
        path: path.to_string_lossy().into_owned(),
        origin,
        family,
        session_count: Some(sessions.len()),
        loaded: true,
        sessions,
        problems,
        opens: None,
    }
}

/// The compact timeline of a loaded session ([`crate::views::timeline`]).
/// `counts`: the session's counts once it is counted ([`session_counts`]).
pub fn timeline(session: &Session, counts: Option<&Counted>) -> crate::views::timeline::Timeline {
    let mut t = crate::views::timeline::timeline(session);
    // Once the session is counted its rows carry the Tokens tab's counts, as rows from the
    // index do, so the ribbon draws the numbers the cut labels give.
    if let Some(counted) = counts {
        for row in &mut t.rows {
            row.tokens = counted.of_index(row.index);
        }
    }
    t
}

// The first screen of a big transcript not indexed yet: in `api/first.rs`.
mod first;
pub use first::{
    FIRST_LINES_FROM, FirstLines, first_conversation, first_lines, timeline_first_lines,
};

// Whole messages, their stored text and their Markdown: in `api/message.rs`.
mod message;
mod recorded;
pub use message::{get_message, markdown, message_detail, raw_message};
pub use recorded::{RecordedSet, nothing_recorded, recorded, recorded_dirs, recorded_dirs_of};

// ---- Compaction anatomy, request contexts and pairing lint (`crate::compaction`). ----

/// Every compaction of a loaded session taken apart, and its requests.
pub fn compactions(
    session: &Session,
    counts: Option<&Counted>,
) -> crate::compaction::CompactionsView {
    crate::compaction::view(session, view_counter(counts))
}

/// What the model saw at request `number` (1-based; the last number is the next request, see
/// [`crate::compaction::request_context`]); an error names the valid range.
pub fn request_context(
    session: &Session,
    number: usize,
    counts: Option<&Counted>,
) -> Result<crate::compaction::RequestContext> {
    crate::compaction::request_context(session, number, view_counter(counts)).ok_or_else(|| {
        let count = crate::compaction::Eras::new(session).request_count();
        Error::OutOfRange(format!(
            "{}: session `{}` has requests 1 to {count} ({count} = the next request); \
             no request {number}",
            session.meta.path, session.meta.id
        ))
    })
}

/// Pairing lint of every request a loaded session made, and of its next one, for `api`.
pub fn lint(session: &Session, api: crate::compaction::Api) -> crate::compaction::LintReport {
    let eras = crate::compaction::Eras::new(session);
    crate::compaction::lint_session(session, &eras, crate::compaction::shape_for(session, api))
}

// ---- Token accounting: in `api/tokens.rs`; replays: in `api/replay.rs`. ----

// ---- Post-mortem and spill files (`crate::analysis`): in `api/postmortem.rs`. ----

mod cuts;
mod fleet;
mod otlp;
mod postmortem;
mod replay;
mod tokens;
mod tune;
pub use cuts::{compactions_of, lint_of};
pub use fleet::{
    default_paths, export_parquet, fleet_indexed, fleet_indexed_given, index_update,
    index_update_given, load_session_printed, open_index, search, search_given, search_unindexed,
    with_index,
};
pub use otlp::export_otlp;
pub(crate) use postmortem::review_options;
pub use postmortem::{DiagnoseOptions, diagnose, diagnose_fleet, spills};
pub(crate) use replay::replay_counter;
pub use replay::{
    replay, replay_panel, replay_simulate, replay_summary, replay_sweep, replay_sweep_svg,
    replay_verify, replay_with_panel, sweep_view,
};
pub use tokens::{
    TokenOptions, session_counts, token_charts, token_charts_svg, token_report, view_counter,
};
pub use tune::{OpenCache, TuneFacets, TuneFilter, TuneView, day_start, tune};

/// The default session folders of every family on this machine (from `$HOME` and the usual
/// environment variables), then the `added` folders, each with its session count.
pub fn discover_sources(added: &[std::path::PathBuf]) -> Vec<crate::sources::discovery::Location> {
    let m = crate::env::machine();
    crate::sources::discovery::discover(m.home(), &|k| m.var_str(k), added)
}

// ---- The app's cut view, request stepper and finding badges (`crate::views::cuts`). ----

/// Every compaction of a loaded session as three columns with file fates, its requests, the
/// messages that carried files, and the pairing lint under both providers' rules.
pub fn session_cuts(
    session: &Session,
    counts: Option<&Counted>,
) -> crate::views::cuts::SessionCuts {
    crate::views::cuts::session_cuts(session, view_counter(counts))
}

/// The context of request `number` as timeline rows with its pairing findings; an error names
/// the valid range (as [`request_context`]).
pub fn request_view(
    session: &Session,
    number: usize,
    counts: Option<&Counted>,
) -> Result<crate::views::cuts::RequestView> {
    crate::views::cuts::request_view(session, number, view_counter(counts)).ok_or_else(|| {
        // The same range error `context` gives.
        request_context(session, number, None)
            .err()
            .unwrap_or_else(|| Error::OutOfRange(format!("no request {number}")))
    })
}

// ---- The app's Post-mortem, Spills and live following (`crate::analysis`, `crate::follow`). ----

/// How many bytes of one spill file the app shows ([`spill_text`]).
pub const SPILL_TEXT_MAX: usize = 1 << 20;

/// One spill file of a loaded session with its text (at most [`SPILL_TEXT_MAX`] bytes). `file`
/// must be a resolved path its spill review lists; one outside the session's folders is read
/// only with the user's confirmation of that exact path ([`crate::analysis::spill_text`]).
pub fn spill_text(
    session: &Session,
    opts: &DiagnoseOptions,
    file: &str,
    confirmation: crate::analysis::spill_text::Confirmation,
) -> Result<crate::analysis::SpillEntry> {
    spill_text_in(&spills(session, &unread(opts))?, file, confirmation)
}

/// `opts` for the review [`spill_text`] picks its file from: no file's text is read for it.
pub fn unread(opts: &DiagnoseOptions) -> DiagnoseOptions {
    DiagnoseOptions {
        max_text_bytes: 0,
        ..opts.clone()
    }
}

/// One spill file of `review` (made with [`unread`] options, from a loaded session or the
/// index) with its text, at most [`SPILL_TEXT_MAX`] bytes.
pub fn spill_text_in(
    review: &crate::analysis::SpillReview,
    file: &str,
    confirmation: crate::analysis::spill_text::Confirmation,
) -> Result<crate::analysis::SpillEntry> {
    crate::analysis::spill_text::spill_text(review, file, confirmation, SPILL_TEXT_MAX)
}

/// What the About dialog and `palimpsest --version` name: the release and the commit built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct About {
    /// The release, as the workspace manifest numbers it.
    pub version: String,
    /// The commit the binary was built from (12 hex digits), or "unknown" outside a checkout.
    pub commit: String,
}

/// The About of a binary built from `commit` (each binary's build script names it: the
/// libraries do not, so a new commit rebuilds the binaries alone).
pub fn about(commit: &str) -> About {
    About {
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: commit.to_string(),
    }
}
