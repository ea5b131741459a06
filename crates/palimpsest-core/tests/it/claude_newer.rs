//! Newer Claude Code records (transcript-formats.md; the shapes the newer transcript readers
//! handle): harness state lines (`file-history-delta`, `cost-state`, `bridge-session`,
//! `fork-context-ref`, `continued-in`, `worktree-state`), a system line of subtype
//! `model_refusal_fallback` and a boundary whose `compactMetadata` carries `preservedMessages`.
//! None is an error or a timeline row of its own except the system line; the cut reads as any.

use palimpsest_core::model::{MessageKind, Role, View};
use serde_json::{Value, json};

const ID: &str = "0c1a0000-0000-4000-8000-0000000000e3";

fn line(uuid: &str, parent: Option<&str>, typ: &str, extra: Value) -> String {
    let mut v = json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": "/w", "sessionId": ID, "version": "2.3.0", "type": typ, "uuid": uuid,
        "timestamp": "2026-05-01T10:00:00.000Z"});
    if let (Value::Object(o), Value::Object(e)) = (&mut v, extra) {
        o.extend(e);
    }
    v.to_string()
}

#[test]
fn newer_records_are_counted_not_errors() {
    let lines = [
        line("u1", None, "user", json!({"message": {"role": "user", "content": "fix it"}})),
        json!({"type": "file-history-delta", "messageId": "u1", "delta": {"a.py": "+1"}}).to_string(),
        json!({"type": "cost-state", "sessionId": ID, "totalCostUsd": 0.12}).to_string(),
        json!({"type": "bridge-session", "sessionId": ID, "bridge": "ide"}).to_string(),
        json!({"type": "fork-context-ref", "sessionId": ID, "forkedFrom": "0c1a0000-0000-4000-8000-0000000000aa"}).to_string(),
        json!({"type": "worktree-state", "sessionId": ID, "path": "/w"}).to_string(),
        line("a1", Some("u1"), "assistant", json!({"message": {"id": "m1", "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": "Looking."}], "usage": {"input_tokens": 10, "output_tokens": 2}}})),
        line("s1", Some("a1"), "system", json!({"subtype": "model_refusal_fallback", "content": "Fell back to another model", "level": "info"})),
        line("b1", None, "system", json!({"subtype": "compact_boundary", "content": "Conversation compacted", "logicalParentUuid": "s1",
            "compactMetadata": {"trigger": "auto", "preTokens": 150000, "preservedMessages": ["u1"]}})),
        line("c1", Some("b1"), "user", json!({"isCompactSummary": true, "message": {"role": "user", "content": "Summary: fix it in a.py."}})),
        line("a2", Some("c1"), "assistant", json!({"message": {"id": "m2", "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": "Done."}], "usage": {"input_tokens": 30, "output_tokens": 1}}})),
        json!({"type": "continued-in", "sessionId": ID, "nextSessionId": "0c1a0000-0000-4000-8000-0000000000bb"}).to_string(),
    ];
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join(format!("{ID}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let s = palimpsest_core::api::load_session(&file, None).unwrap();
    let rows: Vec<(Role, MessageKind)> = s.messages.iter().map(|m| (m.role, m.kind)).collect();
    assert_eq!(
        rows,
        [
            (Role::User, MessageKind::Ordinary),
            (Role::Assistant, MessageKind::Ordinary),
            (Role::System, MessageKind::Notification),
            (Role::System, MessageKind::Notification),
            (Role::User, MessageKind::Summary),
            (Role::Assistant, MessageKind::Ordinary),
        ],
        "only the conversation, the fallback notice and the boundary are rows; state lines are not"
    );
    assert!(s.messages.iter().all(|m| m.error.is_none()), "no error row");
    assert_eq!(s.compactions.len(), 1, "the boundary is a cut");
    assert_eq!(
        s.view(View::Agent).map(|m| m.index).collect::<Vec<_>>(),
        [4, 5],
        "the model sees the summary and what follows"
    );
    assert!(
        !s.messages[2].agent_visible && s.messages[2].user_visible,
        "the fallback notice is the harness talking to the user"
    );
}
