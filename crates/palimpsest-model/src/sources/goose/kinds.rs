//! Recognise the rows goose's compaction writes, set their [`MessageKind`] and build one
//! [`CompactionRecord`] per compaction.
//!
//! goose records no compaction event: what it leaves is a pattern of rows (goose-format.md
//! §3.3) — an agent-only user *summary*, an agent-only assistant *continuation* whose text is
//! one of six fixed strings, and (auto compaction) a re-appended copy of the last user text.
//! Manual `/compact` adds a user-only echo and a "Compaction complete" notification. Detection
//! uses those exact strings only; anything that does not match stays `Ordinary`. Cheap counting
//! for listings ([`CONTINUATION_PREFIXES`]) lives here too so both stay in step.

use crate::model::{CompactionRecord, Message, MessageKind, Part, Role, Trigger};

/// Continuation after an auto compaction when the user's message was the last one.
pub const CONVERSATION_OLD: &str = "The previous message contains a summary that was prepared because a context limit was reached.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context";
/// Continuation after an auto compaction inside a tool loop (≤ 2026-02-15).
pub const TOOL_LOOP_OLD: &str = "The previous message contains a summary that was prepared because a context limit was reached.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
/// Continuation after `/compact` (≤ 2026-02-15).
pub const MANUAL_OLD: &str = "The previous message contains a summary that was prepared at the user's request.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context";
/// Continuation after an auto compaction when the user's message was the last one (≥ 2026-02-16).
pub const CONVERSATION: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context.";
/// Continuation after an auto compaction inside a tool loop (≥ 2026-02-16).
pub const TOOL_LOOP: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
/// Continuation after `/compact` (≥ 2026-02-16).
pub const MANUAL: &str = "Your context was compacted at the user's request. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context.";

/// Every continuation text goose has written, both eras.
pub const CONTINUATIONS: [&str; 6] = [
    CONVERSATION_OLD,
    TOOL_LOOP_OLD,
    MANUAL_OLD,
    CONVERSATION,
    TOOL_LOOP,
    MANUAL,
];

/// Distinctive starts of the continuation texts, as they appear inside `content_json` (no
/// JSON escaping needed: they hold no quote, backslash or newline). Listing counts rows whose
/// content contains one of them; loading then checks the exact text.
pub const CONTINUATION_PREFIXES: [&str; 2] = [
    "The previous message contains a summary that was prepared ",
    "Your context was compacted",
];

/// The recovery notice goose shows when the provider rejected a request as too long.
pub const RECOVERY_NOTICE: &str = "Context limit reached. Compacting to continue conversation...";
/// The notification goose stores after a manual compaction.
pub const DONE: &str = "Compaction complete";
/// User messages that trigger a manual compaction (compared after trimming).
pub const MANUAL_COMMANDS: [&str; 3] =
    ["/compact", "Please compact this conversation", "/summarize"];

/// Item tags of pre-2025-10-22 compaction markers: UI notices, not conversation.
const LEGACY_MARKERS: [&str; 3] = [
    "summarizationRequested",
    "conversationCompacted",
    "contextLengthExceeded",
];

fn is_continuation(m: &Message) -> bool {
    m.role == Role::Assistant && m.has_text_only() && CONTINUATIONS.contains(&m.text().trim_end())
}

fn is_manual_continuation(m: &Message) -> bool {
    let t = m.text();
    let t = t.trim_end();
    t == MANUAL || t == MANUAL_OLD
}

fn agent_only(m: &Message) -> bool {
    m.agent_visible && !m.user_visible
}

/// A message made only of notices: `systemNotification`s and the legacy compaction markers.
fn is_notice_only(m: &Message) -> bool {
    !m.parts.is_empty()
        && m.parts.iter().all(|p| match p {
            Part::Other { original_type, .. } => {
                original_type == "systemNotification"
                    || LEGACY_MARKERS.contains(&original_type.as_str())
            }
            _ => false,
        })
}

/// True when the message mentions the recovery notice (text or notification `msg`).
fn mentions_recovery(m: &Message) -> bool {
    m.parts.iter().any(|p| match p {
        Part::Text { text } => text.contains(RECOVERY_NOTICE),
        Part::Other { raw, .. } => raw
            .get("msg")
            .and_then(|v| v.as_str())
            .is_some_and(|s| s.contains(RECOVERY_NOTICE)),
        _ => false,
    })
}

/// Set every message's kind and return the compactions, in order.
pub fn classify(messages: &mut [Message]) -> Vec<CompactionRecord> {
    let continuations: Vec<usize> = (0..messages.len())
        .filter(|&i| is_continuation(&messages[i]))
        .collect();
    let mut records = Vec::new();
    let mut previous_end = 0;
    for &c in &continuations {
        messages[c].kind = MessageKind::Continuation;
        // Error rows (a damaged line between the two) are not part of the conversation.
        let summary_index = (0..c)
            .rev()
            .find(|&i| messages[i].error.is_none())
            .filter(|&i| messages[i].role == Role::User && !is_continuation(&messages[i]));
        if let Some(s) = summary_index {
            messages[s].kind = MessageKind::Summary;
        }
        let cut = summary_index.unwrap_or(c);
        let manual = is_manual_continuation(&messages[c]);
        let mut kept = Vec::new();
        if !manual && let Some(copy) = preserved_copy(messages, c, cut) {
            messages[copy].kind = MessageKind::PreservedCopy;
            kept.push(copy);
        }
        let trigger = if manual {
            Trigger::Manual
        } else if messages[previous_end..cut].iter().any(mentions_recovery) {
            Trigger::Recovery
        } else {
            Trigger::Auto
        };
        records.push(CompactionRecord {
            cut_index: cut,
            trigger: Some(trigger),
            pre_tokens: None,
            post_tokens: None,
            post_tokens_from_usage: false,
            summary_index,
            kept,
            raw: None,
            applied_index: None,
            archived: None,
        });
        previous_end = c + 1;
    }
    let errors: Vec<bool> = messages.iter().map(|m| m.error.is_some()).collect();
    let next_real = |i: usize| (i + 1..errors.len()).find(|&j| !errors[j]);
    for (i, m) in messages.iter_mut().enumerate() {
        if m.kind != MessageKind::Ordinary {
            continue;
        }
        let echo = m.role == Role::User
            && m.user_visible
            && !m.agent_visible
            && MANUAL_COMMANDS.contains(&m.text().trim());
        if echo || is_notice_only(m) {
            m.kind = MessageKind::Notification;
        } else if m.role == Role::User
            && agent_only(m)
            && m.has_text_only()
            && !next_real(i).is_some_and(|n| continuations.contains(&n))
        {
            // goose's tool-pair summaries: agent-only user text, no continuation after it.
            m.kind = MessageKind::ToolSummary;
        }
    }
    records
}

/// The re-appended user text right after continuation `c`: a text-only user message equal to
/// a user message before the cut (classic goose appends it with default visibility; ≥ v1.44
/// makes it agent-only — both match).
fn preserved_copy(messages: &[Message], c: usize, cut: usize) -> Option<usize> {
    let at = (c + 1..messages.len()).find(|&i| messages[i].error.is_none())?;
    let next = &messages[at];
    if next.role != Role::User || !next.agent_visible || !next.has_text_only() {
        return None;
    }
    let text = next.text();
    messages[..cut]
        .iter()
        .any(|m| m.role == Role::User && !m.parts.is_empty() && m.text() == text)
        .then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role, text: &str, user: bool, agent: bool) -> Message {
        let mut m = Message::new(0, role, vec![Part::Text { text: text.into() }]);
        m.user_visible = user;
        m.agent_visible = agent;
        m
    }

    fn kinds(ms: &[Message]) -> Vec<MessageKind> {
        ms.iter().map(|m| m.kind).collect()
    }

    #[test]
    fn every_continuation_text_of_both_eras_is_recognised() {
        for (text, manual) in [
            (CONVERSATION_OLD, false),
            (TOOL_LOOP_OLD, false),
            (MANUAL_OLD, true),
            (CONVERSATION, false),
            (TOOL_LOOP, false),
            (MANUAL, true),
        ] {
            let mut ms = vec![
                msg(Role::User, "fix it", true, false),
                msg(Role::User, "<summary>", false, true),
                msg(Role::Assistant, text, false, true),
                msg(Role::User, "fix it", true, true),
            ];
            let recs = classify(&mut ms);
            assert_eq!(recs.len(), 1, "one compaction for {text:?}");
            assert_eq!(
                recs[0].trigger,
                Some(if manual {
                    Trigger::Manual
                } else {
                    Trigger::Auto
                }),
                "trigger follows the continuation text"
            );
            let want_copy = if manual {
                MessageKind::Ordinary
            } else {
                MessageKind::PreservedCopy
            };
            assert_eq!(
                kinds(&ms),
                vec![
                    MessageKind::Ordinary,
                    MessageKind::Summary,
                    MessageKind::Continuation,
                    want_copy
                ],
                "kinds for {text:?} (manual compaction preserves no copy)"
            );
        }
    }

    #[test]
    fn every_continuation_starts_with_a_listing_prefix() {
        for text in CONTINUATIONS {
            assert!(
                CONTINUATION_PREFIXES.iter().any(|p| text.starts_with(p)),
                "listing's cheap count must see {text:?}"
            );
        }
    }

    #[test]
    fn tool_pair_summary_and_recovery() {
        let mut ms = vec![
            msg(Role::User, "go", true, true),
            msg(Role::User, "shell(ls) returned 3 files", false, true),
            msg(Role::Assistant, RECOVERY_NOTICE, true, false),
            msg(Role::User, "<summary>", false, true),
            msg(Role::Assistant, TOOL_LOOP, false, true),
        ];
        let recs = classify(&mut ms);
        assert_eq!(
            kinds(&ms)[1],
            MessageKind::ToolSummary,
            "agent-only user text not followed by a continuation is a tool-pair summary"
        );
        assert_eq!(
            recs[0].trigger,
            Some(Trigger::Recovery),
            "a recovery notice before the cut marks the compaction as recovery"
        );
        assert!(
            recs[0].kept.is_empty(),
            "no message follows the continuation"
        );
    }

    #[test]
    fn text_that_only_resembles_a_continuation_is_ordinary() {
        let mut ms = vec![msg(
            Role::Assistant,
            "Your context was compacted.",
            true,
            true,
        )];
        assert!(classify(&mut ms).is_empty(), "only the exact strings count");
        assert_eq!(ms[0].kind, MessageKind::Ordinary, "left ordinary");
    }
}
