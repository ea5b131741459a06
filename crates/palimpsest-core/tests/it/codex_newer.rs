//! Newer Codex rollout records (transcript-formats.md §2): a `compacted` item carries
//! `window_id` as an integer in some builds and a UUID string in others, and the newer event
//! types (`guardian_assessment`, `thread_name_updated`, `undo_completed`) and `ghost_snapshot`
//! items appear between messages. Each shape is written here as those builds write it; none is
//! an error, the messages and the cut read the same whatever the `window_id`, and the name the
//! user gave the thread is its title everywhere.

use palimpsest_core::model::View;
use serde_json::json;

const ID: &str = "019c0000-0000-7000-8000-0000000000e2";

fn rollout(window_id: serde_json::Value) -> String {
    let line = |ts: &str, typ: &str, payload: serde_json::Value| {
        json!({"timestamp": format!("2026-04-01T10:00:{ts}Z"), "type": typ, "payload": payload})
            .to_string()
    };
    [
        line("00", "session_meta", json!({"id": ID, "cwd": "/work/shop", "originator": "codex_cli_rs"})),
        line("01", "response_item", json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the total"}]})),
        line("02", "event_msg", json!({"type": "guardian_assessment", "risk": "low", "decision": "allow"})),
        line("03", "response_item", json!({"type": "ghost_snapshot", "ghost_commit": {"id": "abc123"}})),
        line("04", "response_item", json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]})),
        line("05", "event_msg", json!({"type": "thread_name_updated", "thread_name": "Fix the total"})),
        line("06", "compacted", json!({"message": "", "window_id": window_id, "window_number": 2,
            "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the total"}]},
                {"type": "compaction", "encrypted_content": "opaque"}
            ]})),
        line("07", "event_msg", json!({"type": "undo_completed", "success": true})),
        line("08", "response_item", json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]})),
    ]
    .join("\n")
        + "\n"
}

/// The session read from a rollout with `window_id` as given.
fn load(window_id: serde_json::Value) -> palimpsest_core::model::Session {
    let t = tempfile::tempdir().unwrap();
    let day = t.path().join("sessions/2026/04/01");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::write(
        day.join(format!("rollout-2026-04-01T10-00-00-{ID}.jsonl")),
        rollout(window_id),
    )
    .unwrap();
    let root = t.path().join("sessions");
    let listed = palimpsest_core::api::list_sessions(&root).unwrap();
    assert!(
        listed.problems.is_empty(),
        "no problem: {:?}",
        listed.problems
    );
    let s = palimpsest_core::api::load_session(&root, Some(ID)).unwrap();
    assert_eq!(
        (listed.sessions[0].name.as_str(), s.meta.name.as_str()),
        ("Fix the total", "Fix the total"),
        "the name the user gave the thread titles it, listed and loaded alike"
    );
    s
}

#[test]
fn window_id_as_integer_or_uuid_and_newer_records_read_alike() {
    let int = load(json!(3));
    let uuid = load(json!("019c0000-0000-7000-8000-0000000000ff"));
    for s in [&int, &uuid] {
        assert!(
            s.messages.iter().all(|m| m.error.is_none()),
            "no record of these is an error row"
        );
        assert_eq!(s.compactions.len(), 1, "the compacted item is one cut");
        assert_eq!(
            s.view(View::Agent).count(),
            3,
            "the model sees the carried ask, the opaque summary and the answer after"
        );
    }
    let shape = |s: &palimpsest_core::model::Session| {
        s.messages
            .iter()
            .map(|m| (m.index, m.role, m.kind, m.agent_visible))
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&int), shape(&uuid), "the same messages either way");
}
