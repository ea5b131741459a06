//! The Tokens view as the window receives it: the report without its two per-request lists,
//! and the four numbers per request the window draws (its table of every request, the chart's
//! hover). On a 2 GB session those lists are about 50 MB of JSON, which the window would parse
//! on the thread that draws it. The chart is drawn by core from the whole report (`charts`);
//! the command line prints the whole report (`palimpsest tokens --json`).

use serde::{Deserialize, Serialize};

use super::TokenReport;

/// One request as the window lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestLine {
    /// 0-based request number.
    pub request: usize,
    /// The assistant message that answered it.
    pub message_index: usize,
    /// Our estimate of its context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The context the source recorded for it, when it did.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded: Option<u64>,
}

/// What the window's Tokens tab receives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TokenView {
    /// The report, with `per_request` and its cost's `per_request` left empty.
    pub report: TokenReport,
    /// Every request's line, in order.
    pub requests: Vec<RequestLine>,
    /// How many requests the cost priced (its `per_request`'s length).
    pub priced_requests: usize,
}

/// `report` as the window receives it (taken, not copied: its lists are what the window is
/// spared, tens of megabytes on a 2 GB session).
pub fn shown(mut report: TokenReport) -> TokenView {
    let requests = lines(&report);
    let priced_requests = priced(&report);
    report.per_request = Vec::new();
    if let Some(c) = report.cost.as_mut() {
        c.per_request = Vec::new();
    }
    TokenView {
        report,
        requests,
        priced_requests,
    }
}

/// Every request's line of `report`, as [`TokenView::requests`] has them.
pub fn lines(report: &TokenReport) -> Vec<RequestLine> {
    report
        .per_request
        .iter()
        .map(|r| RequestLine {
            request: r.request,
            message_index: r.message_index,
            total: r.total,
            recorded: r.recorded,
        })
        .collect()
}

/// How many requests `report`'s cost priced, as [`TokenView::priced_requests`] says.
pub fn priced(report: &TokenReport) -> usize {
    report.cost.as_ref().map_or(0, |c| c.per_request.len())
}
