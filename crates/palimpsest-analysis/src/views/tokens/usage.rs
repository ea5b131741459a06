//! The usage a source recorded, beside our estimate: each message's recorded context (from the
//! details the readers leave, format by format) and the session's comparison. Reading the
//! sources is the readers' job; which request a message answers is the report's.

use serde::{Deserialize, Serialize};

use super::RequestTokens;
use crate::model::{Message, RecordedUsage, Session};

/// Usage the source recorded, beside our estimate of the same thing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct UsageComparison {
    /// The session-level record (last request), when there is one.
    pub session: Option<RecordedUsage>,
    /// Context of the last recorded request: input + cache reads + cache writes.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded_context: Option<u64>,
    /// Our estimate of that same request's context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub estimated_context: u64,
    /// estimate − recorded (positive: we count more).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub difference: Option<i64>,
    /// difference / recorded.
    pub difference_share: Option<f64>,
    /// Requests whose messages carry usage.
    pub requests_with_usage: usize,
    /// Sum of the recorded per-request contexts (the recorded cost view).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded_processed: Option<u64>,
}

/// The recorded context of the request `m` answers ([`Message::recorded_prompt`]).
pub fn message_usage(m: &Message) -> Option<u64> {
    m.recorded_prompt()
}

pub(crate) fn usage(
    session: &Session,
    reqs: &[RequestTokens],
    final_total: u64,
) -> Option<UsageComparison> {
    let recorded: Vec<(usize, u64)> = reqs
        .iter()
        // A request recorded as 0 input tokens recorded nothing (an aborted or local call):
        // comparing against it would give a ratio over zero.
        .filter_map(|r| r.recorded.filter(|&u| u > 0).map(|u| (r.request, u)))
        .collect();
    let meta = session.meta.usage.clone();
    // The reader says what the whole prompt was; input alone is the best guess without it.
    let meta_ctx = meta
        .as_ref()
        .and_then(|u| u.context_tokens.or(u.input_tokens))
        .filter(|&u| u > 0);
    if meta.is_none() && recorded.is_empty() {
        return None;
    }
    // Compare like with like: the last request's recorded context against our estimate of it.
    let (recorded_context, estimated_context) = match (recorded.last(), meta_ctx) {
        (Some(&(r, u)), _) => (Some(u), reqs[r].total),
        (None, Some(u)) => (Some(u), reqs.last().map_or(final_total, |r| r.total)),
        (None, None) => (None, reqs.last().map_or(final_total, |r| r.total)),
    };
    let difference = recorded_context.map(|r| estimated_context as i64 - r as i64);
    Some(UsageComparison {
        session: meta,
        recorded_context,
        estimated_context,
        difference,
        difference_share: match (difference, recorded_context) {
            (Some(d), Some(r)) if r > 0 => Some(d as f64 / r as f64),
            _ => None,
        },
        requests_with_usage: recorded.len(),
        recorded_processed: (!recorded.is_empty()).then(|| recorded.iter().map(|x| x.1).sum()),
    })
}
