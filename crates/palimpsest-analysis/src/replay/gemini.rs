//! Gemini CLI's chat compression (`services/chatCompressionService.ts`), which Qwen Code ran
//! too before its summaries took the whole history, as a policy any session can be replayed
//! under. When the last request's prompt reached `threshold` of the window (Gemini 0.5, Qwen
//! Code 0.7), function responses past the newest `response_budget` tokens (50 000; Qwen Code
//! none) are cut to the head and tail of their first [`TRUNCATE_CHARS`] characters, then the
//! history is split at the first user message (not a function response) that comes after
//! `1 − preserve` of it (0.3 kept), and what comes before is summarised. The model then sees
//! the summary as a user message, its own [`ACK`], and the kept tail.
//!
//! Gemini weighs each message by its JSON characters; the replay weighs it by its tokens, the
//! unit every other figure of a replay is in (the two agree up to the text's characters per
//! token). The run forward is `simulate::run_gemini`'s; reading Gemini's records is the
//! reader's.

use crate::model::{Message, MessageKind, Part, Role, Session, View};

use super::opencode::Compaction;
use super::{Counter, ReplayedMessage, SummarySource, pairing};

/// Gemini CLI's threshold: a fraction of the model's window.
pub const GEMINI_THRESHOLD: f64 = 0.5;
/// Qwen Code's threshold while it kept a tail.
pub const QWEN_THRESHOLD: f64 = 0.7;
/// The fraction of the history kept verbatim.
pub const DEFAULT_PRESERVE: f64 = 0.3;
/// Gemini CLI's budget of function-response tokens in the compressed history.
pub const RESPONSE_BUDGET: u64 = 50_000;
/// A function response over the budget keeps this many characters (20 % head, 80 % tail):
/// Gemini CLI's default `truncateToolOutputThreshold`.
pub const TRUNCATE_CHARS: usize = 40_000;
/// The model's answer to the summary, which Gemini CLI writes after it.
pub const ACK: &str = "Got it. Thanks for the additional context!";

/// Gemini's knobs for one replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Compress when the last prompt reached this fraction of the window.
    pub threshold: f64,
    /// The fraction of the history kept verbatim (0 < preserve < 1).
    pub preserve: f64,
    /// Function-response tokens kept whole, newest first (0: no budget).
    pub response_budget: u64,
    /// The model's context window.
    pub window: u64,
}

impl Settings {
    /// The tokens at which a compression fires.
    pub fn trigger(&self) -> u64 {
        (self.threshold * self.window as f64) as u64
    }
}

/// One message of a history, as the rule sees it.
pub trait Item {
    /// Its tokens as the history holds it now.
    fn tokens(&self) -> u64;
    /// Its tokens once cut to [`TRUNCATE_CHARS`] (its tokens when it fits or is no response).
    fn truncated_tokens(&self) -> u64;
    /// A user message that is no function response: the history may be split before it.
    fn split_point(&self) -> bool;
    /// A model message.
    fn model(&self) -> bool;
    /// A model message that calls a function.
    fn calls(&self) -> bool;
    /// A function response.
    fn response(&self) -> bool;
}

/// Gemini's `findCompressSplitPoint` over weights: the position of the first item kept, where
/// `compress` is the fraction of the weight to summarise. The history's length when all of it
/// may go (it ends with an answer that calls nothing); 0 when nothing can.
pub fn split<I: Item>(items: &[I], compress: f64) -> usize {
    let total: u64 = items.iter().map(Item::tokens).sum();
    let target = total as f64 * compress;
    let mut last = 0;
    let mut seen = 0u64;
    for (i, it) in items.iter().enumerate() {
        if it.split_point() {
            if seen as f64 >= target {
                return i;
            }
            last = i;
        }
        seen += it.tokens();
    }
    match items.last() {
        Some(l) if l.model() && !l.calls() => items.len(),
        _ => last,
    }
}

/// The responses cut by the budget: from the newest back, each response is kept whole while
/// the responses kept so far fit `budget`, else cut (its cut size then counts). Positions,
/// newest first; none when `budget` is 0.
pub fn over_budget<I: Item>(items: &[I], budget: u64) -> Vec<usize> {
    if budget == 0 {
        return Vec::new();
    }
    let mut used = 0;
    let mut cut = Vec::new();
    for (k, it) in items.iter().enumerate().rev() {
        if !it.response() {
            continue;
        }
        if used + it.tokens() > budget {
            used += it.truncated_tokens();
            cut.push(k);
        } else {
            used += it.tokens();
        }
    }
    cut
}

/// A function response cut as Gemini cuts one over the budget (`None` when it fits).
pub fn truncated(m: &Message) -> Option<Message> {
    super::simulate::capped_message(m, TRUNCATE_CHARS)
}

/// A message that is a function response (Gemini's own tool message, or a result in a user
/// message elsewhere).
pub fn is_response(m: &Message) -> bool {
    m.role == Role::Tool || m.has_tool_result()
}

struct Counted {
    tokens: u64,
    truncated: u64,
    split: bool,
    model: bool,
    calls: bool,
    response: bool,
}

impl Item for Counted {
    fn tokens(&self) -> u64 {
        self.tokens
    }
    fn truncated_tokens(&self) -> u64 {
        self.truncated
    }
    fn split_point(&self) -> bool {
        self.split
    }
    fn model(&self) -> bool {
        self.model
    }
    fn calls(&self) -> bool {
        self.calls
    }
    fn response(&self) -> bool {
        self.response
    }
}

/// Compress the history the model sees now once, as Gemini CLI would (`/compress`).
pub fn compact_once(
    s: &Session,
    settings: &Settings,
    summary: &SummarySource,
    counter: Counter<'_>,
) -> Compaction {
    let history: Vec<&Message> = s
        .view(View::Agent)
        .filter(|m| m.role != Role::System && m.kind != MessageKind::Notification)
        .collect();
    let cut_forms: Vec<Option<Message>> = history
        .iter()
        .map(|m| {
            (settings.response_budget > 0 && is_response(m))
                .then(|| truncated(m))
                .flatten()
        })
        .collect();
    let items: Vec<Counted> = history
        .iter()
        .zip(&cut_forms)
        .map(|(m, cut)| {
            let tokens = super::count(m, counter);
            Counted {
                tokens,
                truncated: cut.as_ref().map_or(tokens, |c| counter.count(c)),
                split: m.role == Role::User && !m.has_tool_result(),
                model: m.role == Role::Assistant,
                calls: m.parts.iter().any(|p| matches!(p, Part::ToolCall { .. })),
                response: is_response(m),
            }
        })
        .collect();
    let mut items = items;
    // Which responses the budget cut, by position (a scan of the list per kept message made
    // the assembly below quadratic in the responses).
    let mut is_cut = vec![false; items.len()];
    for k in over_budget(&items, settings.response_budget) {
        items[k].tokens = items[k].truncated;
        is_cut[k] = true;
    }
    let keep = split(&items, 1.0 - settings.preserve);
    let mut visible: Vec<ReplayedMessage> = s
        .view(View::Agent)
        .filter(|m| m.role == Role::System && m.kind != MessageKind::Notification)
        .map(ReplayedMessage::kept)
        .collect();
    if keep == 0 {
        // Nothing before the first user message: Gemini leaves the history as it is.
        visible.extend(history.iter().map(|m| ReplayedMessage::kept(m)));
        let (orphans, orphaned) = pairing::replayed_orphans(&visible);
        return Compaction {
            visible,
            cut_index: history.first().map_or(s.messages.len(), |m| m.index),
            kept_tail: history.iter().map(|m| m.index).collect(),
            orphans,
            orphaned,
        };
    }
    visible.push(ReplayedMessage::written(
        Role::User,
        MessageKind::Summary,
        summary.text(),
    ));
    visible.push(ReplayedMessage::written(
        Role::Assistant,
        MessageKind::Continuation,
        ACK.to_owned(),
    ));
    for (k, m) in history.iter().enumerate().skip(keep) {
        let kept = ReplayedMessage::kept(m);
        visible.push(match (&cut_forms[k], is_cut[k]) {
            (Some(c), true) => ReplayedMessage {
                parts: c.parts.clone(),
                ..kept
            },
            _ => kept,
        });
    }
    let (orphans, orphaned) = pairing::replayed_orphans(&visible);
    let tail = &history[keep..];
    Compaction {
        visible,
        cut_index: tail.first().map_or(s.messages.len(), |m| m.index),
        kept_tail: tail.iter().map(|m| m.index).collect(),
        orphans,
        orphaned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(tokens, truncated, kind)`: `u` a user message, `m` an answer, `c` an answer with a
    /// call, `r` a function response.
    struct T(u64, u64, char);
    impl Item for T {
        fn tokens(&self) -> u64 {
            self.0
        }
        fn truncated_tokens(&self) -> u64 {
            self.1
        }
        fn split_point(&self) -> bool {
            self.2 == 'u'
        }
        fn model(&self) -> bool {
            matches!(self.2, 'm' | 'c')
        }
        fn calls(&self) -> bool {
            self.2 == 'c'
        }
        fn response(&self) -> bool {
            self.2 == 'r'
        }
    }

    fn turns(kinds: &str, each: u64) -> Vec<T> {
        kinds.chars().map(|k| T(each, each, k)).collect()
    }

    #[test]
    fn the_split_is_the_first_user_message_after_seventy_percent() {
        // Ten messages of 100: 70 % is reached before position 7, a user message.
        let h = turns("umumumumum", 100);
        assert_eq!(
            split(&h, 0.7),
            8,
            "7 is an answer; 8 is the next user message"
        );
        let h = turns("umumumucrum", 100);
        assert_eq!(
            split(&h, 0.7),
            9,
            "a function response (8) is no split point; 9 is"
        );
        // No user message after 70 %: all of it goes when it ends with a plain answer …
        assert_eq!(split(&turns("umcrm", 100), 0.7), 5);
        // … and up to the last user message when it ends with a call.
        assert_eq!(split(&turns("umucrc", 100), 0.7), 2);
        assert_eq!(
            split(&turns("mcr", 100), 0.7),
            0,
            "no user message: nothing goes"
        );
    }

    #[test]
    fn responses_past_the_budget_are_cut_newest_kept_first() {
        let h = vec![
            T(30_000, 10_000, 'r'),
            T(100, 100, 'u'),
            T(30_000, 10_000, 'r'),
            T(30_000, 10_000, 'r'),
        ];
        assert_eq!(
            over_budget(&h, 50_000),
            vec![2, 0],
            "the newest fits (30 000); the next would make 60 000 and is cut (40 000 used); \
             the oldest would make 70 000 and is cut"
        );
        assert!(over_budget(&h, 0).is_empty(), "no budget: nothing is cut");
    }

    #[test]
    fn the_trigger_is_the_threshold_of_the_window() {
        let s = Settings {
            threshold: GEMINI_THRESHOLD,
            preserve: DEFAULT_PRESERVE,
            response_budget: RESPONSE_BUDGET,
            window: 1_048_576,
        };
        assert_eq!(s.trigger(), 524_288);
    }
}
