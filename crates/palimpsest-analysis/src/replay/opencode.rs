//! OpenCode's compaction (`session/compaction.ts`, `session/overflow.ts`), as a policy any
//! session can be replayed under: when the last request's tokens reach the usable window, the
//! history is summarised but for a tail of the last `tail_turns` user turns (2) that fits a
//! budget (`preserve_recent_tokens`, else a quarter of the usable window clamped to 2 000–8 000
//! tokens); a turn that does not fit whole is split at the first of its stored messages from
//! which the rest fits, else the tail stops there. The model then sees the kept tail, the
//! request "What did we do so far?", the summary and, after an automatic compaction, the
//! harness's "Continue" message. Between turns, old tool outputs beyond the newest 40 000
//! tokens are pruned to a stub when that frees over 20 000 tokens.
//!
//! A turn starts at a user message with text (not a compaction request); "stored messages" are
//! the session's messages grouped by their source id, so an OpenCode answer split into steps
//! is split where OpenCode would split it, and any other format where its rows are. The run
//! forward is `simulate::run_opencode`'s; reading OpenCode's own records is the reader's.

use crate::model::{Message, MessageKind, Role, Session, View};
use crate::sources::opencode::build::COMPACTION_PROMPT;

use super::{Counter, ReplayedMessage, SummarySource, pairing};

/// User turns kept verbatim by default.
pub const DEFAULT_TAIL_TURNS: usize = 2;
/// The tail budget's floor and ceiling when it is not set.
pub const MIN_PRESERVE_TOKENS: u64 = 2_000;
/// See [`MIN_PRESERVE_TOKENS`].
pub const MAX_PRESERVE_TOKENS: u64 = 8_000;
/// OpenCode's cap on the output a request may ask for (`OUTPUT_TOKEN_MAX`), which the usable
/// window reserves.
pub const OUTPUT_TOKEN_MAX: u64 = 32_000;
/// Prune keeps the newest tool outputs up to this many tokens…
pub const PRUNE_PROTECT: u64 = 40_000;
/// …and prunes only when it frees more than this.
pub const PRUNE_MINIMUM: u64 = 20_000;
/// What a pruned tool output becomes in the request.
pub const PRUNED_STUB: &str = "[Old tool result content cleared]";
/// The message OpenCode adds after an automatic compaction.
pub const CONTINUE: &str = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

/// OpenCode's knobs for one replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// `compaction.tail_turns`: user turns kept verbatim (0: none).
    pub tail_turns: usize,
    /// `compaction.preserve_recent_tokens`: the tail's budget (`None`: from the window).
    pub preserve_tokens: Option<u64>,
    /// The model's context window.
    pub window: u64,
    /// `compaction.prune`: prune old tool outputs between turns.
    pub prune: bool,
}

impl Settings {
    /// The window less the output a request may ask for (a window under 64 000 tokens keeps
    /// half for output, so small replays still run).
    pub fn usable(&self) -> u64 {
        self.window
            .saturating_sub(OUTPUT_TOKEN_MAX.min(self.window / 2))
    }

    /// The tail's budget.
    pub fn budget(&self) -> u64 {
        self.preserve_tokens
            .unwrap_or_else(|| (self.usable() / 4).clamp(MIN_PRESERVE_TOKENS, MAX_PRESERVE_TOKENS))
    }
}

/// One message of a history, as the rule sees it.
pub trait Item {
    /// Its tokens.
    fn tokens(&self) -> u64;
    /// A user turn starts here.
    fn turn_start(&self) -> bool;
    /// The stored message it belongs to (a split may start only where this changes).
    fn unit(&self) -> u64;
}

/// OpenCode's `select`: the position of the first item kept verbatim, `None` when everything
/// is summarised.
pub fn select<I: Item>(items: &[I], tail_turns: usize, budget: u64) -> Option<usize> {
    if tail_turns == 0 {
        return None;
    }
    let starts: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].turn_start())
        .collect();
    let turns: Vec<(usize, usize)> = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| (s, starts.get(k + 1).copied().unwrap_or(items.len())))
        .collect();
    let size = |a: usize, b: usize| items[a..b].iter().map(Item::tokens).sum::<u64>();
    let mut total = 0;
    let mut keep = None;
    for &(start, end) in turns.iter().rev().take(tail_turns) {
        let whole = size(start, end);
        if total + whole <= budget {
            total += whole;
            keep = Some(start);
            continue;
        }
        let remaining = budget - total;
        if remaining > 0 {
            let split = (start + 1..end)
                .filter(|&b| items[b].unit() != items[b - 1].unit())
                .find(|&b| size(b, end) <= remaining);
            keep = split.or(keep);
        }
        break;
    }
    keep
}

/// A turn starts at a user message with text and no tool traffic that is no harness
/// machinery (a compaction request, a summary, a continuation).
pub fn starts_turn(m: &Message) -> bool {
    m.role == Role::User && m.kind == MessageKind::Ordinary && m.has_text_only()
}

/// The source id of a message as a number: equal for consecutive messages of one stored
/// message (an OpenCode answer's steps), distinct otherwise.
pub fn units(messages: &[&Message]) -> Vec<u64> {
    let mut out = Vec::with_capacity(messages.len());
    let mut n = 0u64;
    for (i, m) in messages.iter().enumerate() {
        if i > 0 && (m.id.is_none() || m.id != messages[i - 1].id) {
            n += 1;
        }
        out.push(n);
    }
    out
}

struct Counted {
    tokens: u64,
    start: bool,
    unit: u64,
}

impl Item for Counted {
    fn tokens(&self) -> u64 {
        self.tokens
    }
    fn turn_start(&self) -> bool {
        self.start
    }
    fn unit(&self) -> u64 {
        self.unit
    }
}

/// What compacting once leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// What the model sees afterwards, in order (system messages first, if any).
    pub visible: Vec<ReplayedMessage>,
    /// Stored index of the first message kept (one past the history when none is).
    pub cut_index: usize,
    /// Stored indices of the tail kept verbatim.
    pub kept_tail: Vec<usize>,
    /// Tool results in `visible` whose call is not in it.
    pub orphans: usize,
    /// Positions in `visible` of the messages holding them.
    pub orphaned: Vec<usize>,
}

/// Compact the history the model sees now once, as OpenCode would (an automatic compaction).
pub fn compact_once(
    s: &Session,
    settings: &Settings,
    summary: &SummarySource,
    counter: Counter<'_>,
) -> Compaction {
    let history: Vec<&Message> = s
        .view(View::Agent)
        .filter(|m| m.role != Role::System)
        .collect();
    let unit = units(&history);
    let items: Vec<Counted> = history
        .iter()
        .zip(&unit)
        .map(|(m, &u)| Counted {
            tokens: super::count(m, counter),
            start: starts_turn(m),
            unit: u,
        })
        .collect();
    let keep = select(&items, settings.tail_turns, settings.budget());
    let tail = &history[keep.unwrap_or(history.len())..];
    let mut visible: Vec<ReplayedMessage> = s
        .view(View::Agent)
        .filter(|m| m.role == Role::System)
        .map(ReplayedMessage::kept)
        .collect();
    visible.extend(tail.iter().map(|m| ReplayedMessage::kept(m)));
    visible.push(ReplayedMessage::written(
        Role::User,
        MessageKind::Notification,
        COMPACTION_PROMPT.to_owned(),
    ));
    visible.push(ReplayedMessage::written(
        Role::Assistant,
        MessageKind::Summary,
        summary.text(),
    ));
    visible.push(ReplayedMessage::written(
        Role::User,
        MessageKind::Continuation,
        CONTINUE.to_owned(),
    ));
    let (orphans, orphaned) = pairing::replayed_orphans(&visible);
    let past = s.messages.len();
    Compaction {
        visible,
        cut_index: tail.first().map_or(past, |m| m.index),
        kept_tail: tail.iter().map(|m| m.index).collect(),
        orphans,
        orphaned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct T(u64, bool, u64);
    impl Item for T {
        fn tokens(&self) -> u64 {
            self.0
        }
        fn turn_start(&self) -> bool {
            self.1
        }
        fn unit(&self) -> u64 {
            self.2
        }
    }

    /// Three turns: `[user 100, answer 500 + 500 (one stored message, two steps)]` each.
    fn three_turns(last_answer: u64) -> Vec<T> {
        let mut v = Vec::new();
        for t in 0..3u64 {
            let answer = if t == 2 { last_answer } else { 500 };
            v.push(T(100, true, t * 2));
            v.push(T(answer, false, t * 2 + 1));
            v.push(T(answer, false, t * 2 + 1));
        }
        v
    }

    #[test]
    fn two_turns_that_fit_are_kept_whole() {
        assert_eq!(
            select(&three_turns(500), 2, 8_000),
            Some(3),
            "turns 2 and 3 fit 8 000"
        );
        assert_eq!(
            select(&three_turns(500), 0, 8_000),
            None,
            "tail_turns 0 keeps nothing"
        );
        assert_eq!(
            select(&three_turns(500), 5, 8_000),
            Some(0),
            "more turns than there are"
        );
    }

    #[test]
    fn a_turn_that_does_not_fit_is_split_at_a_stored_message_or_stops_the_tail() {
        // The last turn alone is 100 + 2 × 3 000 = 6 100 > 5 000: it is split after its user
        // message only where the rest fits, and its two steps are one stored message.
        assert_eq!(
            select(&three_turns(3_000), 2, 5_000),
            None,
            "no split fits: nothing kept"
        );
        assert_eq!(
            select(&three_turns(3_000), 2, 6_500),
            Some(6),
            "the last turn fits whole; the one before does not and its answer (1 000) does \
             not fit the 400 left, so the tail starts at the last turn"
        );
        assert_eq!(
            select(&three_turns(2_000), 2, 4_100),
            Some(6),
            "the last turn (4 100) fits exactly; nothing is left to split the one before"
        );
    }

    #[test]
    fn the_budget_is_a_quarter_of_the_usable_window_clamped() {
        let s = |window, preserve| Settings {
            tail_turns: 2,
            preserve_tokens: preserve,
            window,
            prune: true,
        };
        assert_eq!(s(200_000, None).usable(), 168_000, "32 000 kept for output");
        assert_eq!(
            s(200_000, None).budget(),
            8_000,
            "a quarter is 42 000: the ceiling"
        );
        assert_eq!(
            s(16_000, None).budget(),
            2_000,
            "a quarter of 8 000 is the floor"
        );
        assert_eq!(
            s(16_000, Some(3_000)).budget(),
            3_000,
            "preserve_recent_tokens wins"
        );
    }
}
