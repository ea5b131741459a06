//! Request of `get_recorded` (the requests an agent recorded it sent, for the Requests tab's
//! "recorded request"); declared beside the others in [`super::with_commands`].

use serde::{Deserialize, Serialize};

/// Request of `get_recorded`: every recorded request of one session, each beside the request
/// rebuilt from it ([`crate::api::recorded`]). The app looks where the CLI does by default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetRecordedReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
}
