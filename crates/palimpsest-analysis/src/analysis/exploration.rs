//! Exploration share: how many calls only look (cat/ls/find/grep/rg/read/glob/head/tail/tree/
//! wc) rather than change anything, and how long calls took where the source timestamps both
//! the call and its result (result.created − call.created).

use serde::{Deserialize, Serialize};

use super::calls::Call;
use super::reads::CallClass;

/// Looking versus doing, and time per call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Exploration {
    /// Tool calls in the session.
    pub calls: usize,
    /// Calls that only look.
    pub look_calls: usize,
    /// Calls that wrote a file.
    pub write_calls: usize,
    /// `look_calls / calls` (0 when there are no calls).
    pub share: f64,
    /// Calls with both timestamps.
    pub timed_calls: usize,
    /// Mean seconds per timed call.
    pub seconds_per_call: Option<f64>,
    /// Mean seconds per timed look-only call.
    pub seconds_per_look_call: Option<f64>,
    /// Total seconds spent in look-only calls (timed ones).
    pub look_seconds: f64,
    /// Message indices of the look-only calls.
    pub look_messages: Vec<usize>,
}

/// Measure exploration. `classes[i]` classifies `calls[i]`.
pub(crate) fn exploration(calls: &[Call], classes: &[CallClass]) -> Exploration {
    let mut look_calls = 0;
    let mut write_calls = 0;
    let mut timed = 0;
    let mut total_ms: i64 = 0;
    let mut look_timed = 0;
    let mut look_ms: i64 = 0;
    let mut look_messages = Vec::new();
    for (c, class) in calls.iter().zip(classes) {
        let d = c.duration_ms();
        if let Some(d) = d {
            timed += 1;
            total_ms += d;
        }
        if class.writes() {
            write_calls += 1;
        }
        if class.look_only {
            look_calls += 1;
            look_messages.push(c.call_index);
            if let Some(d) = d {
                look_timed += 1;
                look_ms += d;
            }
        }
    }
    let mean = |ms: i64, n: usize| (n > 0).then(|| ms as f64 / 1000.0 / n as f64);
    Exploration {
        calls: calls.len(),
        look_calls,
        write_calls,
        share: if calls.is_empty() {
            0.0
        } else {
            look_calls as f64 / calls.len() as f64
        },
        timed_calls: timed,
        seconds_per_call: mean(total_ms, timed),
        seconds_per_look_call: mean(look_ms, look_timed),
        look_seconds: look_ms as f64 / 1000.0,
        look_messages,
    }
}
