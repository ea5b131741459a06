//! What a running worker should be interrupted for: the post-mortem's stuck findings as
//! *conditions*, each with the message that tipped it, at thresholds the user sets.
//!
//! A condition is found on the session as it is now, so replaying a session line by line finds
//! each one at the message where it first holds, and never one that a later line takes back:
//! every kind here only grows with the session (a re-read stays a re-read), except the two the
//! watcher times itself (no request after a compaction, `waiting_after_compaction`).
//! Raising each kind once per session, clearing and the clock are `palimpsest-core::watch`'s;
//! the findings themselves are `rereads`', `thrash`', `loops`', `spills`' and `cost`'s.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::Diagnosis;
use super::loops::LoopKind;
use super::verdict::{compaction_list, count};
use crate::cost::SessionCost;
use crate::model::{Role, Session};

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A file read again and again after a compaction took the earlier read away.
    RereadsAfterCompaction,
    /// A compaction after which the context was still nearly as big.
    CompactionFreedLittle,
    /// Compactions a few requests apart.
    CompactionStorm,
    /// The API refused a request as too long after a compaction.
    PromptTooLong,
    /// The same call failing unchanged, again and again.
    FailingLoop,
    /// The same call getting the same answer, again and again.
    RepeatedCall,
    /// Spill files read and spilled again.
    SpillLoop,
    /// No request answered for a while after a compaction.
    IdleAfterCompaction,
    /// The session's cost passed the budget.
    OverBudget,
}

impl AlertKind {
    /// Every kind, in the order they are told.
    pub const ALL: [AlertKind; 9] = [
        AlertKind::RereadsAfterCompaction,
        AlertKind::CompactionFreedLittle,
        AlertKind::CompactionStorm,
        AlertKind::PromptTooLong,
        AlertKind::FailingLoop,
        AlertKind::RepeatedCall,
        AlertKind::SpillLoop,
        AlertKind::IdleAfterCompaction,
        AlertKind::OverBudget,
    ];

    /// The stable name (`rereads_after_compaction`, …), as JSON and the CLI spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::RereadsAfterCompaction => "rereads_after_compaction",
            AlertKind::CompactionFreedLittle => "compaction_freed_little",
            AlertKind::CompactionStorm => "compaction_storm",
            AlertKind::PromptTooLong => "prompt_too_long",
            AlertKind::FailingLoop => "failing_loop",
            AlertKind::RepeatedCall => "repeated_call",
            AlertKind::SpillLoop => "spill_loop",
            AlertKind::IdleAfterCompaction => "idle_after_compaction",
            AlertKind::OverBudget => "over_budget",
        }
    }

    /// The kind named `name` ([`AlertKind::as_str`]).
    pub fn parse(name: &str) -> Option<AlertKind> {
        AlertKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// The thresholds, one per kind; the defaults are the post-mortem's own, so an alert is raised
/// exactly when `diagnose` would call the worker stuck for that reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct AlertRules {
    /// Re-reads of one file, at least one of them after a compaction.
    pub rereads: usize,
    /// A compaction freeing less than this share of its context (0–1).
    pub freed_below: f64,
    /// Two compactions this many requests apart or fewer.
    pub storm_requests: usize,
    /// Failing calls in a row, all the same call (at least the post-mortem's 3).
    pub failing_calls: usize,
    /// The same call with the same answer, this many times with no write between (at least 3).
    pub repeated_calls: usize,
    /// Spill files read and spilled again in one chain (at least 2).
    pub spill_rereads: usize,
    /// Minutes with no request answered after a compaction.
    pub idle_minutes: f64,
    /// Dollars; no budget alert without one.
    pub budget_usd: Option<f64>,
    /// Kinds never raised.
    pub off: Vec<AlertKind>,
}

impl Default for AlertRules {
    fn default() -> Self {
        AlertRules {
            rereads: super::verdict::REREAD_STUCK,
            freed_below: super::thrash::FREED_MIN,
            storm_requests: super::thrash::REQUESTS_APART_MAX,
            failing_calls: super::loops::ERROR_STREAK_MIN,
            repeated_calls: super::loops::REPEAT_MIN,
            spill_rereads: 2,
            idle_minutes: 10.0,
            budget_usd: None,
            off: Vec::new(),
        }
    }
}

impl AlertRules {
    /// The kind is raised at all.
    pub fn on(&self, kind: AlertKind) -> bool {
        !self.off.contains(&kind)
    }
}

/// One condition that holds on the session: what, in words, and the message that tipped it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Condition {
    /// What it is about.
    pub kind: AlertKind,
    /// One clause, as the verdict words it.
    pub words: String,
    /// The message at which it first held.
    pub message_index: usize,
}

/// Every condition holding on `session` (diagnosed as `d`, costing `cost`) under `rules`,
/// earliest tip first. The idle kind is not here: it needs a clock (`waiting_after_compaction`).
pub fn conditions(
    session: &Session,
    d: &Diagnosis,
    cost: Option<&SessionCost>,
    rules: &AlertRules,
) -> Vec<Condition> {
    let mut out = Vec::new();
    rereads(d, rules, &mut out);
    thrash(session, rules, &mut out);
    loops(d, rules, &mut out);
    // Chains are found from two re-spills on: a lower threshold acts as two.
    let respills = rules.spill_rereads.max(2);
    for s in &d.spill_loops {
        // The first step read the file that spilled; each later one that spilled re-spilled.
        let Some(tip) = s.steps[1..]
            .iter()
            .filter(|step| step.spilled_to.is_some())
            .nth(respills - 1)
        else {
            continue;
        };
        out.push(Condition {
            kind: AlertKind::SpillLoop,
            words: format!(
                "spill loop on {}: {respills} spill files re-read and capped again",
                s.origin
            ),
            message_index: tip.call_index,
        });
    }
    if let (Some(budget), Some(cost)) = (rules.budget_usd, cost) {
        let mut sum = 0.0;
        if let Some(r) = cost.per_request.iter().find(|r| {
            sum += r.usd.unwrap_or(0.0);
            sum >= budget
        }) {
            out.push(Condition {
                kind: AlertKind::OverBudget,
                words: format!("cost ${sum:.2} passed the ${budget:.2} budget"),
                message_index: r.message_index,
            });
        }
    }
    out.retain(|c| rules.on(c.kind));
    out.sort_by_key(|c| (c.message_index, c.kind));
    out
}

/// The first re-read at which a file has been re-read `rules.rereads` times, one of them after a
/// compaction took the earlier read away.
fn rereads(d: &Diagnosis, rules: &AlertRules, out: &mut Vec<Condition>) {
    // Per file so far: re-reads, and the compactions that dropped an earlier read.
    let mut per_file: HashMap<&str, (usize, Vec<usize>)> = HashMap::new();
    for r in &d.reread_events {
        let (n, compactions) = per_file.entry(&r.path).or_default();
        let before = *n >= rules.rereads && !compactions.is_empty();
        *n += 1;
        compactions.extend(r.after_compaction);
        if !before && *n >= rules.rereads && !compactions.is_empty() {
            out.push(Condition {
                kind: AlertKind::RereadsAfterCompaction,
                words: format!(
                    "re-reading {} after {}: {}",
                    r.path,
                    compaction_list(compactions),
                    count(*n, "re-read")
                ),
                message_index: r.call_index,
            });
        }
    }
}

/// Compactions that freed little, storms and context-length errors, at the rules' thresholds.
fn thrash(session: &Session, rules: &AlertRules, out: &mut Vec<Condition>) {
    let cuts = super::cuts::cuts(session);
    let msgs = &session.messages;
    for t in super::thrash::thrash_at(
        session,
        &cuts,
        rules.freed_below,
        rules.storm_requests,
        None,
    ) {
        let Some(k) = cuts.iter().position(|c| c.number == t.compaction) else {
            continue;
        };
        let c = &cuts[k];
        if let (Some(b), Some(a)) = (t.before, t.after)
            && b > 0
            && (a as f64) >= (1.0 - rules.freed_below) * b as f64
        {
            // The first request after the cut that recorded its context told it.
            let told = (c.effective_index..msgs.len())
                .find(|&i| msgs[i].role == Role::Assistant && msgs[i].recorded_prompt() == Some(a));
            let freed = (b.saturating_sub(a) as f64 / b as f64 * 100.0).round();
            out.push(Condition {
                kind: AlertKind::CompactionFreedLittle,
                words: format!(
                    "compaction {} freed {freed:.0} % ({} → {})",
                    c.number,
                    super::thrash::grouped(b),
                    super::thrash::grouped(a)
                ),
                message_index: told.unwrap_or(c.cut_index),
            });
        }
        if let Some(requests) = t.next_compaction_after
            && let Some(next) = cuts[k + 1..]
                .iter()
                .find(|n| !n.partial() && !n.history_only)
        {
            out.push(Condition {
                kind: AlertKind::CompactionStorm,
                words: format!(
                    "{} within {}",
                    compaction_list(&[c.number, next.number]),
                    count(requests, "request")
                ),
                message_index: next.cut_index,
            });
        }
        if let Some(&first) = t.error_messages.first() {
            out.push(Condition {
                kind: AlertKind::PromptTooLong,
                words: format!("Prompt is too long after compaction {}", c.number),
                message_index: first,
            });
        }
    }
}

/// The same call failing unchanged, or answered the same, `rules`' number of times.
fn loops(d: &Diagnosis, rules: &AlertRules, out: &mut Vec<Condition>) {
    // A repeated pure read is the re-read kind's, as the verdict tells it.
    let reread_calls: Vec<usize> = d.reread_events.iter().map(|r| r.call_index).collect();
    // The same call failing the same way is one loop: told as failing, not also as repeated.
    let failing: Vec<usize> = d
        .loops
        .iter()
        .filter(|l| l.kind == LoopKind::ErrorStreak && l.tool.is_some())
        .flat_map(|l| l.messages.iter().copied())
        .collect();
    for l in &d.loops {
        if l.kind == LoopKind::RepeatedCall && l.messages.iter().all(|m| failing.contains(m)) {
            continue;
        }
        // Shorter runs than the post-mortem's minimum are not found at all: a lower threshold
        // acts as that minimum.
        let (kind, n) = match l.kind {
            LoopKind::ErrorStreak if l.tool.is_some() => (
                AlertKind::FailingLoop,
                rules.failing_calls.max(super::loops::ERROR_STREAK_MIN),
            ),
            LoopKind::RepeatedCall
                if !l.messages.iter().skip(1).all(|m| reread_calls.contains(m)) =>
            {
                (
                    AlertKind::RepeatedCall,
                    rules.repeated_calls.max(super::loops::REPEAT_MIN),
                )
            }
            _ => continue,
        };
        if l.messages.len() < n {
            continue;
        }
        let tool = l.tool.as_deref().unwrap_or("a call");
        out.push(Condition {
            kind,
            words: match kind {
                AlertKind::FailingLoop => format!("{n} failing calls in a row, all {tool}"),
                _ => format!("{tool} called {n} times with the same result"),
            },
            message_index: l.messages[n - 1],
        });
    }
}

/// The last full compaction, when no request was answered after it: its number and the message
/// the worker stopped on (the summary, else the cut).
pub fn waiting_after_compaction(session: &Session, d: &Diagnosis) -> Option<(usize, usize)> {
    let last = d.compactions.iter().rev().find(|c| !c.micro)?;
    let from = last.summary_index.map_or(last.cut_index, |s| s + 1);
    let answered = session.messages[from.min(session.messages.len())..]
        .iter()
        .any(|m| m.role == Role::Assistant && m.error.is_none());
    (!answered).then(|| (last.number, last.summary_index.unwrap_or(last.cut_index)))
}
