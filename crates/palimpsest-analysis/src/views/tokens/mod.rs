//! The token views built from a session's piece counts: the final agent-visible context by
//! category, everything processed over the run (the sum of each request's context: the cost
//! view), the context of every request, top tools and parts, and the usage the source recorded
//! beside our estimate. Counting is `tokens/mod.rs`'s job; drawing is `charts`'. The per-category
//! types are in `totals`, recorded usage against our estimate in `usage` (both re-exported here).
//!
//! A request and its context are what `compaction::Eras` says (the first assistant message of
//! each run of assistant messages; the messages before it the model could see then).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::tokens::totals::{CategoryCounts, CategoryShare, CategoryTotals};
pub mod shown;
mod top;
mod usage;
use crate::compaction::Eras;
use crate::model::{Role, Session, Trigger};
use crate::tokens::{Category, CountStats, SessionCounts, ToolKind};
pub use shown::{RequestLine, TokenView, shown};
use usage::usage;
pub use usage::{UsageComparison, message_usage};

/// The context of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestTokens {
    /// 0-based request number.
    pub request: usize,
    /// The assistant message that answered it.
    pub message_index: usize,
    /// Our estimate of its context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The estimate by category.
    pub categories: CategoryCounts,
    /// The context the source recorded for it (input + cache reads + cache writes), when it did.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded: Option<u64>,
}

/// Tokens one tool put into the session (each stored part counted once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ToolTokens {
    /// The tool's name as called (`(unknown)` for results whose call is missing).
    pub name: String,
    /// What it does.
    pub kind: ToolKind,
    /// Number of calls.
    pub calls: usize,
    /// Tool-call argument tokens (bodies excluded).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub arguments: u64,
    /// Write and edit body tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bodies: u64,
    /// Result tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub results: u64,
    /// The sum.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The message holding this tool's largest part (to jump to).
    pub largest_message_index: usize,
}

/// One stored part and its tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PartTokens {
    /// The message (to jump to).
    pub message_index: usize,
    /// The part's position in it.
    pub part_index: usize,
    /// The category holding most of its tokens.
    pub category: String,
    /// The tool, for tool traffic.
    pub tool: Option<String>,
    /// Tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// Bytes counted.
    pub bytes: usize,
    /// In the final agent-visible context.
    pub agent_visible: bool,
}

/// A compaction cut, placed on the request axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutMark {
    /// First message after the cut.
    pub cut_index: usize,
    /// First request after the cut (None when no request follows).
    pub request: Option<usize>,
    /// How it started.
    pub trigger: Option<Trigger>,
    /// Context before, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub pre_tokens: Option<u64>,
}

/// Everything the Tokens view shows for one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TokenReport {
    /// The session.
    pub session_id: String,
    /// The vocabulary (`o200k_base`, `cl100k_base`).
    pub encoding: String,
    /// The final agent-visible context by category.
    pub final_context: CategoryTotals,
    /// The sum over requests of each request's context, by category.
    pub processed: CategoryTotals,
    /// What the source recorded, beside our estimate; null when it recorded nothing.
    pub recorded_usage: Option<UsageComparison>,
    /// Tools by tokens, largest first.
    pub top_tools: Vec<ToolTokens>,
    /// Parts by tokens, largest first.
    pub top_parts: Vec<PartTokens>,
    /// The context of every request.
    pub per_request: Vec<RequestTokens>,
    /// Compaction cuts on the request axis.
    pub compactions: Vec<CutMark>,
    /// The model's context window, when known.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_limit: Option<u64>,
    /// The compaction trigger drawn on the chart, when known or given.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub trigger_tokens: Option<u64>,
    /// Cache use of this count.
    pub stats: CountStats,
    /// What the session cost at the price table's rates (from recorded usage); null when it
    /// recorded no usage. Filled by `api::token_report`.
    #[serde(default)]
    pub cost: Option<crate::cost::SessionCost>,
    /// Why the token cache was not used, or not all the way (it cannot be written, its disk is
    /// full); null when it was, or when none was asked for. The counts are whole either way.
    #[serde(default)]
    pub cache_note: Option<String>,
}

/// Options of [`build`].
#[derive(Debug, Clone, Copy)]
pub struct ReportOptions {
    /// How many tools and parts to list.
    pub top: usize,
    /// The compaction trigger to draw; default 80% of the context window when it is known.
    pub trigger_tokens: Option<u64>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            top: 20,
            trigger_tokens: None,
        }
    }
}

/// Build the views of `session` from its `counts`.
pub fn build(session: &Session, counts: &SessionCounts, opts: ReportOptions) -> TokenReport {
    let pos = session.positions();
    let mut per_msg = vec![[0u64; 10]; session.messages.len()];
    for pc in &counts.pieces {
        if let Some(&p) = pos.get(&pc.message_index) {
            per_msg[p][pc.category.index()] += pc.tokens;
        }
    }

    let mut final_ctx = [0u64; 10];
    for (m, sums) in session.messages.iter().zip(&per_msg) {
        if m.agent_visible {
            add(&mut final_ctx, sums);
        }
    }

    let per_request = requests(session, &per_msg);
    let mut processed = [0u64; 10];
    for r in &per_request {
        for c in Category::ALL {
            processed[c.index()] += r.categories.get(c);
        }
    }
    let compactions = session
        .compactions
        .iter()
        .map(|c| CutMark {
            cut_index: c.cut_index,
            // Requests are in message order; a scan per compaction made a session of many
            // compactions quadratic.
            request: per_request
                .get(per_request.partition_point(|r| r.message_index < c.effective_index()))
                .map(|r| r.request),
            trigger: c.trigger,
            pre_tokens: c.pre_tokens,
        })
        .collect();
    TokenReport {
        session_id: session.meta.id.clone(),
        encoding: counts.encoding.as_str().to_owned(),
        final_context: CategoryTotals::from_array(&final_ctx),
        processed: CategoryTotals::from_array(&processed),
        recorded_usage: usage(session, &per_request, final_ctx.iter().sum()),
        top_tools: top::top_tools(counts, opts.top),
        top_parts: top::top_parts(session, &pos, counts, opts.top),
        per_request,
        compactions,
        context_limit: session.meta.context_limit,
        trigger_tokens: opts
            .trigger_tokens
            .or(session.meta.context_limit.map(|l| l * 4 / 5)),
        stats: counts.stats,
        cost: None,
        cache_note: counts.cache_problem.clone(),
    }
}

fn add(into: &mut [u64; 10], from: &[u64; 10]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

fn sub(from: &mut [u64; 10], what: &[u64; 10]) {
    for (a, b) in from.iter_mut().zip(what) {
        *a -= b;
    }
}

/// The context of each request, by a sweep over `compaction::Eras` (which dates each message's
/// visibility): a message joins the running sum once requests pass the point it became visible
/// (its own position, or the point a compaction took effect for the block it wrote) and leaves
/// it once they pass the point the compaction that dropped it took effect.
fn requests(session: &Session, per_msg: &[[u64; 10]]) -> Vec<RequestTokens> {
    let eras = Eras::new(session);
    let answers = eras.answers();
    let mut running = [0u64; 10];
    // Visible at t when from < t <= until: sums joining once t passes `from`, leaving once it
    // passes `until`.
    let mut joining: BTreeMap<usize, [u64; 10]> = BTreeMap::new();
    let mut leaving: BTreeMap<usize, [u64; 10]> = BTreeMap::new();
    let mut out: Vec<RequestTokens> = Vec::with_capacity(answers.len());
    let mut next = 0;
    for (pos, (m, sums)) in session.messages.iter().zip(per_msg).enumerate() {
        if next < answers.len() && answers[next] == pos {
            // Joins first: a span that both joined and left before t must not underflow.
            for (map, join) in [(&mut joining, true), (&mut leaving, false)] {
                while let Some(entry) = map.first_entry() {
                    if *entry.key() >= pos {
                        break;
                    }
                    let v = entry.remove();
                    if join {
                        add(&mut running, &v);
                    } else {
                        sub(&mut running, &v);
                    }
                }
            }
            out.push(RequestTokens {
                request: next,
                message_index: m.index,
                total: running.iter().sum(),
                categories: CategoryCounts::from_array(&running),
                recorded: None,
            });
            next += 1;
        }
        if m.role == Role::Assistant
            && let Some(u) = message_usage(m)
            && let Some(r) = out.last_mut()
        {
            // Claude repeats one response's usage on each of its lines: one per request.
            r.recorded = Some(u);
        }
        let Some((from, until)) = eras.visible_span(pos) else {
            continue;
        };
        add(joining.entry(from).or_default(), sums);
        if until != usize::MAX {
            add(leaving.entry(until).or_default(), sums);
        }
    }
    out
}
