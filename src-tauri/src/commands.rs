//! The app's commands, one per entry of `palimpsest_core::with_commands!`: take the state, call
//! core, convert the error. They run off the main thread (`async`) so a big session never
//! freezes the window.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::rpc::{
    GetMessageReq, GetTimelineReq, IpcError, ListSourcesReq, MessageDetail, OpenPathReq,
    SourceGroup, SourceOrigin,
};
use palimpsest_core::timeline::Timeline;
use tauri::State;

use crate::state::AppState;

/// The sources to show on start: the path argument, else the user's goose sessions, else the
/// bundled fixtures.
#[tauri::command(async)]
pub fn list_sources(
    state: State<'_, AppState>,
    req: ListSourcesReq,
) -> Result<Vec<SourceGroup>, IpcError> {
    let ListSourcesReq {} = req;
    Ok(state
        .startup
        .iter()
        .map(|s| api::source_group(&s.label, &s.path, s.origin))
        .collect())
}

/// A file or folder the user opened or dropped.
#[tauri::command(async)]
pub fn open_path(_state: State<'_, AppState>, req: OpenPathReq) -> Result<SourceGroup, IpcError> {
    let path = Path::new(&req.path);
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| req.path.clone());
    Ok(api::source_group(&label, path, SourceOrigin::Opened))
}

/// One session's compact rows (the session is kept for `get_message`).
#[tauri::command(async)]
pub fn get_timeline(state: State<'_, AppState>, req: GetTimelineReq) -> Result<Timeline, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::timeline(&session))
}

/// One whole message, and its stored text when asked for.
#[tauri::command(async)]
pub fn get_message(
    state: State<'_, AppState>,
    req: GetMessageReq,
) -> Result<MessageDetail, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    let path = Path::new(&req.path);
    Ok(api::message_detail(path, &session, req.index, req.raw)?)
}

/// Every compaction of a session as the cut view draws it, with its requests and lint.
#[tauri::command(async)]
pub fn get_cuts(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::GetCutsReq,
) -> Result<palimpsest_core::compaction::cutview::SessionCuts, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::session_cuts(&session))
}

/// What the model saw at one request, as rows, with its pairing findings.
#[tauri::command(async)]
pub fn get_request(
    state: State<'_, AppState>,
    req: palimpsest_core::rpc::GetRequestReq,
) -> Result<palimpsest_core::compaction::cutview::RequestView, IpcError> {
    let session = state.session(&req.path, &req.id)?;
    Ok(api::request_view(&session, req.request)?)
}
