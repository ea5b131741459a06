//! Codex's entry-backed replacement history (`compacted.replacement_history_entries`, as
//! codex-rs writes it): `inline` entries carry their item, `reference` and `reference_v2` name
//! an earlier response item by its id. The history after the cut is resolved from both, and a
//! reference no earlier item answers is an error row naming the id, the file and the line.

use palimpsest_core::model::{MessageKind, View};

const ID: &str = "019c0000-0000-7000-8000-0000000000e1";

fn rollout() -> String {
    let lines = [
        format!(r#"{{"timestamp":"2026-03-01T10:00:00Z","type":"session_meta","payload":{{"id":"{ID}","cwd":"/work/shop","originator":"codex_cli_rs"}}}}"#),
        r#"{"timestamp":"2026-03-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","id":"msg_u1","content":[{"type":"input_text","text":"fix the total in store.py"}]}}"#.to_owned(),
        r#"{"timestamp":"2026-03-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","id":"fc_1","call_id":"c1","name":"shell","arguments":"{\"command\":[\"cat\",\"store.py\"]}"}}"#.to_owned(),
        r#"{"timestamp":"2026-03-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"def total(): return 2 * price"}}"#.to_owned(),
        r#"{"timestamp":"2026-03-01T10:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","id":"msg_a1","content":[{"type":"output_text","text":"The price is doubled."}]}}"#.to_owned(),
        r#"{"timestamp":"2026-03-01T10:00:05Z","type":"compacted","payload":{"message":"","replacement_history_entries":[{"type":"reference","item_id":"msg_u1"},{"type":"reference_v2","item_id":"fc_1","source_digest":"d1"},{"type":"inline","item":{"type":"function_call_output","call_id":"c1","output":"def total(): return 2 * price"}},{"type":"inline","item":{"type":"compaction","encrypted_content":"opaque"}},{"type":"reference","item_id":"msg_gone"}]}}"#.to_owned(),
        r#"{"timestamp":"2026-03-01T10:00:06Z","type":"response_item","payload":{"type":"message","role":"assistant","id":"msg_a2","content":[{"type":"output_text","text":"Fixed."}]}}"#.to_owned(),
    ];
    lines.join("\n") + "\n"
}

#[test]
fn entries_resolve_references_and_name_the_one_that_does_not() {
    let t = tempfile::tempdir().unwrap();
    let day = t.path().join("sessions/2026/03/01");
    std::fs::create_dir_all(&day).unwrap();
    let file = day.join(format!("rollout-2026-03-01T10-00-00-{ID}.jsonl"));
    std::fs::write(&file, rollout()).unwrap();
    let root = t.path().join("sessions");
    let s = palimpsest_core::sources::open(&root)
        .unwrap()
        .load(&root, Some(ID))
        .unwrap();
    assert_eq!(
        s.messages.iter().map(|m| m.kind).collect::<Vec<_>>(),
        vec![
            MessageKind::Ordinary,
            MessageKind::Ordinary,
            MessageKind::Ordinary,
            MessageKind::Ordinary,
            MessageKind::Ordinary,
            MessageKind::PreservedCopy,
            MessageKind::PreservedCopy,
            MessageKind::PreservedCopy,
            MessageKind::Summary,
            MessageKind::Ordinary,
        ],
        "four items, the error row, the ask and the call by reference and the output inline, the opaque summary, the answer after"
    );
    assert_eq!(
        s.view(View::Agent).map(|m| m.index).collect::<Vec<_>>(),
        vec![5, 6, 7, 8, 9],
        "the model sees the resolved history and what follows, not the rows before the cut"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (c.cut_index, c.summary_index, c.kept.clone()),
        (5, Some(8), vec![5, 6, 7]),
        "the cut opens on the resolved ask; the encrypted item is the summary"
    );
    assert_eq!(
        s.messages[5].parts.first().and_then(|p| match p {
            palimpsest_core::model::Part::Text { text } => Some(text.as_str()),
            _ => None,
        }),
        Some("fix the total in store.py"),
        "the reference to msg_u1 brings back that very message"
    );
    let err = s.messages[4].error.clone().unwrap_or_default();
    assert!(
        err.ends_with(".jsonl:6: compacted.replacement_history_entries refers to an item no earlier item of this rollout has: msg_gone"),
        "the unresolved reference is named with its file and line: {err}"
    );
    assert!(
        !s.messages[4].agent_visible,
        "the error row is not part of the new context"
    );
}
