//! The app's API on the goose fixture: sidebar groups, compact timeline rows and one whole
//! message with its stored text (what `src-tauri`'s commands return).

use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::model::{MessageKind, Part};
use palimpsest_core::rpc::{ErrorCode, IpcError};
use palimpsest_core::views::SourceOrigin;

fn goose_db() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose/sessions.db")
}

#[test]
fn source_group_lists_the_goose_fixture_sessions() {
    let g = api::source_group("goose", &goose_db(), SourceOrigin::Default);
    assert!(
        g.problems.is_empty(),
        "the fixture DB opens cleanly: {:?}",
        g.problems
    );
    let ids: Vec<&str> = g.sessions.iter().map(|s| s.id.as_str()).collect();
    for id in ["seed-five", "goose-compacted", "hostile-html"] {
        assert!(ids.contains(&id), "the sidebar lists {id}; got {ids:?}");
    }
    assert_eq!(
        g.origin,
        SourceOrigin::Default,
        "the origin is passed through"
    );
    assert_eq!(
        (g.family, g.loaded, g.session_count),
        (Some(palimpsest_core::model::Family::Goose), true, Some(7)),
        "a listed group: its family from its sessions' format, counted as listed (7 fixture sessions)"
    );
}

#[test]
fn source_group_of_a_missing_path_is_a_problem_not_an_error() {
    let g = api::source_group(
        "x",
        Path::new("/nonexistent/sessions.db"),
        SourceOrigin::Opened,
    );
    assert!(
        g.sessions.is_empty(),
        "nothing is listed for a missing file"
    );
    assert_eq!(g.problems.len(), 1, "one problem says why");
    assert_eq!(
        g.problems[0].code,
        palimpsest_core::error::ErrorCode::NotFound,
        "the UI can tell a missing file apart"
    );
    assert!(
        g.problems[0].message.contains("/nonexistent/sessions.db"),
        "the problem names the file: {}",
        g.problems[0].message
    );
}

#[test]
fn timeline_of_goose_compacted_keeps_every_row_with_visibility() {
    let s = api::load_session(&goose_db(), Some("goose-compacted")).expect("fixture loads");
    let t = api::timeline(&s, None);
    assert_eq!(
        t.rows.len(),
        10,
        "one row per stored message, visible or not"
    );
    let agent: Vec<(usize, MessageKind)> = t
        .rows
        .iter()
        .filter(|r| r.agent_visible)
        .map(|r| (r.index, r.kind))
        .collect();
    assert_eq!(
        agent,
        vec![
            (5, MessageKind::Summary),
            (6, MessageKind::Continuation),
            (7, MessageKind::PreservedCopy),
            (8, MessageKind::Ordinary),
            (9, MessageKind::Ordinary)
        ],
        "the agent view after the cut: summary, continuation, preserved ask, the next turn"
    );
    let call = &t.rows[8].parts[0];
    assert_eq!(call.part_type, "tool_call", "message 8 is the re-read call");
    assert_eq!(
        call.preview, r#"{"cmd":"cat store.py"}"#,
        "a call previews its arguments"
    );
}

#[test]
fn get_message_returns_the_whole_message_and_its_stored_row() {
    let d = api::get_message(&goose_db(), "seed-five", 2).expect("message 2 exists");
    assert_eq!(d.message.index, 2, "the asked-for message");
    assert!(
        matches!(d.message.parts.first(), Some(Part::ToolResult { .. })),
        "seed-five's message 2 is the file as a tool result: {:?}",
        d.message.parts
    );
    let raw = d.raw.expect("the goose reader gives the stored row");
    let v: serde_json::Value = serde_json::from_str(&raw).expect("the raw text is JSON");
    assert!(
        v.is_object() || v.is_array(),
        "raw is the stored JSON: {raw}"
    );
}

#[test]
fn get_message_past_the_end_is_invalid_and_names_the_file() {
    let e = api::get_message(&goose_db(), "seed-five", 99).expect_err("seed-five has 5 messages");
    let ipc = IpcError::from(e);
    assert_eq!(
        ipc.code,
        ErrorCode::Invalid,
        "an index past the end is a bad parameter"
    );
    assert!(
        ipc.message.contains("sessions.db") && ipc.message.contains("99"),
        "the message names the file and the index: {}",
        ipc.message
    );
}
