//! Request of `compare_runs` (Compare with…: the open session beside another recorded run of
//! the same task, in the timeline's rows); declared in [`super::with_commands`].

use serde::{Deserialize, Serialize};

/// Request of `compare_runs`: [`crate::compare::side_by_side`] of run A (the open session)
/// and run B.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompareRunsReq {
    /// Run A's source path.
    pub path: String,
    /// Run A's session id.
    pub id: String,
    /// Run B's source path.
    pub other_path: String,
    /// Run B's session id.
    pub other_id: String,
}
