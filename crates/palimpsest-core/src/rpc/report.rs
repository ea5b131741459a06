//! Request of `export_report` (File › Export report…: the open session's post-mortem, or its
//! source's, as one HTML file where the user chose); declared in [`super::with_commands`].

use serde::{Deserialize, Serialize};

/// Request of `export_report`: write [`crate::report`]'s page to `to`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ExportReportReq {
    /// The source path.
    pub path: String,
    /// The session; `None` reports on the whole source (the fleet table, then each session).
    pub id: Option<String>,
    /// The file to write, as the save dialog gave it (an `.html` file).
    pub to: String,
    /// Every message's whole text, folded (default: previews).
    #[serde(default)]
    pub bodies: bool,
}
