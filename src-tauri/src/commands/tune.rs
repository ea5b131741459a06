//! The Tune view's commands: the fleet tuned, with its progress and Cancel. Tuning is core's
//! (`SessionService::tune`).

use std::sync::Mutex;

use palimpsest_core::api::TuneView;
use palimpsest_core::rpc::{CancelTuneReq, IpcError, TuneReq};
use tauri::State;

use crate::progress;
use crate::state::AppState;

/// Every session under the paths replayed at every setting of the grid: the Tune view's
/// heatmap, Pareto front and sessions (`palimpsest tune --json`). One at a time: a new one
/// cancels the last.
#[tauri::command(async)]
pub fn tune(state: State<'_, AppState>, req: TuneReq) -> Result<TuneView, IpcError> {
    let cancel = progress::TUNE.start();
    let id = req.progress_id();
    let counted = Mutex::new(progress::counter("tune", &id));
    let report = |done: usize, total: usize| {
        (counted.lock().unwrap_or_else(|e| e.into_inner()))(done, total)
    };
    state.tune(&req, &report, Some(&cancel))
}

/// Stop the tuning in progress; false when none runs.
#[tauri::command(async)]
pub fn cancel_tune(_state: State<'_, AppState>, req: CancelTuneReq) -> Result<bool, IpcError> {
    let CancelTuneReq {} = req;
    Ok(progress::TUNE.cancel())
}
