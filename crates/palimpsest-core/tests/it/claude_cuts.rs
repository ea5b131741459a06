//! The `six-cuts` Claude Code fixture (fixtures/README.md): six cuts of three kinds, read
//! exactly — triggers, where each cut lands, what each microcompact cleared, the model's context
//! starting at the sixth cut's summary, the subagent run linked from its Task call.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::model::{LinkKind, Part, Trigger};

fn six_cuts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl",
    )
}

#[test]
fn six_cuts_of_three_kinds_are_read_exactly() {
    let s = api::load_session(&six_cuts(), None).expect("the fixture loads");
    let cuts: Vec<(usize, Option<Trigger>, Option<u64>)> = s
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.trigger, c.pre_tokens))
        .collect();
    assert_eq!(
        cuts,
        vec![
            (12, Some(Trigger::Manual), Some(131_000)),
            (28, Some(Trigger::Micro), Some(90_000)),
            (40, Some(Trigger::Auto), Some(167_000)),
            (54, Some(Trigger::Micro), Some(95_000)),
            (66, Some(Trigger::Manual), Some(140_000)),
            (80, Some(Trigger::Auto), Some(171_000)),
        ],
        "manual, micro, auto, micro, manual, auto, each at its boundary with its recorded size"
    );
    let first_visible = s.messages.iter().find(|m| m.agent_visible).map(|m| m.index);
    assert_eq!(
        first_visible,
        Some(81),
        "the model's context starts at the sixth cut's summary"
    );
    let cleared: Vec<usize> = s
        .messages
        .iter()
        .filter(|m| {
            m.parts.iter().any(|p| {
                matches!(p, Part::ToolResult { text, .. } if text == "[Old tool result content cleared]")
            })
        })
        .map(|m| m.index)
        .collect();
    assert_eq!(
        cleared,
        vec![16, 44],
        "each microcompact cleared the Read result its compactedToolIds names (the one read since \
         the last full cut: segments 2 and 4)"
    );
    let linked = s
        .messages
        .iter()
        .flat_map(|m| m.links.iter().map(move |l| (m.index, l)))
        .filter(|(_, l)| l.kind == LinkKind::Subagent)
        .map(|(i, l)| (i, l.path.ends_with("subagents/agent-a6c0e01.jsonl")))
        .collect::<Vec<_>>();
    assert_eq!(
        linked,
        vec![(23, true)],
        "the Task call links its Explore subagent run"
    );
}

#[test]
fn a_microcompact_shows_what_it_cleared_not_a_summary() {
    use palimpsest_core::views::cuts::{CutFileFate, session_cuts};
    let s = api::load_session(&six_cuts(), None).expect("the fixture loads");
    let cuts = session_cuts(&s, &palimpsest_core::tokens::counter::CharEstimate);
    let micro = &cuts.cuts[1];
    assert_eq!(
        micro
            .cleared
            .iter()
            .map(|c| (c.index, c.call_index, c.tool.as_deref(), c.paths.clone()))
            .collect::<Vec<_>>(),
        vec![(16, Some(15), Some("Read"), vec!["shop/cart.py".to_owned()])],
        "cut 2 cleared the Read result of shop/cart.py at 16"
    );
    assert!(
        micro.cleared[0].tokens_counted > 500,
        "the cleared result held the 60-function file: {} tokens",
        micro.cleared[0].tokens_counted
    );
    assert_eq!(
        (micro.tokens_saved_recorded, micro.tokens_saved_counted),
        (Some(24_000), micro.cleared[0].tokens_counted),
        "tokensSaved as recorded, beside our count of what was cleared"
    );
    assert!(
        !micro.kept.contains(&16),
        "a cleared result is not 'kept verbatim'"
    );
    let cart = micro
        .files
        .iter()
        .find(|f| f.path == "shop/cart.py")
        .expect("cart.py is named");
    assert_eq!(
        (cart.fate, cart.cleared_carriers.clone()),
        (CutFileFate::Cleared, vec![16]),
        "its fate is cleared: {}",
        cart.sentence
    );
    assert!(
        cuts.cuts[2].cleared.is_empty() && cuts.cuts[2].tokens_saved_recorded.is_none(),
        "a full compaction clears nothing"
    );
}
