//! The pairing check a one-shot replay needs: how many tool results in a replayed context answer
//! a call that is not in it (orphans). Strict chat APIs reject such a request; lenient servers
//! render it and hand the model output it never asked for.
//!
//! The check itself is `compaction`'s pairing lint ([`crate::compaction::lint_messages`]), so a
//! replayed context and a stored one are judged by one rule. The sweep's simulation keeps its
//! own count (`simulate::Tally::cut`): it runs millions of cuts over the compact `Prepared`
//! entries, where each result already knows its call's position, so an orphan there is one
//! integer comparison, with no messages to build.

use super::ReplayedMessage;
use crate::compaction::{Api, FindingKind, lint_messages};
use crate::model::Message;

/// The orphaned tool results of a replayed context, by the lint's rule, in one pass (the
/// messages are built once): how many there are, and the positions of the messages holding
/// them, each once, in order (what the Replay panel marks).
pub fn replayed_orphans(visible: &[ReplayedMessage]) -> (usize, Vec<usize>) {
    let msgs: Vec<Message> = visible
        .iter()
        .enumerate()
        .map(|(i, m)| m.to_message(i))
        .collect();
    let mut at: Vec<usize> = lint_messages(&msgs.iter().collect::<Vec<_>>(), Api::Openai)
        .iter()
        .filter(|f| f.kind == FindingKind::OrphanResult)
        .map(|f| f.message_index)
        .collect();
    let count = at.len();
    at.dedup();
    (count, at)
}

/// Count tool results in `context` (one request's messages, in order) whose call is not
/// issued before them.
pub fn orphan_results(context: &[&Message]) -> usize {
    lint_messages(context, Api::Openai)
        .iter()
        .filter(|f| f.kind == FindingKind::OrphanResult)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::testkit::seed_five;

    #[test]
    fn a_result_before_its_call_is_an_orphan() {
        let msgs = seed_five();
        let all: Vec<&Message> = msgs.iter().collect();
        assert_eq!(
            orphan_results(&all),
            0,
            "the whole conversation pairs every result"
        );
        assert_eq!(
            orphan_results(&all[2..]),
            1,
            "a slice opening on the cat result has lost its request"
        );
    }
}
