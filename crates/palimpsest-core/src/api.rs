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
use crate::tokens::TokenCache;
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
pub use message::{
    get_message, markdown, message_detail, message_indexed, message_indexed_grown, raw_message,
};
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
    /// The price table; `None` is the shipped snapshot.
    pub prices: Option<crate::cost::PriceTable>,
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
    let cache = opts
        .cache_dir
        .as_deref()
        .map(TokenCache::open)
        .transpose()?;
    let counts = tokens::count_session(session, encoding, cache.as_ref(), progress, cancel)?;
    let mut report = tokens::report::build(session, &counts, opts.report);
    let table = opts
        .prices
        .as_ref()
        .unwrap_or_else(|| crate::cost::PriceTable::bundled());
    report.cost = crate::cost::session_cost(session, table);
    Ok(report)
}

/// [`token_report`] of session `id` under `path` from the index, as the window asks for it
/// first (the session model's vocabulary or the same one named, the shipped price table), when
/// the index holds the file as it is now: nothing is read or counted. `None` otherwise.
pub fn token_report_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    encoding: Option<crate::tokens::Encoding>,
) -> Result<Option<crate::tokens::report::TokenReport>> {
    Ok(index
        .token_report(path, id)?
        .filter(|r| encoding.is_none_or(|e| e.as_str() == r.encoding)))
}

/// Session `id` under `path` message by message from the index, when it holds the file as it
/// is and can give back every message (a Claude Code transcript): `show` of a 200 MB
/// transcript then holds one message at a time ([`crate::index::StoredMessages`]).
pub fn messages_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<crate::index::StoredMessages>> {
    index.stored_messages(path, id)
}

/// [`token_report_indexed`] as `tokens` asks for it: its top lists cut to `opts.top` (the
/// index keeps the default report, whose lists are the longest `tokens` asks for by default and
/// sorted in a total order, so a shorter list is its head) and priced at `table`. `None` when
/// `opts` ask for more than the index keeps (a longer list, a trigger of their own).
pub fn token_report_indexed_as(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    encoding: Option<crate::tokens::Encoding>,
    opts: &crate::tokens::report::ReportOptions,
    table: &crate::cost::PriceTable,
) -> Result<Option<crate::tokens::report::TokenReport>> {
    let kept = crate::tokens::report::ReportOptions::default();
    if opts.top > kept.top || opts.trigger_tokens != kept.trigger_tokens {
        return Ok(None);
    }
    Ok(
        token_report_indexed(index, path, id, encoding)?.map(|mut r| {
            r.top_tools.truncate(opts.top);
            r.top_parts.truncate(opts.top);
            r.cost = r.cost.as_ref().and_then(|c| crate::cost::reprice(c, table));
            r
        }),
    )
}

/// The Tokens view as one SVG (final-context share, processed share, context per request with
/// compaction cuts, top tools), in the light or dark theme.
pub fn token_charts_svg(
    report: &crate::tokens::report::TokenReport,
    theme: crate::charts::ThemeName,
) -> Result<String> {
    crate::charts::tokens_svg(report, theme)
}

// ---- Post-mortem and spill files (`crate::analysis`): in `api/postmortem.rs`. ----

mod cuts;
mod fleet;
mod postmortem;
pub use cuts::{
    compactions_of, cut_view_indexed, lint_of, request_context_indexed, request_view_indexed,
    session_cuts_indexed,
};
pub use fleet::{
    default_paths, export_parquet, fleet_indexed, fleet_indexed_given, index_update,
    index_update_given, load_session_printed, open_index, search, search_given, timeline_indexed,
    timeline_indexed_grown, timeline_indexed_head,
};
pub use postmortem::{
    DiagnoseOptions, diagnose, diagnose_fleet, diagnosis_indexed, spills, spills_indexed,
};

/// The counter replays use: real BPE in the session model's encoding.
/// `cache` is the token cache the caller opened (the CLI and the app: the user's), or `None`.
pub(crate) fn replay_counter(
    session: &Session,
    cache: Option<&TokenCache>,
) -> crate::tokens::known::Known {
    let enc = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    // Texts the Tokens view or the index counted before come from the token cache.
    crate::tokens::known::Known::of(session, enc, cache)
}

/// How the cut view, the compactions and the request contexts count a session's messages: the
/// Tokens tab's BPE counts once the session is counted (`counts`), so one message shows one
/// number everywhere; characters / 4 before that, labelled an estimate, so no view waits for a
/// whole count.
pub fn view_counter(counts: Option<&Counted>) -> &dyn crate::tokens::Counter {
    match counts {
        Some(counted) => counted,
        None => &crate::tokens::counter::CharEstimate,
    }
}

/// The session's BPE counts in its model's vocabulary, as the Tokens tab has them, when
/// `cache` (the token cache the caller opened) holds them; `None` before it is counted. Making
/// them reads every text of the session, so a caller that keeps the session (the app) keeps
/// them too, and passes them to each view.
pub fn session_counts(session: &Session, cache: Option<&TokenCache>) -> Option<Counted> {
    let enc = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    crate::tokens::counter::counted(session, enc, cache?)
}

/// Compact a loaded session's history once under a replay policy, as it stands. No raw lines
/// are passed: coworker sizes use the rebuilt chat shape (why: `replay::coworker`'s doc).
pub fn replay(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::replay::options::ReplayView {
    crate::replay::options::replay_once(session, opts, None, &replay_counter(session, cache))
}

/// Run a loaded session forward under a replay policy.
pub fn replay_simulate(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::replay::simulate::Simulation {
    let counter = replay_counter(session, cache);
    let mut sim = crate::replay::options::simulation(session, opts, None, &counter);
    sim.cost = crate::cost::setting::estimate(
        session,
        &counter,
        sim.totals.tokens_processed,
        sim.totals.requests,
        crate::cost::PriceTable::bundled(),
    );
    sim
}

/// Sweep a loaded session over `rows × cols` settings; `svg` also draws the heatmap.
pub fn replay_sweep(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    rows: crate::replay::sweep::Axis,
    cols: crate::replay::sweep::Axis,
    metric: crate::replay::sweep::Metric,
    cache: Option<&TokenCache>,
) -> crate::replay::sweep::SweepGrid {
    let counter = replay_counter(session, cache);
    crate::replay::options::sweep_session(session, opts, rows, cols, metric, None, &counter)
}

mod sweep;
pub use sweep::{SweptFile, replay_sweep_file, replay_sweep_view_indexed};

/// The sweep heatmap as SVG.
pub fn replay_sweep_svg(grid: &crate::replay::sweep::SweepGrid, title: &str) -> Result<String> {
    crate::charts::heatmap::heatmap_svg(grid, title, crate::charts::ThemeName::Light)
}

/// The default session folders of every family on this machine (from `$HOME` and the usual
/// environment variables), then the `added` folders, each with its session count.
pub fn discover_sources(added: &[std::path::PathBuf]) -> Vec<crate::sources::discovery::Location> {
    let m = crate::env::machine();
    crate::sources::discovery::discover(m.home(), &|k| m.var_str(k), added)
}

// ---- The app's Tokens and Replay panels (`crate::views::panels`). ----

/// The Tokens panel's four charts, one SVG each, in the light or dark theme.
pub fn token_charts(
    report: &crate::tokens::report::TokenReport,
    theme: crate::charts::ThemeName,
) -> Result<crate::views::panels::TokenCharts> {
    crate::views::panels::token_charts(report, theme)
}

/// A loaded session's history compacted once, as timeline rows with tokens and orphans marked.
pub fn replay_panel(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::views::panels::ReplayPanel {
    let counter = replay_counter(session, cache);
    let view = crate::replay::options::replay_once(session, opts, None, &counter);
    crate::views::panels::replay_panel(session, opts, view, &counter)
}

/// The totals and compactions of a loaded session run forward under a replay policy.
pub fn replay_summary(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::views::panels::SimulationSummary {
    let sim = replay_simulate(session, opts, cache);
    crate::views::panels::SimulationSummary {
        totals: sim.totals,
        compactions: sim.compactions,
        cost: sim.cost,
    }
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

/// Re-derive each recorded coworker compaction of a loaded session with coworker's own rules
/// (working state, preserved user messages, omitted count, block) and compare with the record.
pub fn replay_verify(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
) -> crate::replay::verify::VerifyReport {
    crate::replay::verify::verify(session, opts)
}
