//! `palimpsest sessions` and `palimpsest show` on the goose fixtures: the JSON contract (exact
//! keys), the agent view of a session, and errors on stderr with a non-zero exit.

use crate::common;
use assert_cmd::Command;
use common::run_json;
use serde_json::Value;

fn fixtures() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/goose").to_owned()
}

#[test]
fn sessions_lists_the_goose_folder_as_json() {
    let v = run_json(&["sessions", &format!("{}/sessions.db", fixtures()), "--json"]);
    let list = v.as_array().expect("a JSON array of sessions");
    assert_eq!(list.len(), 7, "seven goose fixture sessions");
    for s in list {
        for key in [
            "id",
            "format",
            "name",
            "message_count",
            "compaction_count",
            "path",
        ] {
            assert!(s.get(key).is_some(), "every session has `{key}`: {s}");
        }
        assert_eq!(s["format"], "goose", "read from sessions.db: {s}");
        assert!(
            s["path"].as_str().unwrap().ends_with("sessions.db"),
            "path names the database: {s}"
        );
    }
    let compacted = list
        .iter()
        .find(|s| s["id"] == "goose-compacted")
        .expect("listed");
    assert_eq!(
        (&compacted["message_count"], &compacted["compaction_count"]),
        (&Value::from(10), &Value::from(1)),
        "counts of the compacted session"
    );
}

#[test]
fn show_agent_view_of_seed_five_has_the_contract_keys() {
    let db = format!("{}/sessions.db", fixtures());
    let v = run_json(&[
        "show",
        &db,
        "--session",
        "seed-five",
        "--view",
        "agent",
        "--json",
    ]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["session", "messages"],
        "top-level keys of the show contract"
    );
    assert_eq!(v["session"]["id"], "seed-five", "the session asked for");
    let messages = v["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        5,
        "all five seed messages are agent-visible"
    );
    for m in messages {
        for key in [
            "index",
            "id",
            "role",
            "kind",
            "agent_visible",
            "user_visible",
            "parts",
        ] {
            assert!(m.get(key).is_some(), "message has `{key}`: {m}");
        }
        assert!(
            m["parts"][0].get("type").is_some(),
            "parts are tagged by `type`: {m}"
        );
    }
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "user", "assistant", "user"],
        "roles in order"
    );
    let types: Vec<&str> = messages
        .iter()
        .map(|m| m["parts"][0]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "text",
            "tool_call",
            "tool_result",
            "tool_call",
            "tool_result"
        ],
        "part types in order"
    );
    assert_eq!(
        messages[1]["parts"][0]["name"], "shell",
        "tool name as the seed has it"
    );
    assert_eq!(
        messages[4]["parts"][0]["text"],
        "1 failed: test_retry - AssertionError: expected 3 attempts, got 1",
        "the failure text"
    );
}

#[test]
fn show_agent_view_of_the_compacted_session_starts_at_the_summary() {
    let db = format!("{}/sessions.db", fixtures());
    let v = run_json(&[
        "show",
        &db,
        "--session",
        "goose-compacted",
        "--view",
        "agent",
        "--json",
    ]);
    let kinds: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "summary",
            "continuation",
            "preserved_copy",
            "ordinary",
            "ordinary"
        ],
        "what the model sees after the compaction"
    );
}

#[test]
fn errors_go_to_stderr_with_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("sessions.db");
    std::fs::write(&bad, "not sqlite").unwrap();
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args(["show", bad.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "a broken DB fails");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a SQLite database") && err.contains(bad.to_str().unwrap()),
        "stderr names the file and the reason: {err}"
    );
    let missing = Command::cargo_bin("palimpsest")
        .unwrap()
        .args([
            "show",
            &format!("{}/sessions.db", fixtures()),
            "--session",
            "nope",
        ])
        .output()
        .unwrap();
    assert!(!missing.status.success(), "an unknown session fails");
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no session with id `nope`"),
        "stderr says which id"
    );
}
