//! goose's `compact_messages` as a policy over the session model, with the keep-tail rule.
//!
//! "The history" is the agent-visible conversation being compacted (system prompts excluded: goose
//! stores none, and other formats' system messages stay pinned in front). With K = 0 the result,
//! stored rows and flags included, is upstream's (goose-format §3.3): every original loses
//! `agentVisible`, the last one becomes invisible when it is the preserved most-recent user
//! message, then summary (user, agent-only), continuation (assistant, agent-only) and the
//! preserved copy (default flags). With K > 0 the tail is summarised away from `[..cut]` only and
//! re-appended verbatim after the continuation, its originals hidden from both sides so the user
//! view does not show them twice; the preserved copy is skipped when the tail carries it.
//! The forward simulation and the sweep use [`plan`] too, so there is one implementation of the
//! rule. Summaries are never generated here: [`super::SummarySource`] is given.

use serde::{Deserialize, Serialize};

use super::{ReplayedMessage, SummarySource, pairing};
use crate::model::{Held, Message, MessageKind, Part, Role, Session};

/// ≤ 2026-02-15 conversation continuation.
pub const CONVERSATION_OLD: &str = "The previous message contains a summary that was prepared because a context limit was reached.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context";
/// ≤ 2026-02-15 tool-loop continuation.
pub const TOOL_LOOP_OLD: &str = "The previous message contains a summary that was prepared because a context limit was reached.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
/// ≤ 2026-02-15 manual continuation.
pub const MANUAL_OLD: &str = "The previous message contains a summary that was prepared at the user's request.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context";
/// ≥ 2026-02-16 conversation continuation.
pub const CONVERSATION_NEW: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context.";
/// ≥ 2026-02-16 tool-loop continuation.
pub const TOOL_LOOP_NEW: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
/// ≥ 2026-02-16 manual continuation.
pub const MANUAL_NEW: &str = "Your context was compacted at the user's request. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context.";

/// 2026-02-16T00:00:00Z in Unix milliseconds: the day goose's continuation wording changed.
const NEW_WORDING_FROM_MS: i64 = 1_771_200_000_000;

/// Which release's continuation wording to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Wording {
    /// goose up to 2026-02-15.
    Before20260216,
    /// goose from 2026-02-16 (v1.24) on.
    #[default]
    Since20260216,
}

impl Wording {
    /// The wording a session would have got: from a continuation it recorded, else from its
    /// creation date, else the current one.
    pub fn for_session(session: &Session) -> Self {
        let recorded = session
            .messages
            .iter()
            .find(|m| m.kind == MessageKind::Continuation)
            .map(|m| m.text());
        match recorded {
            Some(t) if t.starts_with("Your context was compacted") => Self::Since20260216,
            Some(t) if t.starts_with("The previous message contains") => Self::Before20260216,
            _ => match session.meta.created {
                Some(ms) if ms < NEW_WORDING_FROM_MS => Self::Before20260216,
                _ => Self::Since20260216,
            },
        }
    }

    /// The continuation text for this wording.
    pub fn text(self, kind: Continuation) -> &'static str {
        match (self, kind) {
            (Self::Before20260216, Continuation::Conversation) => CONVERSATION_OLD,
            (Self::Before20260216, Continuation::ToolLoop) => TOOL_LOOP_OLD,
            (Self::Before20260216, Continuation::Manual) => MANUAL_OLD,
            (Self::Since20260216, Continuation::Conversation) => CONVERSATION_NEW,
            (Self::Since20260216, Continuation::ToolLoop) => TOOL_LOOP_NEW,
            (Self::Since20260216, Continuation::Manual) => MANUAL_NEW,
        }
    }
}

/// Which continuation upstream writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Continuation {
    /// The preserved user message was the last message.
    Conversation,
    /// Mid tool loop, or no user text found.
    ToolLoop,
    /// `/compact`.
    Manual,
}

/// The knobs of the rule that decide the cut (the summary and wording only dress the result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rule {
    /// Messages to keep verbatim (a floor: the walk may keep more).
    pub keep_tail: usize,
    /// Slice `[len-K..]` without the backward walk (to show what the walk prevents).
    pub naive: bool,
    /// A `/compact`: no user message preserved.
    pub manual: bool,
    /// A variant goose does not have: the preserved ask skips earlier compactions' summaries
    /// (user-role text goose would otherwise preserve), so it is what the user last asked.
    pub skip_summaries: bool,
}

/// What the rule needs to know of each history message.
pub trait Item {
    /// Carries a tool response.
    fn is_tool_response(&self) -> bool;
    /// Agent-visible user message with text and no tool request/response (`has_text_only`).
    fn is_preservable(&self) -> bool;
    /// An earlier compaction's summary (only [`Rule::skip_summaries`] asks).
    fn is_summary(&self) -> bool {
        false
    }
}

impl Item for &Message {
    fn is_tool_response(&self) -> bool {
        self.has_tool_result()
    }
    fn is_preservable(&self) -> bool {
        self.agent_visible && self.role == Role::User && self.has_text_only()
    }
    fn is_summary(&self) -> bool {
        self.kind == crate::model::MessageKind::Summary
    }
}

/// Where the rule cuts a history of `len` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// `len - min(K, len - 2)`: the cut before the walk.
    pub requested_cut: usize,
    /// The cut after the walk: `[..cut]` is summarised, `[cut..]` kept verbatim.
    pub cut: usize,
    /// Position of the preserved user message in the history.
    pub preserved: Option<usize>,
    /// The preserved message is also in the kept tail (so no copy is appended).
    pub preserved_in_tail: bool,
    /// The continuation upstream chooses.
    pub continuation: Continuation,
}

/// Apply the rule to a history. `last_is_final` says whether the history's last message is
/// also the conversation's last stored one (upstream's `is_most_recent` compares full indices).
pub fn plan<T: Item>(history: &[T], last_is_final: bool, rule: Rule) -> Plan {
    let len = history.len();
    let preserved = if rule.manual {
        None
    } else {
        history
            .iter()
            .rposition(|m| m.is_preservable() && !(rule.skip_summaries && m.is_summary()))
    };
    let is_most_recent = last_is_final && preserved.is_some_and(|p| p + 1 == len);
    let keep = rule.keep_tail.min(len.saturating_sub(2));
    let requested_cut = len - keep;
    let mut cut = requested_cut;
    if !rule.naive {
        while cut > 0 && cut < len && history[cut].is_tool_response() {
            cut -= 1;
        }
    }
    let continuation = if rule.manual {
        Continuation::Manual
    } else if is_most_recent {
        Continuation::Conversation
    } else {
        Continuation::ToolLoop
    };
    Plan {
        requested_cut,
        cut,
        preserved,
        preserved_in_tail: preserved.is_some_and(|p| p >= cut),
        continuation,
    }
}

/// Everything a goose compaction replay produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// What the model sees afterwards, in order (system messages first, if any).
    pub visible: Vec<ReplayedMessage>,
    /// The stored rows afterwards, as goose would persist them (indices renumbered).
    pub stored: Vec<Message>,
    /// Stored indices of the history the rule ran on.
    pub history: Vec<usize>,
    /// The rule's decision (positions are into `history`).
    pub plan: Plan,
    /// Stored indices of the tail kept verbatim.
    pub kept_tail: Vec<usize>,
    /// Stored index of the preserved user message.
    pub preserved_index: Option<usize>,
    /// A preserved copy was appended.
    pub preserved_appended: bool,
    /// Tool results in `visible` whose call is not in it.
    pub orphans: usize,
    /// Positions in `visible` of the messages holding them.
    pub orphaned: Vec<usize>,
}

/// Compact a stored conversation once, as it stands.
pub fn compact(
    messages: &[impl Held],
    rule: Rule,
    wording: Wording,
    summary: &SummarySource,
) -> Compaction {
    let messages: Vec<&Message> = messages.iter().map(|m| m.get()).collect();
    let history: Vec<&Message> = messages
        .iter()
        .copied()
        .filter(|m| m.agent_visible && m.role != Role::System)
        .collect();
    let last_is_final = match (history.last(), messages.last()) {
        (Some(h), Some(m)) => h.index == m.index,
        _ => false,
    };
    let plan = plan(&history, last_is_final, rule);
    let tail = &history[plan.cut..];
    let preserved = plan.preserved.map(|p| history[p]);
    let append_copy = preserved.is_some() && !plan.preserved_in_tail;
    let created = messages.iter().filter_map(|m| m.created).max();

    // The written messages, as upstream builds them.
    let mut summary_msg = Message::new(
        0,
        Role::User,
        vec![Part::Text {
            text: summary.text(),
        }],
    );
    summary_msg.kind = MessageKind::Summary;
    summary_msg.user_visible = false;
    summary_msg.created = created;
    summary_msg.details = summary.details();
    let mut continuation = Message::new(
        0,
        Role::Assistant,
        vec![Part::Text {
            text: wording.text(plan.continuation).to_owned(),
        }],
    );
    continuation.kind = MessageKind::Continuation;
    continuation.user_visible = false;
    continuation.created = created;
    let copy = preserved.filter(|_| append_copy).map(|p| {
        let mut c = Message::new(0, Role::User, vec![Part::Text { text: p.text() }]);
        c.kind = MessageKind::PreservedCopy;
        c.created = created;
        c
    });

    // Stored rows: originals hidden from the agent (the preserved most-recent and the tail's
    // originals from the user too, since copies follow), then the written rows.
    let in_tail = |i: usize| tail.iter().any(|t| t.index == i);
    let mut stored: Vec<Message> = messages
        .iter()
        .map(|m| {
            let mut o = Message::clone(m);
            if o.role == Role::System && o.agent_visible {
                return o;
            }
            o.agent_visible = false;
            let hidden_most_recent = plan.continuation == Continuation::Conversation
                && append_copy
                && Some(m.index) == messages.last().map(|l| l.index);
            if hidden_most_recent || in_tail(m.index) {
                o.user_visible = false;
            }
            o
        })
        .collect();
    stored.push(summary_msg.clone());
    stored.push(continuation.clone());
    for t in tail {
        let mut c = (*t).clone();
        c.agent_visible = true;
        stored.push(c);
    }
    stored.extend(copy.clone());
    for (i, m) in stored.iter_mut().enumerate() {
        m.index = i;
    }

    let mut visible: Vec<ReplayedMessage> = messages
        .iter()
        .filter(|m| m.role == Role::System && m.agent_visible)
        .map(|m| ReplayedMessage::kept(m))
        .collect();
    visible.push(written(&summary_msg));
    visible.push(written(&continuation));
    visible.extend(tail.iter().map(|m| ReplayedMessage::kept(m)));
    visible.extend(copy.as_ref().map(written));
    let (orphans, orphaned) = pairing::replayed_orphans(&visible);

    Compaction {
        visible,
        stored,
        history: history.iter().map(|m| m.index).collect(),
        plan,
        kept_tail: tail.iter().map(|m| m.index).collect(),
        preserved_index: preserved.map(|p| p.index),
        preserved_appended: append_copy,
        orphans,
        orphaned,
    }
}

fn written(m: &Message) -> ReplayedMessage {
    ReplayedMessage {
        role: m.role,
        kind: m.kind,
        source_index: None,
        parts: m.parts.clone(),
    }
}

#[cfg(test)]
#[path = "goose_tests.rs"]
mod tests;
