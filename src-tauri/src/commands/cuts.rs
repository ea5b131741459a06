//! The cut view's commands: every cut's shape when a session opens or grows (`get_cuts`), one
//! cut whole when it is opened (`get_cut`). Both come from one cut view: the index's, for a
//! file it holds as it is, else the loaded session's, made once per copy and count
//! (the session service's memo), so opening cut after cut does not take the session apart again.

use std::sync::Arc;

use palimpsest_core::rpc::{GetCutReq, GetCutsReq, IpcError};
use palimpsest_core::views::cuts::{CutDetail, CutsBrief, SessionCuts};
use tauri::State;

use crate::state::AppState;

/// Every compaction of a session as the ribbon and the cut rules draw it, with its requests
/// and lint; the opened cut's summary and file fates come with `get_cut`.
#[tauri::command(async)]
pub fn get_cuts(state: State<'_, AppState>, req: GetCutsReq) -> Result<CutsBrief, IpcError> {
    Ok(CutsBrief::from(&*cut_view(&state, &req.path, &req.id)?))
}

/// One compaction whole, as the opened cut view draws it.
#[tauri::command(async)]
pub fn get_cut(state: State<'_, AppState>, req: GetCutReq) -> Result<CutDetail, IpcError> {
    Ok(cut_view(&state, &req.path, &req.id)?.cut(&req.id, req.cut)?)
}

fn cut_view(state: &AppState, path: &str, id: &str) -> Result<Arc<SessionCuts>, IpcError> {
    state.cut_view(path, id)
}
