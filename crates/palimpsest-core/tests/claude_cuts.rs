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
