//! (placeholder) reader for the `coworker` format — filled by its issue.

use super::{Claim, Probe};

/// Claims nothing yet.
pub fn claim(_probe: &Probe) -> Claim {
    None
}
