//! Replay on the goose fixture database (fixtures/goose/sessions.db): the seed's acceptance
//! cases through the real reader, and K = 0 held against upstream's `compact_messages` written
//! out step by step (goose-format §3.3), including the compaction the fixture recorded.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::model::{Message, MessageKind, Part, Role, Session};
use palimpsest_core::replay::SummarySource;
use palimpsest_core::replay::goose::{self, Continuation, Rule, Wording, compact};

fn db() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/goose/sessions.db"
    ))
}

fn load(id: &str) -> Session {
    api::load_session(&db(), Some(id)).unwrap_or_else(|e| panic!("fixture {id}: {e}"))
}

fn placeholder() -> SummarySource {
    SummarySource::Placeholder { tokens: 400 }
}

fn rule(keep_tail: usize, naive: bool) -> Rule {
    Rule {
        keep_tail,
        naive,
        manual: false,
        skip_summaries: false,
    }
}

fn texts(c: &goose::Compaction) -> Vec<String> {
    c.visible
        .iter()
        .map(|m| {
            m.parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => text.clone(),
                    Part::ToolCall { arguments, .. } => format!("call {arguments}"),
                    Part::ToolResult { .. } => "result".into(),
                    other => other.type_name().into(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn seed_five_k0_is_summary_continuation_and_the_ask() {
    let s = load("seed-five");
    let c = compact(
        &s.messages,
        rule(0, false),
        Wording::for_session(&s),
        &placeholder(),
    );
    let t = texts(&c);
    assert_eq!(t.len(), 3, "K=0 leaves three agent-visible messages: {t:?}");
    assert_eq!(
        t[1],
        goose::TOOL_LOOP_NEW,
        "mid tool loop, 2026 wording (session from 2026-02-24)"
    );
    assert_eq!(
        t[2], "add a retry to fetch_rows in store.py",
        "the preserved ask is last"
    );
}

#[test]
fn seed_five_k3_keeps_four_and_naive_orphans_one() {
    let s = load("seed-five");
    let c = compact(
        &s.messages,
        rule(3, false),
        Wording::for_session(&s),
        &placeholder(),
    );
    assert_eq!(
        (c.plan.requested_cut, c.plan.cut),
        (2, 1),
        "the cut is walked back from 2 to 1"
    );
    let kinds: Vec<(MessageKind, Option<usize>)> =
        c.visible.iter().map(|m| (m.kind, m.source_index)).collect();
    assert_eq!(
        kinds,
        vec![
            (MessageKind::Summary, None),
            (MessageKind::Continuation, None),
            (MessageKind::Ordinary, Some(1)),
            (MessageKind::Ordinary, Some(2)),
            (MessageKind::Ordinary, Some(3)),
            (MessageKind::Ordinary, Some(4)),
            (MessageKind::PreservedCopy, None),
        ],
        "summary, continuation, cat request, its response, pytest request, its response, the ask"
    );
    let t = texts(&c);
    assert!(
        t[2].contains("cat store.py") && t[4].contains("pytest -q"),
        "the tail's calls: {t:?}"
    );
    assert_eq!(
        c.orphans, 0,
        "the walk keeps every response with its request"
    );

    let naive = compact(
        &s.messages,
        rule(3, true),
        Wording::for_session(&s),
        &placeholder(),
    );
    assert_eq!(
        naive.visible[2].source_index,
        Some(2),
        "the naive tail opens on the cat response"
    );
    assert!(
        naive.visible[2]
            .parts
            .iter()
            .any(|p| matches!(p, Part::ToolResult { .. })),
        "message 2 is a tool response"
    );
    assert_eq!(naive.orphans, 1, "whose request was summarised away");
}

#[test]
fn seed_parallel_keeps_seven_without_orphans() {
    let s = load("seed-parallel");
    for k in [3, 5] {
        let c = compact(
            &s.messages,
            rule(k, false),
            Wording::for_session(&s),
            &placeholder(),
        );
        assert_eq!(
            c.visible.len(),
            7,
            "K={k}: summary, continuation, 3-call turn + 3 results, ask"
        );
        assert_eq!(c.orphans, 0, "K={k}: parallel results keep their request");
    }
}

#[test]
fn seed_dup_does_not_append_the_ask_twice() {
    let s = load("seed-dup");
    let c = compact(
        &s.messages,
        rule(3, false),
        Wording::for_session(&s),
        &placeholder(),
    );
    assert!(
        !c.preserved_appended,
        "the most recent ask is already in the tail"
    );
    assert_eq!(
        c.visible.len(),
        5,
        "summary, continuation and the three-message tail"
    );
    assert_eq!(
        c.kept_tail,
        vec![3, 4, 5],
        "the tail opens on the ask itself"
    );
}

/// Upstream §3.3 for K = 0, literally: hide every original, hide the last one too when it is the
/// preserved most-recent, then summary, continuation and the preserved copy.
fn upstream(
    msgs: &[std::sync::Arc<Message>],
    manual: bool,
    wording: Wording,
    summary: &SummarySource,
) -> Vec<(Role, MessageKind, bool, bool, String)> {
    let found = (!manual)
        .then(|| {
            msgs.iter()
                .rposition(|m| m.agent_visible && m.role == Role::User && m.has_text_only())
        })
        .flatten();
    let most_recent = found == Some(msgs.len() - 1);
    let mut out: Vec<_> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (
                m.role,
                m.kind,
                m.user_visible && !(most_recent && i + 1 == msgs.len()),
                false,
                m.text(),
            )
        })
        .collect();
    out.push((
        Role::User,
        MessageKind::Summary,
        false,
        true,
        summary.text(),
    ));
    let cont = if manual {
        Continuation::Manual
    } else if most_recent {
        Continuation::Conversation
    } else {
        Continuation::ToolLoop
    };
    out.push((
        Role::Assistant,
        MessageKind::Continuation,
        false,
        true,
        wording.text(cont).into(),
    ));
    if let Some(p) = found {
        out.push((
            Role::User,
            MessageKind::PreservedCopy,
            true,
            true,
            msgs[p].text(),
        ));
    }
    out
}

fn rows(
    stored: &[impl palimpsest_core::model::Held],
) -> Vec<(Role, MessageKind, bool, bool, String)> {
    stored
        .iter()
        .map(|m| m.get())
        .map(|m| (m.role, m.kind, m.user_visible, m.agent_visible, m.text()))
        .collect()
}

#[test]
fn k0_equals_upstream_for_every_goose_fixture() {
    let list = api::list_sessions(&db()).expect("fixture lists");
    assert!(
        list.sessions.len() >= 5,
        "the goose fixture holds the seed sessions"
    );
    for meta in &list.sessions {
        let s = load(&meta.id);
        for manual in [false, true] {
            let r = Rule {
                keep_tail: 0,
                naive: false,
                manual,
                skip_summaries: false,
            };
            let w = Wording::for_session(&s);
            let c = compact(&s.messages, r, w, &placeholder());
            assert_eq!(
                rows(&c.stored),
                upstream(&s.messages, manual, w, &placeholder()),
                "{} manual={manual}: K=0 must equal upstream, invisible originals and flags included",
                meta.id
            );
        }
    }
}

/// Undo a recorded compaction: the originals before its summary, visible again as they were
/// when goose compacted them.
fn before_compaction(s: &Session) -> (Vec<Message>, String, usize) {
    let at = s
        .messages
        .iter()
        .position(|m| m.kind == MessageKind::Summary)
        .expect("a recorded summary");
    let originals = s.messages[..at]
        .iter()
        .filter(|m| m.kind == MessageKind::Ordinary)
        .map(|m| {
            let mut o = Message::clone(m);
            o.agent_visible = true;
            o.user_visible = true;
            o
        })
        .collect();
    (originals, s.messages[at].text(), at)
}

#[test]
fn k0_reproduces_the_compactions_goose_recorded() {
    for (id, manual, recorded_rows) in [("goose-compacted", false, 8), ("goose-manual", true, 4)] {
        let s = load(id);
        let (originals, summary, _) = before_compaction(&s);
        let r = Rule {
            keep_tail: 0,
            naive: false,
            manual,
            skip_summaries: false,
        };
        let c = compact(
            &originals,
            r,
            Wording::for_session(&s),
            &SummarySource::Recorded { text: summary },
        );
        assert_eq!(
            rows(&c.stored),
            rows(&s.messages[..recorded_rows]),
            "{id}: replaying the recorded compaction at K=0 gives goose's own rows"
        );
    }
}
