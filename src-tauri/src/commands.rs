//! The app's commands, one per entry of `palimpsest_core::with_commands!`: take the state, call
//! core, convert the error. They run off the main thread (`async`) so a big session never
//! freezes the window.

use std::path::{Path, PathBuf};

use palimpsest_core::analysis::spill_text::Confirmation;
use palimpsest_core::analysis::{Diagnosis, Fleet, SpillEntry, SpillReview};
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::search::{Hit, Query};
use palimpsest_core::rpc::{AboutReq, BundledExamplesReq, SearchReq};
use palimpsest_core::rpc::{
    CancelFleetReq, CancelTokensReq, CountTokensReq, ReplayReq, ReplaySweepReq, TokenChartsReq,
};
use palimpsest_core::rpc::{
    DiagnoseFleetReq, DiagnoseReq, GetMessageReq, GetTimelineReq, IpcError, ListSourcesReq,
    LoadSourceReq, OpenPathReq, OpenSpillAnywayReq, SpillTextReq, SpillsReq,
};
use palimpsest_core::views::panels::{ReplayPanel, SimulationSummary, SweepView, TokenCharts};
use palimpsest_core::views::timeline::Timeline;
use palimpsest_core::views::tokens::{TokenReport, TokenView, shown};
use palimpsest_core::views::{MessageDetail, SourceGroup, SourceOrigin};
use tauri::State;

use crate::progress;
use crate::state::{AppState, token_cache};

// A glob, so the items `#[tauri::command]` generates beside each function come along with it
// for `generate_handler!` (`commands::get_cuts`).
mod cuts;
mod tune;
pub use cuts::*;
pub use tune::*;

/// The sources to show on start, counted but not listed: the path argument, else every agent
/// family's default folder here, else the bundled fixtures. `load_source` lists each.
#[tauri::command(async)]
pub fn list_sources(
    state: State<'_, AppState>,
    req: ListSourcesReq,
) -> Result<Vec<SourceGroup>, IpcError> {
    let ListSourcesReq {} = req;
    Ok(state.startup().iter().map(|s| s.pending()).collect())
}

/// The bundled fixtures' folder, for the empty window's "Open the bundled examples".
#[tauri::command(async)]
pub fn bundled_examples(
    _state: State<'_, AppState>,
    req: BundledExamplesReq,
) -> Result<Option<String>, IpcError> {
    let BundledExamplesReq {} = req;
    Ok(palimpsest_core::service::startup::fixtures_here().map(|p| p.display().to_string()))
}

/// Alerts on or off, at which thresholds, and on the desktop too or not (quiet).
#[tauri::command(async)]
pub fn set_alerts(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::SetAlertsReq,
) -> Result<palimpsest_core::analysis::alerts::AlertRules, IpcError> {
    Ok(state.alerts(req.on, req.notify, req.rules))
}

/// The version and commit of this build, for the About dialog.
#[tauri::command(async)]
pub fn about(
    _state: State<'_, AppState>,
    req: AboutReq,
) -> Result<palimpsest_core::api::About, IpcError> {
    let AboutReq {} = req;
    Ok(palimpsest_core::api::about(env!("PALIMPSEST_COMMIT")))
}

/// One source's sessions (each source in its own call, so one slow folder holds up no other).
#[tauri::command(async)]
pub fn load_source(
    state: State<'_, AppState>,
    req: LoadSourceReq,
) -> Result<SourceGroup, IpcError> {
    let Some(s) = state.startup_source(&req.path) else {
        return open_path(state, OpenPathReq { path: req.path });
    };
    // Listed after its live follower's baseline, so nothing written in between is missed.
    state.await_baseline(&req.path);
    let mut group = api::source_group(&s.label, &s.path, s.origin);
    // A default folder is its family's even before a session is found there.
    group.family = s.family.or(group.family);
    Ok(group)
}

/// A file or folder the user opened or dropped: its own group, followed live.
#[tauri::command(async)]
pub fn open_path(state: State<'_, AppState>, req: OpenPathReq) -> Result<SourceGroup, IpcError> {
    let path = Path::new(&req.path);
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| req.path.clone());
    // Followed before it is listed, so nothing written in between is missed.
    state.follow(&req.path);
    Ok(api::source_group(&label, path, SourceOrigin::Opened))
}

/// One session's compact rows, or a page of them (`from`, `limit`): from the index when it
/// holds the file as it is, else from the file (`AppState::timeline`).
#[tauri::command(async)]
pub fn get_timeline(state: State<'_, AppState>, req: GetTimelineReq) -> Result<Timeline, IpcError> {
    let whole = req.whole.unwrap_or(false);
    // The first page comes before the rest of the rows are read: from the index, or a big
    // transcript's first lines.
    if req.from == 0
        && !whole
        && let Some(limit) = req.limit
        && let Some(t) = state.first_page(&req.path, &req.id, limit)
    {
        return Ok(t);
    }
    state.page(&req.path, &req.id, req.from, req.limit, whole)
}

/// One whole message, and its stored text when asked for: from the session when it is
/// loaded, else read by offset through the index while the session is read behind the rows,
/// else from the first lines of a big transcript shown while it is read, else once the
/// session is loaded.
#[tauri::command(async)]
pub fn get_message(
    state: State<'_, AppState>,
    req: GetMessageReq,
) -> Result<MessageDetail, IpcError> {
    state.message(&req.path, &req.id, req.index, req.raw)
}

/// The post-mortem of one session (BPE token counts, as `palimpsest diagnose`).
#[tauri::command(async)]
pub fn diagnose(state: State<'_, AppState>, req: DiagnoseReq) -> Result<Diagnosis, IpcError> {
    state.diagnosis(&req.path, &req.id, &DiagnoseOptions::default())
}

/// Every session under a source diagnosed: the fleet table, from the index (brought up to
/// date first, from the window's copy of a session it follows live); without a usable index,
/// every session diagnosed afresh.
#[tauri::command(async)]
pub fn diagnose_fleet(
    state: State<'_, AppState>,
    req: DiagnoseFleetReq,
) -> Result<Fleet, IpcError> {
    let path = Path::new(&req.path);
    let opts = DiagnoseOptions {
        cancel: Some(progress::FLEET.start()),
        ..Default::default()
    };
    let mut counted = progress::counter("fleet", &req.path);
    state.fleet(path, &opts, &mut counted)
}

/// Stop the fleet's update in progress; false when none runs.
#[tauri::command(async)]
pub fn cancel_fleet(_state: State<'_, AppState>, req: CancelFleetReq) -> Result<bool, IpcError> {
    let CancelFleetReq {} = req;
    Ok(progress::FLEET.cancel())
}

/// Search every session of the sources shown (Ctrl+K), through the index (brought up to date
/// from the window's copy of a session it follows live).
#[tauri::command(async)]
pub fn search(state: State<'_, AppState>, req: SearchReq) -> Result<Vec<Hit>, IpcError> {
    let paths: Vec<PathBuf> = req.paths.iter().map(PathBuf::from).collect();
    let query = Query {
        text: req.query,
        regex: req.regex,
        limit: req.limit,
        ..Default::default()
    };
    Ok(state.search(&paths, &query)?.0)
}

/// Options that trust the folders the user confirmed in the Spills tab.
fn trusting(roots: &[String]) -> DiagnoseOptions {
    DiagnoseOptions {
        extra_roots: roots.iter().map(PathBuf::from).collect(),
        ..Default::default()
    }
}

/// Every spill file of one session; no file is read.
#[tauri::command(async)]
pub fn spills(state: State<'_, AppState>, req: SpillsReq) -> Result<SpillReview, IpcError> {
    state.spills(&req.path, &req.id, &trusting(&req.roots))
}

/// One spill file inside the session's folders, with its text; others are refused.
#[tauri::command(async)]
pub fn spill_text(state: State<'_, AppState>, req: SpillTextReq) -> Result<SpillEntry, IpcError> {
    let opts = trusting(&req.roots);
    state.spill_text(&req.path, &req.id, &req.file, &opts, Confirmation::None)
}

/// A spill file outside the session's folders, after the user confirmed its full path.
#[tauri::command(async)]
pub fn open_spill_anyway(
    state: State<'_, AppState>,
    req: OpenSpillAnywayReq,
) -> Result<SpillEntry, IpcError> {
    let confirmed = Confirmation::Path(&req.confirmed_path);
    let opts = trusting(&req.roots);
    state.spill_text(&req.path, &req.id, &req.file, &opts, confirmed)
}

/// Count a session's tokens (cached in core's default cache dir) and build the Tokens view.
/// Progress goes out as `task-progress` events; `cancel_tokens` stops it.
#[tauri::command(async)]
pub fn count_tokens(
    state: State<'_, AppState>,
    req: CountTokensReq,
) -> Result<TokenView, IpcError> {
    Ok(shown(
        (*token_report(&state, &req.path, &req.id, req.encoding)?).clone(),
    ))
}

/// The token report of one session in `encoding`, its progress sent as `task-progress` events.
fn token_report(
    state: &AppState,
    path: &str,
    id: &str,
    encoding: Option<palimpsest_core::tokens::Encoding>,
) -> Result<std::sync::Arc<TokenReport>, IpcError> {
    let opts = api::TokenOptions {
        encoding,
        cache_dir: palimpsest_core::tokens::TokenCache::default_dir(),
        report: Default::default(),
        prices: None,
    };
    let cancel = progress::TOKENS.start();
    let mut report = progress::reporter("tokens", id);
    state.token_report(path, id, &opts, &mut report, &cancel)
}

/// Stop the token count in progress; false when none runs.
#[tauri::command(async)]
pub fn cancel_tokens(_state: State<'_, AppState>, req: CancelTokensReq) -> Result<bool, IpcError> {
    let CancelTokensReq {} = req;
    Ok(progress::TOKENS.cancel())
}

/// The Tokens view's charts in the window's theme.
#[tauri::command(async)]
pub fn token_charts(
    state: State<'_, AppState>,
    req: TokenChartsReq,
) -> Result<TokenCharts, IpcError> {
    let report = token_report(&state, &req.path, &req.id, req.encoding)?;
    Ok(api::token_charts(&report, req.theme)?)
}

/// The history compacted once under a replay setting, as timeline rows.
#[tauri::command(async)]
pub fn replay_panel(state: State<'_, AppState>, req: ReplayReq) -> Result<ReplayPanel, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::replay_panel(
        &session,
        &req.options,
        token_cache().as_ref(),
    ))
}

/// The session run forward under a replay setting: totals and compactions.
#[tauri::command(async)]
pub fn replay_summary(
    state: State<'_, AppState>,
    req: ReplayReq,
) -> Result<SimulationSummary, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::replay_summary(
        &session,
        &req.options,
        token_cache().as_ref(),
    ))
}

/// The sweep around a setting, with its heatmap.
#[tauri::command(async)]
pub fn replay_sweep(
    state: State<'_, AppState>,
    req: ReplaySweepReq,
) -> Result<SweepView, IpcError> {
    let ask = palimpsest_core::service::SweepAsk {
        opts: req.options,
        grid: None,
        metric: req.metric,
    };
    let swept = state.sweep(&req.path, &req.id, &ask)?;
    Ok(api::sweep_view(swept.grid, &swept.name, req.theme)?)
}

/// A message, a summary or a whole cut as Markdown, for "Copy as Markdown".
#[tauri::command(async)]
pub fn get_markdown(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::GetMarkdownReq,
) -> Result<String, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::markdown(
        &session,
        req.of,
        state.counts(&session).as_deref(),
    )?)
}

/// The requests the agent recorded it sent for one session, each beside the rebuilt one.
#[tauri::command(async)]
pub fn get_recorded(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::GetRecordedReq,
) -> Result<palimpsest_core::api::RecordedSet, IpcError> {
    let home = palimpsest_core::service::startup::state_home();
    state.recorded(&req.path, &req.id, home.as_deref())
}

/// The open session's (or its source's) post-mortem, written where the user chose.
#[tauri::command(async)]
pub fn export_report(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::ExportReportReq,
) -> Result<String, IpcError> {
    let o = palimpsest_core::report::ReportOptions {
        bodies: req.bodies,
        token_cache: palimpsest_core::tokens::TokenCache::default_dir(),
        ..Default::default()
    };
    let html = match &req.id {
        Some(id) => palimpsest_core::report::session_report(&*state.session(&req.path, id)?, &o)?,
        None => palimpsest_core::report::fleet_report(std::path::Path::new(&req.path), &o)?,
    };
    Ok(palimpsest_core::report::write(
        std::path::Path::new(&req.to),
        &html,
    )?)
}

/// What the model saw at one request, as rows, with its pairing findings.
#[tauri::command(async)]
pub fn get_request(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::GetRequestReq,
) -> Result<palimpsest_core::views::cuts::RequestView, IpcError> {
    state.request_view(&req.path, &req.id, req.request)
}

/// The open session beside another recorded run, aligned turn by turn in timeline rows. Run B
/// is read on its own, so the open session stays the one the other tabs find loaded.
#[tauri::command(async)]
pub fn compare_runs(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::CompareRunsReq,
) -> Result<palimpsest_core::compare::CompareView, IpcError> {
    let a = state.session(&req.path, &req.id)?;
    let b = api::load_session(std::path::Path::new(&req.other_path), Some(&req.other_id))?;
    let table = palimpsest_core::cost::PriceTable::load(None)?;
    Ok(palimpsest_core::compare::side_by_side(&a, &b, &table))
}
