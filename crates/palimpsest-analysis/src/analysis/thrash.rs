//! Compaction thrash: compactions that did not free the context. A compaction after which the
//! next request's recorded context is still ≥ 80 % of what it was before, two compactions a
//! few requests apart, or context-length errors (*Prompt is too long*) after one. Each is a
//! worker that keeps paying for summaries and gets nowhere.
//! Where the cuts are is `cuts`'; what a request's recorded context was is `tokens::report`'s.

use serde::{Deserialize, Serialize};

use super::classified::{Classified, says_too_long};
use super::cuts::Cut;
use crate::model::{Message, Part, Role, Session};

/// A compaction that freed less than this share of its context did not help.
pub const FREED_MIN: f64 = 0.20;
/// Two compactions this many requests apart or fewer: the first did not buy room.
pub const REQUESTS_APART_MAX: usize = 3;

/// One compaction that thrashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Thrash {
    /// The compaction (1-based, `compactions`' numbering).
    pub compaction: usize,
    /// Recorded context before it.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub before: Option<u64>,
    /// Recorded context of the first request after it.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub after: Option<u64>,
    /// Requests until the next compaction, when it came within [`REQUESTS_APART_MAX`] (or the
    /// threshold [`thrash_at`] was given).
    pub next_compaction_after: Option<usize>,
    /// Context-length errors after it (before the next compaction).
    pub context_errors: usize,
    /// Messages holding those errors.
    pub error_messages: Vec<usize>,
    /// The finding as one clause.
    pub description: String,
}

/// `181060` → `181 060`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// True when a part of message `m` says the prompt was too long; a result's text is asked of
/// `classified` when it read it already (a long one is held packed).
fn context_error(m: &Message, classified: Option<&Classified<'_>>) -> bool {
    m.parts.iter().any(|p| match p {
        Part::Text { text } => says_too_long(text),
        Part::ToolResult { call_id, text, .. } => classified
            .and_then(|c| c.result_of(m.index, call_id, text))
            .map_or_else(|| says_too_long(&text.text()), |said| said.too_long),
        Part::Other { raw, .. } => says_too_long(&raw.to_string()),
        _ => false,
    })
}

/// The compactions of `session` (`cuts`, microcompacts, content replacements, context
/// collapses and summaries of the chat history alone left out: each takes only part of the
/// context by design, so a context still near its size after one is no sign of thrash) that
/// thrashed. The results' texts are asked of `classified` when the caller has it.
pub fn thrash(session: &Session, cuts: &[Cut], classified: Option<&Classified<'_>>) -> Vec<Thrash> {
    thrash_at(session, cuts, FREED_MIN, REQUESTS_APART_MAX, classified)
}

/// [`thrash`] at other thresholds: a compaction that freed less than `freed_min` of its
/// context, two compactions `apart_max` requests apart or fewer (the live alerts' settings).
pub fn thrash_at(
    session: &Session,
    cuts: &[Cut],
    freed_min: f64,
    apart_max: usize,
    classified: Option<&Classified<'_>>,
) -> Vec<Thrash> {
    let full: Vec<&Cut> = cuts
        .iter()
        .filter(|c| !c.partial() && !c.history_only)
        .collect();
    let msgs = &session.messages;
    let recorded = |i: usize| {
        let m = &msgs[i];
        (m.role == Role::Assistant)
            .then(|| m.recorded_prompt())
            .flatten()
            .filter(|&u| u > 0)
    };
    // Requests answered between each full compaction and the next.
    let gaps: Vec<usize> = (0..full.len())
        .map(|k| {
            let end = full
                .get(k + 1)
                .map_or(msgs.len(), |n| n.cut_index)
                .min(msgs.len());
            (full[k].cut_index..end)
                .filter(|&i| {
                    msgs[i].role == Role::Assistant
                        && (i == 0 || msgs[i - 1].role != Role::Assistant)
                })
                .count()
        })
        .collect();
    let mut out = Vec::new();
    for (k, c) in full.iter().enumerate() {
        let end = full.get(k + 1).map_or(msgs.len(), |n| n.cut_index);
        let record = session
            .compactions
            .iter()
            .find(|r| r.cut_index == c.cut_index);
        let before = record
            .and_then(|r| r.pre_tokens)
            .or_else(|| (0..c.cut_index.min(msgs.len())).rev().find_map(recorded));
        let after = (c.effective_index..end.min(msgs.len())).find_map(recorded);
        let next_compaction_after = (k + 1 < full.len() && gaps[k] <= apart_max).then_some(gaps[k]);
        // A run of close compactions is told once, at its first.
        let run_starts = next_compaction_after.is_some() && (k == 0 || gaps[k - 1] > apart_max);
        let run_end = (k..full.len())
            .find(|&j| j + 1 >= full.len() || gaps[j] > apart_max)
            .unwrap_or(k);
        let error_messages: Vec<usize> = (c.cut_index..end.min(msgs.len()))
            .filter(|&i| context_error(&msgs[i], classified))
            .collect();
        let mut clauses = Vec::new();
        let freed_little = match (before, after) {
            (Some(b), Some(a)) if b > 0 => (a as f64) >= (1.0 - freed_min) * b as f64,
            _ => false,
        };
        if freed_little && let (Some(b), Some(a)) = (before, after) {
            let freed = (b.saturating_sub(a) as f64 / b as f64 * 100.0).round();
            clauses.push(format!(
                "compaction {} freed {freed:.0} % ({} → {})",
                c.number,
                grouped(b),
                grouped(a)
            ));
        }
        if !error_messages.is_empty() {
            let head = if clauses.is_empty() {
                format!("after compaction {}", c.number)
            } else {
                "then".to_owned()
            };
            clauses.push(format!(
                "{head} {} × Prompt is too long",
                error_messages.len()
            ));
        }
        if run_starts {
            let numbers: Vec<usize> = full[k..=run_end].iter().map(|c| c.number).collect();
            let requests: usize = gaps[k..run_end].iter().sum();
            let list = super::verdict::compaction_list(&numbers);
            clauses.push(format!(
                "{}{list} within {}",
                if clauses.is_empty() { "" } else { "and " },
                super::verdict::count(requests, "request")
            ));
        }
        if clauses.is_empty() {
            continue;
        }
        out.push(Thrash {
            compaction: c.number,
            before,
            after,
            next_compaction_after,
            context_errors: error_messages.len(),
            error_messages,
            description: clauses.join(", "),
        });
    }
    out
}
