//! The fleet view: one row per session (severity, re-reads, compactions, usable summaries,
//! verdict, cost) and totals across them, for a folder or database holding many sessions.
//! Each row's diagnosis is `diagnose`'s; loading the sessions is the caller's (`api`).

use serde::{Deserialize, Serialize};

use super::{Diagnosis, Severity};
use crate::model::SessionMeta;

/// One session in the fleet table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FleetRow {
    /// The session.
    pub session_id: String,
    /// Its format (`goose`, `coworker`, …).
    pub format: String,
    /// Stored messages.
    pub messages: usize,
    /// Tool calls.
    pub calls: usize,
    /// Compactions.
    pub compactions: usize,
    /// Compactions whose summary passes the gate.
    pub usable_summaries: usize,
    /// Successful file reads.
    pub reads: usize,
    /// Re-reads.
    pub rereads: usize,
    /// Re-reads after a compaction dropped the earlier read.
    pub rereads_after_compaction: usize,
    /// `rereads / reads` (0 without reads).
    pub reread_rate: f64,
    /// Share of calls that only look.
    pub exploration_share: f64,
    /// Spill loops.
    pub spill_loops: usize,
    /// The verdict line.
    pub verdict: String,
    /// Severity is `stuck`.
    pub stuck: bool,
    /// `stuck` | `watch` | `ok`.
    pub severity: Severity,
    /// The session's title (its name, first prompt or summary; the id when it has none).
    pub title: String,
    /// The file it lives in.
    pub path: String,
    /// Last update, Unix milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub updated: Option<i64>,
    /// Microcompacts (cleared tool results; not in `compactions`).
    pub microcompacts: usize,
    /// What the session cost in dollars at the price table's rates; null when a model it used
    /// has no price (or it recorded no usage).
    pub cost_usd: Option<f64>,
    /// The parent session, for subagents.
    pub parent_id: Option<String>,
}

/// Totals across the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FleetTotals {
    /// Sessions diagnosed.
    pub sessions: usize,
    /// Sessions whose severity is `stuck`.
    pub stuck_sessions: usize,
    /// Sessions whose severity is `watch`.
    pub watch_sessions: usize,
    /// Sessions with no finding.
    pub ok_sessions: usize,
    /// The sum of the sessions' costs that have one, each request counted once: a request a
    /// resumed transcript copied from another session is in `shared`, not counted again.
    pub cost_usd: f64,
    /// Requests held by more than one session, and what their copies cost (left out of
    /// `cost_usd`; each row's `cost_usd` is still its own file's).
    #[serde(default)]
    pub shared: crate::cost::Shared,
    /// Sessions without a cost (unknown model or no recorded usage).
    pub unpriced_sessions: usize,
    /// Compactions.
    pub compactions: usize,
    /// Usable summaries.
    pub usable_summaries: usize,
    /// `usable_summaries / compactions`, when there were compactions.
    pub usable_summary_rate: Option<f64>,
    /// Reads.
    pub reads: usize,
    /// Re-reads.
    pub rereads: usize,
    /// `rereads / reads` (0 without reads).
    pub reread_rate: f64,
}

/// The fleet: rows, totals, and sessions that failed to load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Fleet {
    /// One row per session: stuck first, then watch, then ok; most re-reads first within.
    pub sessions: Vec<FleetRow>,
    /// Totals.
    pub totals: FleetTotals,
    /// Sessions or files that failed, each naming its file.
    pub problems: Vec<crate::error::Problem>,
}

/// Make a fleet row. `cost_usd` is the session's cost, when it has one.
pub fn row(meta: &SessionMeta, d: &Diagnosis, cost_usd: Option<f64>) -> FleetRow {
    let reads: usize = d.rereads.iter().map(|f| f.reads).sum();
    let rereads: usize = d.rereads.iter().map(|f| f.rereads).sum();
    FleetRow {
        session_id: meta.id.clone(),
        format: meta.format.as_str().to_owned(),
        messages: meta.message_count,
        calls: d.exploration.calls,
        compactions: d.compactions.iter().filter(|c| !c.micro).count(),
        usable_summaries: d.compactions.iter().filter(|c| c.usable).count(),
        reads,
        rereads,
        rereads_after_compaction: d.rereads.iter().map(|f| f.after_compaction).sum(),
        reread_rate: if reads == 0 {
            0.0
        } else {
            rereads as f64 / reads as f64
        },
        exploration_share: d.exploration_share,
        spill_loops: d.spill_loops.len(),
        verdict: d.verdict.clone(),
        stuck: d.severity == Severity::Stuck,
        severity: d.severity,
        title: meta.name.clone(),
        path: meta.path.clone(),
        updated: meta.updated,
        microcompacts: d.compactions.iter().filter(|c| c.micro).count(),
        cost_usd,
        parent_id: meta.parent_id.clone(),
    }
}

/// Sort the rows and sum them, each request once (`shared`: the copies of requests one session
/// holds from another, [`crate::cost::shared`]).
pub fn fleet(
    mut rows: Vec<FleetRow>,
    problems: Vec<crate::error::Problem>,
    shared: crate::cost::Shared,
) -> Fleet {
    rows.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then(b.rereads.cmp(&a.rereads))
            .then(a.session_id.cmp(&b.session_id))
    });
    let sum = |f: fn(&FleetRow) -> usize| rows.iter().map(f).sum::<usize>();
    let compactions = sum(|r| r.compactions);
    let usable = sum(|r| r.usable_summaries);
    let reads = sum(|r| r.reads);
    let rereads = sum(|r| r.rereads);
    Fleet {
        totals: FleetTotals {
            sessions: rows.len(),
            stuck_sessions: rows.iter().filter(|r| r.stuck).count(),
            watch_sessions: rows
                .iter()
                .filter(|r| r.severity == Severity::Watch)
                .count(),
            ok_sessions: rows.iter().filter(|r| r.severity == Severity::Ok).count(),
            cost_usd: crate::cost::round_usd(
                rows.iter().filter_map(|r| r.cost_usd).sum::<f64>() - shared.usd,
            ),
            shared,
            unpriced_sessions: rows.iter().filter(|r| r.cost_usd.is_none()).count(),
            compactions,
            usable_summaries: usable,
            usable_summary_rate: (compactions > 0).then(|| usable as f64 / compactions as f64),
            reads,
            rereads,
            reread_rate: if reads == 0 {
                0.0
            } else {
                rereads as f64 / reads as f64
            },
        },
        sessions: rows,
        problems,
    }
}
