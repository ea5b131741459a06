//! "What the model saw at request N": when each stored message was part of the model's context.
//!
//! Readers leave two things: every message's *final* visibility (`agent_visible`) and one
//! [`CompactionRecord`] per compaction. That is enough to rebuild the context of every earlier
//! request, because compaction only ever hides what came before its cut and only ever adds
//! messages at its cut:
//!
//! - a message visible at the end was visible from its own position on;
//! - a hidden message was visible from its own position up to the first later compaction that
//!   dropped it (one whose `kept` list does not name it), so a message hidden by a *later*
//!   compaction is still in the context of every request before that cut;
//! - a hidden message no compaction explains (a `/compact` echo, a UI notice, the boundary
//!   line itself) was never in the model's context.
//!
//! A compaction is in force from its [`CompactionRecord::effective_index`]: its cut, or the later
//! `applied_index` when the reader knows the compaction happened after the messages stored past
//! its cut (coworker). Dropped messages leave, and the summary block it wrote at the cut joins,
//! only for requests answered after that point; every "before/after this compaction" question
//! (`requests`, `cut_before`, `compactions_before`) is answered from it, not from the cut.
//!
//! A request is the call whose answer is an ordinary assistant message; consecutive assistant
//! messages are one answer (Claude Code stores one content block per line). Its context is every
//! message stored before the answer that was visible at that point. The request after the last
//! message (the one the agent would send next) is numbered `requests().len() + 1`.
//!
//! Known limit: goose's tool-pair summaries hide two messages without a compaction record; this
//! module cannot date that hiding, so such a pair reads as never visible unless a later
//! compaction drops it (then it reads as visible until that cut).

use serde::{Deserialize, Serialize};

mod cutblock;
use crate::model::{CompactionRecord, MessageKind, Role, Session};
pub use cutblock::CutBlock;
use cutblock::{block, clears_in_place};

/// When one message was in the model's context: for every request point `t` (the position of
/// the answer) with `from < t <= until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) from: usize,
    pub(super) until: usize,
    /// Position in `Session::compactions` of the compaction that dropped it.
    pub(super) dropped_by: Option<usize>,
}

/// Visibility over time for one session, computed once from the readers' flags and records.
#[derive(Debug, Clone)]
pub struct Eras {
    spans: Vec<Option<Span>>,
    /// The positions of the messages ever in the context, by the last request point that saw
    /// them (`usize::MAX`: still there), each group ascending: where `context_at` looks.
    by_until: std::collections::BTreeMap<usize, Vec<usize>>,
    /// One block per entry of `Session::compactions` (same order).
    blocks: Vec<CutBlock>,
    /// Answer positions of the requests, in order.
    answers: Vec<usize>,
    /// `(cut_index, position in Session::compactions)`, sorted by cut.
    cuts: Vec<(usize, usize)>,
    /// Per entry of `Session::compactions`: the position from which it is in force.
    effects: Vec<usize>,
    len: usize,
}

/// One request the model answered (or the next one), as the ribbon lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestInfo {
    /// 1-based request number; the last entry of [`Eras::requests`] is the next request.
    pub number: usize,
    /// The stored index of the assistant message that answered it; `None` for the next request.
    pub answer_index: Option<usize>,
    /// How many messages its context held.
    pub context_len: usize,
    /// The cut of the latest compaction applied before it, if any.
    pub after_cut: Option<usize>,
}

impl Eras {
    /// Rebuild visibility over time from final flags and compaction records.
    pub fn new(session: &Session) -> Self {
        let msgs = &session.messages;
        let mut cuts: Vec<(usize, usize)> = session
            .compactions
            .iter()
            .enumerate()
            .map(|(i, c)| (c.cut_index, i))
            .collect();
        cuts.sort();
        let effects: Vec<usize> = session
            .compactions
            .iter()
            .map(CompactionRecord::effective_index)
            .collect();
        // A boundary line that is not itself the summary is bookkeeping, never model input. A
        // block written at the cut is input even without a summary (coworker's trim: its block
        // was sent until the next compaction).
        let boundaries: std::collections::HashSet<usize> = session
            .compactions
            .iter()
            .filter(|c| {
                c.summary_index != Some(c.cut_index)
                    && msgs
                        .get(c.cut_index)
                        .is_none_or(|m| m.kind != MessageKind::Summary)
            })
            .map(|c| c.cut_index)
            .collect();
        let mut spans: Vec<Option<Span>> = msgs
            .iter()
            .enumerate()
            .map(|(pos, m)| {
                if m.agent_visible {
                    return Some(Span {
                        from: pos,
                        until: usize::MAX,
                        dropped_by: None,
                    });
                }
                if m.kind == MessageKind::Notification || boundaries.contains(&pos) {
                    return None;
                }
                // The first later cut that drops it; the cuts are sorted, so the search starts
                // past the earlier ones (from the start, a session of many cuts was quadratic).
                let later = cuts.partition_point(|(cut, _)| *cut <= pos);
                let (_, ci) = *cuts[later..].iter().find(|(_, ci)| {
                    let c = &session.compactions[*ci];
                    !clears_in_place(session, c) && c.may_drop(m.index)
                })?;
                Some(Span {
                    from: pos,
                    until: effects[ci],
                    dropped_by: Some(ci),
                })
            })
            .collect();
        // A compaction in force only after its cut wrote its block (summary, or a trim's
        // rebuilt block) ahead of the messages answered with the old context: the block joins
        // the context at the effect point, not at its own position.
        for (ci, c) in session.compactions.iter().enumerate() {
            if effects[ci] == c.cut_index {
                continue;
            }
            for p in [Some(c.cut_index), c.summary_index].into_iter().flatten() {
                if msgs.get(p).is_none_or(|m| m.kind != MessageKind::Summary) {
                    continue;
                }
                if let Some(span) = spans[p].as_mut() {
                    span.from = span.from.max(effects[ci]);
                }
                // Dropped again before it ever joined: never in the model's context.
                if spans[p].is_some_and(|span| span.from >= span.until) {
                    spans[p] = None;
                }
            }
        }
        // What each compaction dropped, in one pass over the spans (not one per compaction).
        let mut dropped: Vec<Vec<usize>> = vec![Vec::new(); session.compactions.len()];
        for (p, s) in spans.iter().enumerate() {
            if let Some(ci) = s.and_then(|s| s.dropped_by) {
                dropped[ci].push(p);
            }
        }
        let blocks: Vec<CutBlock> = dropped
            .into_iter()
            .enumerate()
            .map(|(ci, dropped)| block(session, &spans, ci, dropped))
            .collect();
        let copies: std::collections::HashSet<usize> = blocks
            .iter()
            .flat_map(|b| b.copies.iter().map(|c| c.0))
            .collect();
        let mut answers = Vec::new();
        let mut prev_answer = false;
        for (pos, m) in msgs.iter().enumerate() {
            // Copies a compaction re-appended answer nothing: their request happened before.
            if m.kind == MessageKind::Notification || copies.contains(&pos) {
                continue;
            }
            let answer = m.role == Role::Assistant && m.kind == MessageKind::Ordinary;
            if answer && !prev_answer {
                answers.push(pos);
            }
            prev_answer = answer;
        }
        let mut by_until: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for (pos, s) in spans.iter().enumerate() {
            if let Some(s) = s {
                by_until.entry(s.until).or_default().push(pos);
            }
        }
        Eras {
            spans,
            by_until,
            blocks,
            answers,
            cuts,
            effects,
            len: msgs.len(),
        }
    }

    /// The block compaction `ci` (position in `Session::compactions`) wrote at its cut.
    pub fn block(&self, ci: usize) -> &CutBlock {
        &self.blocks[ci]
    }

    /// True when the message at `pos` was in the context of the request answered at `t`.
    pub fn visible_at(&self, pos: usize, t: usize) -> bool {
        self.spans
            .get(pos)
            .copied()
            .flatten()
            .is_some_and(|s| s.from < t && t <= s.until)
    }

    /// Positions of the messages in the context of the request answered at position `t`
    /// (`t = messages.len()` is the next request).
    pub fn context_at(&self, t: usize) -> Vec<usize> {
        // Only the messages still in the context at `t` (those a later cut drops, or none) are
        // looked at: a scan of every earlier message made each request's context cost the
        // whole session, and a session of thousands of cuts quadratic.
        let end = t.min(self.len);
        let mut out = Vec::new();
        for group in self.by_until.range(t..).map(|(_, g)| g) {
            let before = group.partition_point(|&p| p < end);
            out.extend(
                group[..before]
                    .iter()
                    .copied()
                    .filter(|&p| self.visible_at(p, t)),
            );
        }
        out.sort_unstable();
        out
    }

    /// Position in `Session::compactions` of the compaction that dropped message `pos`.
    pub fn dropped_by(&self, pos: usize) -> Option<usize> {
        self.spans.get(pos).copied().flatten()?.dropped_by
    }

    /// True when the message was ever in the model's context.
    pub fn ever_visible(&self, pos: usize) -> bool {
        self.spans.get(pos).is_some_and(Option::is_some)
    }

    /// The answer positions of the requests, in order (the next request is not included).
    pub fn answers(&self) -> &[usize] {
        &self.answers
    }

    /// The request point `t` of request `number` (1-based; `answers().len() + 1` = next).
    pub fn request_point(&self, number: usize) -> Option<usize> {
        match number {
            0 => None,
            n if n <= self.answers.len() => Some(self.answers[n - 1]),
            n if n == self.answers.len() + 1 => Some(self.len),
            _ => None,
        }
    }

    /// How many requests there are, counting the next one.
    pub fn request_count(&self) -> usize {
        self.answers.len() + 1
    }

    /// `(cut_index, position in Session::compactions)` of every compaction, by cut.
    pub fn cuts(&self) -> &[(usize, usize)] {
        &self.cuts
    }

    /// The position from which compaction `ci` (position in `Session::compactions`) is in
    /// force: requests answered after it see the compacted context.
    pub fn effect(&self, ci: usize) -> usize {
        self.effects[ci]
    }

    /// The cut of the latest compaction in force for the request answered at `t`, if any.
    pub fn cut_before(&self, t: usize) -> Option<usize> {
        self.cuts
            .iter()
            .rev()
            .find(|(_, ci)| self.effects[*ci] < t)
            .map(|(cut, _)| *cut)
    }

    /// How many compactions are in force for the request answered at `t`.
    pub fn compactions_before(&self, t: usize) -> usize {
        self.effects.iter().filter(|&&e| e < t).count()
    }

    /// The request points `t` for which the message at `pos` was in the model's context:
    /// `from < t <= until` (`until` is `usize::MAX` while it still is); `None` when never.
    pub fn visible_span(&self, pos: usize) -> Option<(usize, usize)> {
        self.spans
            .get(pos)
            .copied()
            .flatten()
            .map(|s| (s.from, s.until))
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty session.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every request with its context size, in one sweep (O(messages + requests)).
    pub fn requests(&self) -> Vec<RequestInfo> {
        // Visible count at t = #(from < t) - #(until < t), both monotone in t.
        let mut starts = vec![0usize; self.len + 2];
        let mut ends = vec![0usize; self.len + 2];
        for s in self.spans.iter().flatten() {
            starts[(s.from + 1).min(self.len + 1)] += 1;
            if s.until < self.len {
                ends[s.until + 1] += 1;
            }
        }
        let mut points: Vec<(Option<usize>, usize)> =
            self.answers.iter().map(|&a| (Some(a), a)).collect();
        points.push((None, self.len));
        let (mut t, mut started, mut ended) = (0usize, 0usize, 0usize);
        points
            .into_iter()
            .enumerate()
            .map(|(i, (answer, point))| {
                while t < point {
                    t += 1;
                    started += starts[t];
                    ended += ends[t];
                }
                RequestInfo {
                    number: i + 1,
                    answer_index: answer,
                    context_len: started - ended,
                    after_cut: self.cut_before(point),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{compacted_seed_five, seed_five_session};

    #[test]
    fn requests_are_the_assistant_answers_plus_the_next_one() {
        let s = seed_five_session();
        let e = Eras::new(&s);
        assert_eq!(
            e.answers(),
            &[1, 3],
            "two assistant tool calls answer two requests"
        );
        assert_eq!(e.context_at(1), vec![0], "request 1 saw the ask only");
        assert_eq!(
            e.context_at(3),
            vec![0, 1, 2],
            "request 2 saw ask, call, result"
        );
        assert_eq!(
            e.context_at(5),
            vec![0, 1, 2, 3, 4],
            "next request sees all five"
        );
    }

    #[test]
    fn messages_hidden_by_a_later_cut_were_visible_before_it() {
        let s = compacted_seed_five();
        let e = Eras::new(&s);
        assert_eq!(
            e.context_at(3),
            vec![0, 1, 2],
            "before the cut at 5 the originals were still the model's context"
        );
        assert_eq!(
            e.context_at(s.messages.len()),
            vec![5, 6, 7],
            "after it: summary, continuation, preserved copy (upstream goose)"
        );
        assert_eq!(
            e.dropped_by(2),
            Some(0),
            "the cat result was dropped by compaction 0"
        );
        let reqs = e.requests();
        assert_eq!(reqs.len(), 3, "two answered requests and the next one");
        assert_eq!(reqs[1].context_len, 3, "request 2 held three messages");
        assert_eq!(reqs[2].context_len, 3, "the next request holds three");
        assert_eq!(
            reqs[2].after_cut,
            Some(5),
            "the next request follows the cut at 5"
        );
    }
}
