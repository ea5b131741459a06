//! Unit tests of the goose rule on the seed's conversations, and a literal transcription of
//! upstream's `compact_messages` (goose-format §3.3) to hold K = 0 against.

use super::*;
use crate::replay::testkit::{seed_dup, seed_five, seed_parallel};

fn placeholder() -> SummarySource {
    SummarySource::Placeholder { tokens: 500 }
}

fn run(msgs: &[Message], keep_tail: usize, naive: bool) -> Compaction {
    let rule = Rule {
        keep_tail,
        naive,
        manual: false,
        skip_summaries: false,
    };
    compact(msgs, rule, Wording::Since20260216, &placeholder())
}

fn shape(c: &Compaction) -> Vec<(MessageKind, Option<usize>)> {
    c.visible.iter().map(|m| (m.kind, m.source_index)).collect()
}

/// Upstream §3.3 steps 1–8, written out as the spec states them, independent of [`compact`].
fn upstream(msgs: &[Message], manual: bool, summary: &SummarySource) -> Vec<Message> {
    let found = if manual {
        None
    } else {
        msgs.iter()
            .enumerate()
            .rev()
            .find(|(_, m)| m.agent_visible && m.role == Role::User && m.has_text_only())
    };
    let is_most_recent = found.is_some_and(|(i, _)| i + 1 == msgs.len());
    let mut out: Vec<Message> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut o = m.clone();
            o.agent_visible = false;
            if is_most_recent && i + 1 == msgs.len() {
                o.user_visible = false;
            }
            o
        })
        .collect();
    let created = msgs.iter().filter_map(|m| m.created).max();
    let mut s = Message::new(
        0,
        Role::User,
        vec![Part::Text {
            text: summary.text(),
        }],
    );
    (s.kind, s.user_visible, s.created, s.details) =
        (MessageKind::Summary, false, created, summary.details());
    out.push(s);
    let text = if manual {
        MANUAL_NEW
    } else if is_most_recent {
        CONVERSATION_NEW
    } else {
        TOOL_LOOP_NEW
    };
    let mut c = Message::new(0, Role::Assistant, vec![Part::Text { text: text.into() }]);
    (c.kind, c.user_visible, c.created) = (MessageKind::Continuation, false, created);
    out.push(c);
    if let Some((_, m)) = found {
        let mut p = Message::new(0, Role::User, vec![Part::Text { text: m.text() }]);
        (p.kind, p.created) = (MessageKind::PreservedCopy, created);
        out.push(p);
    }
    for (i, m) in out.iter_mut().enumerate() {
        m.index = i;
    }
    out
}

#[test]
fn seed_five_k0_leaves_summary_continuation_and_the_ask() {
    let c = run(&seed_five(), 0, false);
    assert_eq!(
        shape(&c),
        vec![
            (MessageKind::Summary, None),
            (MessageKind::Continuation, None),
            (MessageKind::PreservedCopy, None)
        ],
        "K=0 is upstream: three agent-visible messages"
    );
    assert_eq!(
        c.visible[2].parts,
        vec![Part::Text {
            text: "add a retry to fetch_rows in store.py".into()
        }],
        "the preserved copy carries the user's ask verbatim"
    );
    assert_eq!(
        c.visible[1].parts,
        vec![Part::Text {
            text: TOOL_LOOP_NEW.into()
        }],
        "mid tool loop the tool-loop continuation is chosen"
    );
}

#[test]
fn seed_five_k3_walks_the_cut_back_to_keep_the_pair() {
    let c = run(&seed_five(), 3, false);
    assert_eq!(
        (c.plan.requested_cut, c.plan.cut),
        (2, 1),
        "cut 2 opens on the cat result, so the walk moves it to 1"
    );
    assert_eq!(
        shape(&c),
        vec![
            (MessageKind::Summary, None),
            (MessageKind::Continuation, None),
            (MessageKind::Ordinary, Some(1)),
            (MessageKind::Ordinary, Some(2)),
            (MessageKind::Ordinary, Some(3)),
            (MessageKind::Ordinary, Some(4)),
            (MessageKind::PreservedCopy, None),
        ],
        "ask for three, get four, then the preserved ask"
    );
    assert_eq!(c.orphans, 0, "the walk keeps every result with its call");
    assert!(c.preserved_appended, "the ask sat in the summarised head");
}

#[test]
fn naive_k3_opens_the_tail_on_an_orphan() {
    let c = run(&seed_five(), 3, true);
    assert_eq!(c.kept_tail, vec![2, 3, 4], "naive slices the last three");
    assert_eq!(c.orphans, 1, "the cat result lost its request");
}

#[test]
fn parallel_calls_keep_seven_and_no_orphans() {
    for k in [3, 5] {
        let c = run(&seed_parallel(), k, false);
        assert_eq!(
            c.visible.len(),
            7,
            "K={k}: summary, continuation, 4 tail, copy"
        );
        assert_eq!(c.orphans, 0, "K={k}: the three results keep their call");
    }
}

#[test]
fn preserved_copy_skipped_when_the_tail_carries_it() {
    let c = run(&seed_dup(), 3, false);
    assert_eq!(c.kept_tail, vec![2, 3, 4], "the tail opens on the ask");
    assert!(!c.preserved_appended, "the ask is already in the tail");
    assert_eq!(
        c.visible.len(),
        5,
        "summary, continuation and three tail messages"
    );
}

#[test]
fn k0_equals_upstream_on_every_shape() {
    let mut last_is_ask = seed_five();
    last_is_ask.push(testkit_text(5, "and log each attempt"));
    for (name, msgs) in [
        ("five", seed_five()),
        ("parallel", seed_parallel()),
        ("dup", seed_dup()),
        ("last-is-ask", last_is_ask),
    ] {
        for manual in [false, true] {
            let rule = Rule {
                keep_tail: 0,
                naive: false,
                manual,
                skip_summaries: false,
            };
            let c = compact(&msgs, rule, Wording::Since20260216, &placeholder());
            assert_eq!(
                c.stored,
                upstream(&msgs, manual, &placeholder()),
                "{name} manual={manual}: K=0 must match upstream row for row, flags included"
            );
        }
    }
}

#[test]
fn most_recent_ask_is_hidden_and_gets_the_conversation_wording() {
    let mut msgs = seed_five();
    msgs.push(testkit_text(5, "and log each attempt"));
    let c = run(&msgs, 0, false);
    assert!(
        !c.stored[5].user_visible && !c.stored[5].agent_visible,
        "the original of the preserved most-recent ask becomes invisible"
    );
    assert_eq!(
        c.visible[1].parts,
        vec![Part::Text {
            text: CONVERSATION_NEW.into()
        }],
        "the ask was last, so the conversation continuation"
    );
}

#[test]
fn k_larger_than_history_keeps_all_but_two() {
    let c = run(&seed_dup(), 50, false);
    assert_eq!(c.plan.requested_cut, 2, "keep = min(K, len - 2)");
}

fn testkit_text(i: usize, t: &str) -> Message {
    crate::replay::testkit::text(i, Role::User, t)
}
