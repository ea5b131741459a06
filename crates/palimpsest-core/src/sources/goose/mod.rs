//! (placeholder) goose reader — `sessions.db` and legacy `.jsonl`.

use super::{Claim, Probe};

/// Claims nothing yet.
pub fn claim(_probe: &Probe) -> Claim {
    None
}
