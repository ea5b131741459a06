//! The block a compaction wrote at its cut ([`CutBlock`]): summary, continuation note, verbatim
//! copies of dropped messages (a kept tail re-appended) and the preserved user message, found by
//! walking from the cut. When each message was visible is `context`'s (its spans come in).

use super::Span;
use crate::model::{MessageKind, Role, Session, Trigger};

/// The messages a compaction wrote at its cut, in stored positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CutBlock {
    /// The summary.
    pub summary: Option<usize>,
    /// The continuation note.
    pub continuation: Option<usize>,
    /// The re-appended copy of the last user message.
    pub preserved: Option<usize>,
    /// Re-appended verbatim copies: `(copy, original)`; the original is `None` when the
    /// reader marked a copy whose original is not among the dropped messages.
    pub copies: Vec<(usize, Option<usize>)>,
    /// Positions (before the cut) this compaction dropped from the context.
    pub dropped: Vec<usize>,
    /// One past the block's last message.
    pub end: usize,
}

/// True for a microcompaction or content replacement that rewrites tool results in place
/// (Claude Code): it hides no message and writes no block. A trim that rebuilt the compacted
/// block (coworker's fallback, also `Micro`) leaves a summary-kind message at its cut and does
/// drop what it trimmed.
pub(super) fn clears_in_place(session: &Session, c: &crate::model::CompactionRecord) -> bool {
    c.trigger == Some(Trigger::Replacement)
        || c.trigger == Some(Trigger::Micro)
            && c.summary_index.is_none()
            && session
                .messages
                .get(c.cut_index)
                .is_none_or(|m| m.kind != MessageKind::Summary)
}

/// Walk the messages a compaction wrote at its cut: boundary, summary, continuation, verbatim
/// copies of dropped messages (a kept tail re-appended), the preserved user message. The block
/// ends at the first message that is none of these (new conversation).
///
/// `dropped` are the positions compaction `ci` dropped (its spans' `dropped_by`), ascending.
pub(super) fn block(
    session: &Session,
    spans: &[Option<Span>],
    ci: usize,
    dropped: Vec<usize>,
) -> CutBlock {
    let msgs = &session.messages;
    let rec = &session.compactions[ci];
    let cut = rec.cut_index.min(msgs.len());
    let mut b = CutBlock {
        summary: rec.summary_index.filter(|&s| s < msgs.len()),
        dropped,
        end: cut,
        ..CutBlock::default()
    };
    if clears_in_place(session, rec) {
        return b;
    }
    let same = |a: &crate::model::Message, o: &crate::model::Message| {
        a.role == o.role && a.parts == o.parts
    };
    let mut marked = Vec::new();
    for p in cut..msgs.len() {
        let m = &msgs[p];
        let bookkeeping =
            Some(p) == b.summary || m.kind == MessageKind::Notification || spans[p].is_none();
        if !bookkeeping {
            let orig = b
                .dropped
                .iter()
                .copied()
                .find(|&d| same(&msgs[d], m) && !b.copies.iter().any(|c| c.1 == Some(d)));
            if m.kind == MessageKind::Summary && b.summary.is_none() {
                b.summary = Some(p);
            } else if m.kind == MessageKind::Continuation && b.continuation.is_none() {
                b.continuation = Some(p);
            } else if m.kind == MessageKind::PreservedCopy {
                marked.push(p);
                b.copies.push((p, orig));
            } else if orig.is_some() {
                b.copies.push((p, orig));
            } else {
                break;
            }
        }
        b.end = p + 1;
    }
    // One marked copy is goose's preserved user message; several are a replacement history
    // (Codex) and are all kept tail.
    if let [p] = marked[..] {
        b.preserved = Some(p);
        b.copies.retain(|c| c.0 != p);
    }
    // Without a marked copy: a final text-only user copy that does not continue the run of
    // tail originals is goose's preserved message, not part of the tail.
    if marked.is_empty()
        && let Some(&(p, Some(orig))) = b.copies.last()
    {
        let m = &msgs[p];
        let breaks_run = b.copies.len() == 1
            || b.copies
                .first()
                .is_some_and(|&(_, o)| o.is_some_and(|o| orig < o));
        if m.role == Role::User && m.has_text_only() && breaks_run {
            b.preserved = Some(p);
            b.copies.pop();
        }
    }
    b
}
