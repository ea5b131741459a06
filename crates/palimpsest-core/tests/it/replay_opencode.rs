//! OpenCode's policy replayed (fixtures/README.md, `opencode/`): compacting the worker's history
//! as it stood at its recorded auto compaction, at OpenCode's defaults, keeps exactly the tail
//! the harness kept (`tail_start_id`); other settings move the cut as OpenCode's rule says; run
//! forward, compactions fire at the usable window and leave no tool result without its call.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::model::{MessageKind, Role, Session};
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_fixtures::opencode::WORKER;

fn worker() -> Session {
    let db = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode");
    api::load_session(&db, Some(WORKER)).expect("the fixture loads")
}

/// The worker as it stood when its auto compaction fired: the messages before the request,
/// all in the model's view.
fn before_first_compaction() -> Session {
    let mut s = worker();
    let at = s.compactions[0].cut_index;
    s.messages.truncate(at);
    s.compactions.clear();
    for m in &mut s.messages {
        std::sync::Arc::make_mut(m).agent_visible = true;
    }
    s.meta.message_count = at;
    s
}

fn opencode(tail_turns: Option<usize>, preserve_tokens: Option<u64>) -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::OpenCode,
        tail_turns,
        preserve_tokens,
        ..ReplayOptions::default()
    }
}

#[test]
fn at_its_defaults_the_replay_keeps_the_tail_opencode_kept() {
    let recorded = worker().compactions[0].clone();
    let s = before_first_compaction();
    let v = api::replay(&s, &opencode(None, None), None);
    assert_eq!(
        (v.cut_index, v.kept_tail.clone()),
        (12, recorded.kept),
        "the last turn fits the 8 000-token budget; the turn before (its 10 000-token test \
         log) neither fits nor splits: the cut is the recorded one"
    );
    let shape: Vec<(Role, MessageKind, Option<usize>)> = v
        .visible
        .iter()
        .map(|m| (m.role, m.kind, m.source_index))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Role::User, MessageKind::Ordinary, Some(12)),
            (Role::Assistant, MessageKind::Ordinary, Some(13)),
            (Role::Tool, MessageKind::Ordinary, Some(14)),
            (Role::Assistant, MessageKind::Ordinary, Some(15)),
            (Role::User, MessageKind::Notification, None),
            (Role::Assistant, MessageKind::Summary, None),
            (Role::User, MessageKind::Continuation, None),
        ],
        "the kept tail first, then the request, the summary and the harness's continue"
    );
    assert_eq!(v.orphans, 0, "every kept result has its call");
}

#[test]
fn other_settings_move_the_cut_as_opencodes_rule_says() {
    let s = before_first_compaction();
    let cut = |turns, preserve| api::replay(&s, &opencode(turns, preserve), None).cut_index;
    assert_eq!(cut(Some(0), None), 16, "tail_turns 0 keeps nothing");
    assert_eq!(
        cut(None, Some(40_000)),
        6,
        "a 40 000-token budget holds the last two turns"
    );
    assert_eq!(
        cut(Some(3), Some(40_000)),
        0,
        "three turns: everything fits, nothing is cut"
    );
    assert_eq!(
        cut(Some(1), Some(40_000)),
        12,
        "one turn: the last one, whatever the budget"
    );
}

#[test]
fn run_forward_it_compacts_at_the_usable_window_and_orphans_nothing() {
    let s = worker();
    let o = ReplayOptions {
        context_window: Some(24_000),
        ..opencode(None, None)
    };
    let sim = api::replay_simulate(&s, &o, None);
    let cuts: Vec<(Option<usize>, bool)> = sim
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.tokens_after < c.tokens_before))
        .collect();
    assert!(
        !cuts.is_empty() && cuts.iter().all(|(_, freed)| *freed),
        "a 24 000-token window (12 000 usable) compacts this session, each time freeing \
         context; got {cuts:?}"
    );
    assert_eq!(sim.totals.orphans, 0, "OpenCode's tail starts at turns");
}
