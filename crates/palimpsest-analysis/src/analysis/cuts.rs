//! The compactions of a session as the diagnoses need them: where each cut landed, what it
//! kept verbatim, its summary text, and which stored messages it dropped from the model's view.
//!
//! Uses [`Session::compactions`] as the readers filled it; when a reader recorded none but
//! left summary messages (goose rows marked as summaries), a cut is taken at each summary.
//! Detecting cuts in formats that leave no trace at all is `compaction`'s job, not this one's.

use super::kept::Kept;

use serde_json::Value;

use crate::model::{MessageKind, Role, Session};

/// One compaction, numbered from 1 in session order.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    /// 1-based number.
    pub number: usize,
    /// First message after the cut (boundary marker or summary).
    pub cut_index: usize,
    /// Where the compaction took effect ([`crate::model::CompactionRecord::effective_index`]):
    /// messages stored between the cut and this point were answered with the old context.
    pub effective_index: usize,
    /// The message holding the summary, when there is one.
    pub summary_index: Option<usize>,
    /// Messages before the cut that stayed visible verbatim.
    pub kept: super::kept::Kept,
    /// The summary text (empty when none was written).
    pub summary_text: String,
    /// The source says no summary was made (coworker's trim fallback).
    pub trimmed: bool,
    /// A microcompact: no message dropped and no summary written; the results it cleared are
    /// the messages it took from view (`kept` is everything else before the cut).
    pub micro: bool,
    /// For a microcompact, the messages whose tool results it cleared.
    pub cleared: Vec<usize>,
    /// For a context collapse: the span it archived (first, last). It drops that span only,
    /// and the next full cut still drops from the previous full cut.
    pub archived: Option<(usize, usize)>,
    /// The compactor summarised the chat history alone, while the files and map it sends with
    /// every request stayed (Aider's `ChatSummary`, the record's `history_only`): it drops
    /// messages as any cut does, but by design frees only part of the context (`thrash` does
    /// not judge it by what it freed).
    pub history_only: bool,
}

impl Cut {
    /// True for a cut that takes only part of the context: a microcompact or content
    /// replacement (results rewritten in place) or a context collapse (one span).
    pub fn partial(&self) -> bool {
        self.micro || self.archived.is_some()
    }
}

/// The session's compactions, in cut order.
pub fn cuts(session: &Session) -> Vec<Cut> {
    let mut out: Vec<Cut> = if session.compactions.is_empty() {
        session
            .messages
            .iter()
            .filter(|m| m.kind == MessageKind::Summary)
            .map(|m| Cut {
                number: 0,
                cut_index: m.index,
                effective_index: m.index,
                summary_index: Some(m.index),
                kept: Kept::default(),
                summary_text: String::new(),
                trimmed: false,
                micro: false,
                cleared: Vec::new(),
                archived: None,
                history_only: false,
            })
            .collect()
    } else {
        // Found once for every microcompact: a scan of the messages per microcompact made a
        // long session's hundreds of them quadratic.
        let results = crate::model::ResultHolders::of(&session.messages);
        session
            .compactions
            .iter()
            .map(|c| Cut {
                number: 0,
                cut_index: c.cut_index,
                effective_index: c.effective_index(),
                summary_index: c.summary_index.or_else(|| {
                    session
                        .messages
                        .get(c.cut_index..)
                        .into_iter()
                        .flatten()
                        .take(3)
                        .find(|m| m.kind == MessageKind::Summary)
                        .map(|m| m.index)
                }),
                kept: Kept::Set(c.kept.iter().copied().collect()),
                micro: is_microcompact(session, c),
                cleared: if is_microcompact(session, c) {
                    cleared_messages(session, &results, c)
                } else {
                    Vec::new()
                },
                archived: (c.trigger == Some(crate::model::Trigger::Collapse))
                    .then_some(c.archived.unwrap_or((c.cut_index, c.cut_index))),
                summary_text: raw_summary(c.raw.as_ref()),
                trimmed: c
                    .raw
                    .as_ref()
                    .and_then(|r| find_key(r, "trimmed"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                history_only: c
                    .raw
                    .as_ref()
                    .and_then(|r| r.get("history_only"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
            .collect()
    };
    out.sort_by_key(|c| c.cut_index);
    for c in out.iter_mut().filter(|c| c.micro) {
        // What a microcompact left in view: everything before it but the results it cleared.
        c.kept = Kept::all_but(c.cut_index, c.cleared.clone());
        c.summary_index = None;
    }
    for c in out.iter_mut() {
        // What a collapse left in view: everything before it outside the span it archived.
        if let Some((a, b)) = c.archived {
            c.kept = Kept::Outside {
                before: c.cut_index,
                first: a,
                last: b,
            };
        }
    }
    for (i, c) in out.iter_mut().enumerate() {
        c.number = i + 1;
        if let Some(m) = c.summary_index.and_then(|i| session.messages.get(i)) {
            let text = m.text();
            if !text.trim().is_empty() {
                c.summary_text = text;
            }
        }
    }
    out
}

/// The compaction (1-based) that dropped message `earlier` from view before message `later`:
/// the first cut after `earlier`, in force at or before `later`, that did not keep it.
pub fn dropped_between(cuts: &[Cut], earlier: usize, later: usize) -> Option<usize> {
    cuts.iter()
        .find(|c| c.cut_index > earlier && c.effective_index <= later && !c.kept.contains(&earlier))
        .map(|c| c.number)
}

/// Claude Code's microcompact: it clears named tool results and writes no summary. (coworker's
/// `micro` trigger writes a summary like any compaction, and is one.)
fn is_microcompact(session: &Session, c: &crate::model::CompactionRecord) -> bool {
    let summary_follows = session
        .messages
        .get(c.cut_index..)
        .into_iter()
        .flatten()
        .take(3)
        .any(|m| m.kind == MessageKind::Summary);
    c.trigger == Some(crate::model::Trigger::Replacement)
        || c.trigger == Some(crate::model::Trigger::Micro)
            && (!c.cleared_calls().is_empty() || c.summary_index.is_none() && !summary_follows)
}

/// The messages before the cut holding the tool results a microcompact record names, by
/// stored index, in order.
fn cleared_messages(
    session: &Session,
    results: &crate::model::ResultHolders<'_>,
    record: &crate::model::CompactionRecord,
) -> Vec<usize> {
    let calls = record.cleared_calls();
    results
        .of_calls(calls.iter().map(String::as_str), record.cut_index)
        .into_iter()
        .map(|p| session.messages[p].index)
        .collect()
}

/// Indices of the ordinary messages cut `k` (0-based position in `cuts`) dropped: those after
/// the previous full cut and before this one, minus the kept ones. A microcompact drops none;
/// a collapse drops the span it archived.
pub fn dropped_span(session: &Session, cuts: &[Cut], k: usize) -> Vec<usize> {
    if cuts[k].micro {
        return Vec::new();
    }
    let start = cuts[..k]
        .iter()
        .rev()
        .find(|c| !c.partial())
        .map_or(0, |c| c.cut_index);
    let end = cuts[k].cut_index.min(session.messages.len());
    (start..end)
        .filter(|i| !cuts[k].kept.contains(i))
        .filter(|&i| {
            matches!(
                session.messages[i].kind,
                MessageKind::Ordinary | MessageKind::PreservedCopy | MessageKind::ToolSummary
            )
        })
        .collect()
}

/// Indices of what the model still had of the span after cut `k`: the kept messages and the
/// summary, continuation and preserved copies written at the cut.
pub fn kept_after(session: &Session, cuts: &[Cut], k: usize) -> Vec<usize> {
    kept_after_until(session, cuts, k).0
}

/// [`kept_after`], and the message whose reading ended it (`None`: it ran to the session's
/// end, so messages appended later may still belong to it). Everything said about cut `k`'s
/// dropped span, summary and kept tail is read from messages before that one, or from it.
pub fn kept_after_until(session: &Session, cuts: &[Cut], k: usize) -> (Vec<usize>, Option<usize>) {
    let c = &cuts[k];
    let mut out: Vec<usize> = c.kept.iter().collect();
    let mut after_continuation = false;
    for m in session.messages.iter().skip(c.cut_index) {
        let is_cut_machinery = matches!(
            m.kind,
            MessageKind::Summary
                | MessageKind::Continuation
                | MessageKind::PreservedCopy
                | MessageKind::Notification
        );
        // goose re-appends the user's last text message right after the continuation; a
        // reader that cannot tell it from a fresh message still leaves this shape.
        let copy_shape = after_continuation && m.role == Role::User && m.has_text_only();
        if !is_cut_machinery && !copy_shape && m.index > c.cut_index {
            return (out, Some(m.index));
        }
        after_continuation = m.kind == MessageKind::Continuation;
        out.push(m.index);
        if copy_shape {
            return (out, Some(m.index));
        }
    }
    (out, None)
}

fn raw_summary(raw: Option<&Value>) -> String {
    let Some(raw) = raw else {
        return String::new();
    };
    ["summary_text", "summary", "message"]
        .iter()
        .find_map(|k| find_key(raw, k).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned()
}

/// A key at the top level or one level down (coworker notices nest the state under
/// `compaction`).
fn find_key<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.get(key).or_else(|| {
        v.as_object()?
            .values()
            .filter(|x| x.is_object())
            .find_map(|x| x.get(key))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_drops_only_once_it_is_in_force() {
        let cut = Cut {
            number: 1,
            cut_index: 3,
            effective_index: 5,
            summary_index: Some(3),
            kept: Kept::default(),
            summary_text: String::new(),
            trimmed: false,
            micro: false,
            cleared: Vec::new(),
            archived: None,
            history_only: false,
        };
        let cuts = [cut];
        assert_eq!(
            dropped_between(&cuts, 1, 4),
            None,
            "message 4 came before the compaction took effect: message 1 was still visible"
        );
        assert_eq!(
            dropped_between(&cuts, 1, 6),
            Some(1),
            "message 6 came after it: compaction 1 had dropped message 1"
        );
    }
}
