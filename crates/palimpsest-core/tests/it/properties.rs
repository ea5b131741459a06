//! Properties over generated sessions (proptest): the rules that hold for every history, not
//! only for the seeds and real transcripts the other tests read. A session here is a run of
//! user turns, each followed by tool rounds (an assistant issuing one to three calls, then one
//! result per call in call order) and an answer: paired, as an agent that works writes it.
//! - goose's walk never cuts past the requested K: the tail it keeps starts at or before the
//!   cut K asked for, and with the walk no tool result is left without its call;
//! - a replay and a sweep are deterministic: the same input gives the same output;
//! - lint never reports a call that is paired.

use proptest::prelude::*;
use serde_json::json;

use palimpsest_core::compaction::Api;
use palimpsest_core::model::{Message, Part, Role, Session, SourceFormat};
use palimpsest_core::replay::options::{PolicyName, ReplayOptions, replay_once, sweep_session};
use palimpsest_core::replay::sweep::{Axis, Metric};
use palimpsest_core::tokens::counter::CharEstimate;

/// One user turn: how many calls each tool round issues, and the text sizes.
#[derive(Debug, Clone)]
struct Turn {
    rounds: Vec<u8>,
    ask: usize,
    result: usize,
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        prop::collection::vec(1u8..=3, 0..4),
        1usize..400,
        1usize..4000,
    )
        .prop_map(|(rounds, ask, result)| Turn {
            rounds,
            ask,
            result,
        })
}

/// The session the turns make (goose's legacy format: a message log an agent would write).
fn session(turns: &[Turn]) -> Session {
    let mut messages = Vec::new();
    let mut push = |role: Role, parts: Vec<Part>| {
        let i = messages.len();
        messages.push(Message::new(i, role, parts));
    };
    let mut call = 0usize;
    for (t, turn) in turns.iter().enumerate() {
        push(
            Role::User,
            vec![Part::Text {
                text: format!("ask {t} ") + &"x".repeat(turn.ask),
            }],
        );
        for &n in &turn.rounds {
            let ids: Vec<String> = (0..n)
                .map(|_| {
                    call += 1;
                    format!("call{call}")
                })
                .collect();
            push(
                Role::Assistant,
                ids.iter()
                    .map(|id| Part::ToolCall {
                        id: id.clone(),
                        name: "developer__shell".into(),
                        arguments: json!({ "command": format!("cat f{id}.py") }).into(),
                    })
                    .collect(),
            );
            for id in &ids {
                push(
                    Role::Tool,
                    vec![Part::ToolResult {
                        call_id: id.clone(),
                        text: "y".repeat(turn.result).into(),
                        is_error: false,
                        raw: json!(null).into(),
                    }],
                );
            }
        }
        push(
            Role::Assistant,
            vec![Part::Text {
                text: format!("done {t}"),
            }],
        );
    }
    Session::in_memory("generated", SourceFormat::GooseLegacy, messages, Vec::new())
}

fn goose(k: usize) -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::Goose,
        keep_tail: k,
        ..ReplayOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_goose_walk_never_cuts_past_the_requested_k(
        turns in prop::collection::vec(turn(), 1..8),
        k in 0usize..12,
    ) {
        let s = session(&turns);
        let v = replay_once(&s, &goose(k), None, &CharEstimate);
        prop_assert!(
            v.cut_index <= v.requested_cut_index,
            "the walk only moves the cut back: cut {} requested {}",
            v.cut_index,
            v.requested_cut_index
        );
        prop_assert_eq!(v.orphans, 0, "with the walk, every kept result keeps its call");
        let naive = replay_once(&s, &ReplayOptions { naive: true, ..goose(k) }, None, &CharEstimate);
        prop_assert!(
            v.kept_tail.len() >= naive.kept_tail.len(),
            "K is a floor: the walk keeps at least the naive tail ({} < {})",
            v.kept_tail.len(),
            naive.kept_tail.len()
        );
    }

    #[test]
    fn a_replay_and_a_sweep_are_deterministic(
        turns in prop::collection::vec(turn(), 1..6),
        k in 0usize..6,
    ) {
        let s = session(&turns);
        prop_assert_eq!(
            replay_once(&s, &goose(k), None, &CharEstimate),
            replay_once(&s, &goose(k), None, &CharEstimate),
            "the same replay twice"
        );
        let opts = ReplayOptions { context_window: Some(2_000), ..goose(0) };
        let sweep = || sweep_session(
            &s,
            &opts,
            Axis::KeepTail(vec![0, 2, 5]),
            Axis::ToolResultCap(vec![0, 500]),
            Metric::TokensAfter,
            None,
            &CharEstimate,
        );
        prop_assert_eq!(sweep(), sweep(), "the same sweep twice");
    }

    #[test]
    fn lint_never_reports_a_paired_call(turns in prop::collection::vec(turn(), 1..8)) {
        let s = session(&turns);
        for api in [Api::Openai, Api::Anthropic] {
            let report = palimpsest_core::api::lint(&s, api);
            prop_assert!(
                report.findings.is_empty(),
                "every call has its result right after it ({api:?}): {:?}",
                report.findings
            );
        }
    }
}
