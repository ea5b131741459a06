//! The anatomy of each compaction, derived from the model alone: where the cut is, what was
//! dropped, what came back verbatim (the kept tail, in place or re-appended), the summary and its
//! health, the preserved user message and whether the model now sees it twice, token counts
//! before and after, and which earlier summaries a summary folded in (chained compactions).
//!
//! Readers record only the cut, trigger, recorded tokens and the summary's index
//! ([`CompactionRecord`]); everything here follows from visibility over time
//! ([`super::context::Eras`]) so no format quirk leaks in. One exception, named: coworker keeps
//! the summary's text in its state dict (`raw.summary_text`), apart from the block around it,
//! and that is what its gate judges.

use serde::{Deserialize, Serialize};

use super::context::Eras;
use super::health::{self, HealthIssue, HealthProfile, SummaryHealth};
use crate::model::{CompactionRecord, MessageKind, Part, Role, Session, Trigger};
use crate::tokens::Counter;

/// One compaction, taken apart. Indices are stored indices (`Message::index`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompactionAnatomy {
    /// Position in `Session::compactions`.
    pub ordinal: usize,
    /// The boundary or summary: the first message of the compacted view.
    pub cut_index: usize,
    /// How it started, when recorded.
    pub trigger: Option<Trigger>,
    /// Context tokens before, as the source recorded them.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub pre_tokens: Option<u64>,
    /// Context tokens after, as the source recorded them.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub post_tokens: Option<u64>,
    /// Our count of the context just before the cut ([`Self::token_method`]).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub pre_tokens_counted: u64,
    /// Our count of the compacted context (cut block plus what was kept).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub post_tokens_counted: u64,
    /// How `*_counted` were obtained.
    pub token_method: String,
    /// The summary message.
    pub summary_index: Option<usize>,
    /// Length of the summary text in characters.
    pub summary_chars: Option<usize>,
    /// Problems with the summary (empty = healthy).
    pub health: Vec<HealthIssue>,
    /// The whole health check: sections found, size against the budget.
    pub summary_health: Option<SummaryHealth>,
    /// The note telling the model to carry on, when there is one.
    pub continuation_index: Option<usize>,
    /// Messages the model still sees verbatim across the cut: kept in place, or re-appended
    /// copies after the summary. Empty when nothing was kept (upstream goose).
    pub kept_tail: Vec<usize>,
    /// For each re-appended copy in `kept_tail`, the original it repeats (same order; `None`
    /// when the reader marked a copy whose original is not among the dropped messages).
    pub kept_copies_of: Vec<Option<usize>>,
    /// First and last message the model saw before the cut and not after it.
    pub dropped: Option<(usize, usize)>,
    /// How many messages were dropped.
    pub dropped_count: usize,
    /// The re-appended copy of the last user message, when there is one.
    pub preserved_index: Option<usize>,
    /// The message it copies.
    pub preserved_source: Option<usize>,
    /// True when the model sees that text twice (the kept tail already carries it).
    pub preserved_duplicate: bool,
    /// Earlier summaries this compaction dropped, and so folded into its own summary.
    pub chained_summaries: Vec<usize>,
    /// Messages in the context just before the cut.
    pub context_before: usize,
    /// Messages in the compacted context.
    pub context_after: usize,
    /// One past the last message of the cut block (summary, notes, copies).
    pub block_end: usize,
}

/// Take every compaction of `session` apart.
pub fn anatomy(
    session: &Session,
    eras: &Eras,
    counter: &dyn Counter,
    profile: &HealthProfile,
) -> Vec<CompactionAnatomy> {
    let mut order: Vec<usize> = (0..session.compactions.len()).collect();
    order.sort_by_key(|&i| session.compactions[i].cut_index);
    order
        .into_iter()
        .map(|i| one(session, eras, i, counter, profile))
        .collect()
}

fn one(
    session: &Session,
    eras: &Eras,
    ordinal: usize,
    counter: &dyn Counter,
    profile: &HealthProfile,
) -> CompactionAnatomy {
    let rec: &CompactionRecord = &session.compactions[ordinal];
    let msgs = &session.messages;
    let cut = rec.cut_index.min(msgs.len());
    // Before: the last request the compaction was not yet in force for. After: the first one
    // past its block, and past the point it took effect when that is later (coworker's notice).
    let effect = eras.effect(ordinal).min(msgs.len());
    let before = eras.context_at(effect);
    let blk = eras.block(ordinal);
    let dropped = &blk.dropped;
    let t_after = if effect > cut {
        blk.end.max(effect + 1)
    } else {
        blk.end.max(cut)
    };
    let after_all = eras.context_at(t_after);
    // The system prompt rides along every request: it is not something a compaction kept.
    let in_place: Vec<usize> = before
        .iter()
        .copied()
        .filter(|&p| eras.visible_at(p, t_after) && msgs[p].role != Role::System)
        .collect();
    let (summary, continuation, preserved) = (blk.summary, blk.continuation, blk.preserved);
    let copies = &blk.copies;
    let block_end = blk.end;
    // The newest earlier text-only user message with the same text.
    let preserved_source = preserved.and_then(|p| {
        let text = msgs[p].text();
        (0..cut).rev().find(|&d| {
            msgs[d].role == Role::User && msgs[d].has_text_only() && msgs[d].text() == text
        })
    });

    // In place (coworker, Claude's preserved segment: the readers' `kept` already shaped the
    // eras) or re-appended after the summary. A reader's `kept` may also name the preserved
    // copy (goose); that copy is reported as `preserved_index`, not as tail.
    let mut kept_tail: Vec<usize> = in_place.iter().map(|&p| msgs[p].index).collect();
    kept_tail.extend(copies.iter().map(|c| msgs[c.0].index));
    let after = after_all;
    let preserved_duplicate = preserved.is_some_and(|p| {
        let text = msgs[p].text();
        after.iter().any(|&q| {
            q != p
                && msgs[q].role == Role::User
                && msgs[q].has_text_only()
                && msgs[q].text() == text
        })
    });

    let summary_text = rec
        .raw
        .as_ref()
        .and_then(|r| r.get("summary_text"))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
        .or_else(|| summary.map(|s| msgs[s].text()));
    // A collapse summarises one span in a line or two (Claude Code context collapse): the
    // sections and size a whole-conversation summary needs do not apply to it.
    let mut summary_health = summary_text
        .as_ref()
        .filter(|_| rec.trigger != Some(Trigger::Collapse))
        .map(|t| health::check(t, profile));
    let opaque = summary.is_some_and(|s| {
        msgs[s].text().trim().is_empty()
            && msgs[s]
                .parts
                .iter()
                .any(|p| matches!(p, Part::Other { .. }))
    });
    if let Some(h) = summary_health.as_mut().filter(|h| opaque && h.chars == 0) {
        h.issues = vec![HealthIssue::Opaque {
            message: "the summary is opaque (encrypted server-side); nothing to judge".into(),
        }];
    }
    let health_issues = match &summary_health {
        Some(h) => h.issues.clone(),
        None if !matches!(
            rec.trigger,
            Some(Trigger::Micro | Trigger::Replacement | Trigger::Collapse)
        ) =>
        {
            vec![HealthIssue::Missing {
                message: "no summary message: the dropped span is gone without one".into(),
            }]
        }
        None => Vec::new(),
    };

    let idx = |p: usize| msgs[p].index;
    let count = |ps: &[usize]| ps.iter().map(|&p| counter.count(&msgs[p])).sum::<u64>();
    CompactionAnatomy {
        ordinal,
        cut_index: rec.cut_index,
        trigger: rec.trigger,
        pre_tokens: rec.pre_tokens,
        post_tokens: rec.post_tokens,
        pre_tokens_counted: count(&before),
        post_tokens_counted: count(&after),
        token_method: counter.method().to_owned(),
        summary_index: summary.map(idx),
        summary_chars: summary_health
            .as_ref()
            .map(|h| h.chars)
            .or_else(|| summary_text.as_ref().map(|t| t.chars().count())),
        health: health_issues,
        summary_health,
        continuation_index: continuation.map(idx),
        kept_tail,
        kept_copies_of: copies.iter().map(|c| c.1.map(idx)).collect(),
        dropped: dropped
            .first()
            .zip(dropped.last())
            .map(|(&a, &b)| (idx(a), idx(b))),
        dropped_count: dropped.len(),
        preserved_index: preserved.map(idx),
        preserved_source: preserved_source.map(idx),
        preserved_duplicate,
        chained_summaries: dropped
            .iter()
            .copied()
            .filter(|&p| msgs[p].kind == MessageKind::Summary)
            .map(idx)
            .collect(),
        context_before: before.len(),
        context_after: after.len(),
        block_end,
    }
}
