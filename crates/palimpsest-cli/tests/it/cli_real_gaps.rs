//! Shapes met in other people's real sessions that used to be lost or misreported, each built
//! the way it was found: tool results inside Claude assistant lines, subagent runs whose parent
//! transcript is gone, a corrupted goose database asked for one session, an empty folder, a
//! Codex `replacement_history` that is not a list, a last request recorded as 0 tokens, and a
//! session that ends while a command runs.

use crate::common;

use std::path::Path;

use common::{run, run_json};
use serde_json::{Value, json};

fn write_lines(p: &Path, lines: &[Value]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(p, text).unwrap();
}

fn claude_line(uuid: &str, parent: Option<&str>, typ: &str, message: Value) -> Value {
    json!({"parentUuid": parent, "isSidechain": false, "cwd": "/w", "sessionId": "s-1",
           "type": typ, "timestamp": "2026-02-10T21:11:52.000Z", "uuid": uuid, "message": message})
}

#[test]
fn tool_results_in_assistant_lines_stay_tool_results() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("t.jsonl");
    write_lines(
        &f,
        &[
            claude_line(
                "u1",
                None,
                "user",
                json!({"role": "user", "content": "list files"}),
            ),
            claude_line(
                "a1",
                Some("u1"),
                "assistant",
                json!({"id": "msg_1", "role": "assistant", "model": "glm-4.6", "content": [
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
                    {"type": "tool_result", "tool_use_id": "t1", "content": "a.py\nb.py"}]}),
            ),
        ],
    );
    let v = run_json(&["show", f.to_str().unwrap(), "--json"]);
    let parts = &v["messages"][1]["parts"];
    assert_eq!(
        parts[1]["type"], "tool_result",
        "the block is a tool result, not dropped or `other`: {parts}"
    );
    assert_eq!(
        (parts[1]["call_id"].as_str(), parts[1]["text"].as_str()),
        (Some("t1"), Some("a.py\nb.py")),
        "with its call id and text"
    );
}

#[test]
fn subagent_runs_without_their_transcript_are_listed_under_a_placeholder() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-w");
    let sub = project.join("gone-1/subagents/agent-a1.jsonl");
    write_lines(
        &sub,
        &[
            json!({"parentUuid": null, "isSidechain": true, "cwd": "/w", "sessionId": "gone-1",
                  "agentId": "a1", "type": "user", "timestamp": "2026-02-10T21:11:52.000Z",
                  "uuid": "x1", "message": {"role": "user", "content": "search the repo"}}),
        ],
    );
    let v = run_json(&["sessions", tmp.path().to_str().unwrap(), "--json"]);
    let mut got: Vec<(String, Option<String>, usize)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["parent_id"].as_str().map(str::to_owned),
                s["message_count"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("gone-1".to_owned(), None, 0),
            ("gone-1/agent-a1".to_owned(), Some("gone-1".to_owned()), 1)
        ],
        "a placeholder parent named by the folder's id, and its run as its child"
    );
    let placeholder = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "gone-1")
        .unwrap();
    assert!(
        placeholder["name"]
            .as_str()
            .unwrap()
            .contains("transcript missing"),
        "the placeholder says what is missing: {}",
        placeholder["name"]
    );
}

#[test]
fn a_corrupted_database_says_why_not_that_the_session_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("sessions.db");
    std::fs::write(&db, b"SQLite format 3\0garbage that is no database at all").unwrap();
    let out = run(&["show", db.to_str().unwrap(), "--session", "s1", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it fails");
    assert!(
        err.contains(db.to_str().unwrap()) && !err.contains("no session with id"),
        "the real cause, naming the file: {err}"
    );
    let dir = tmp.path().join("empty.jsonl");
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&["sessions", dir.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no session files found"),
        "a directory named like a session file is not answered with silence"
    );
}

fn codex(dir: &Path, tail: &[Value]) -> std::path::PathBuf {
    let p = dir.join("rollout-2026-02-24T10-00-00-019c8f0a-0000-7000-8000-0000000000bb.jsonl");
    let t = "2026-02-24T10:00:00.000Z";
    let mut lines = vec![
        json!({"timestamp": t, "type": "session_meta", "payload": {"id": "019c8f0a-0000-7000-8000-0000000000bb", "timestamp": t, "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.104.0"}}),
        json!({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tests"}]}}),
    ];
    lines.extend_from_slice(tail);
    write_lines(&p, &lines);
    p
}

#[test]
fn a_session_that_ends_while_a_command_runs_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let t = "2026-02-24T10:00:01.000Z";
    let f = codex(
        tmp.path(),
        &[
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"pytest\"}", "call_id": "call_9f"}}),
        ],
    );
    let d = run_json(&["diagnose", f.to_str().unwrap(), "--json"]);
    assert_eq!(
        d["ended_while_running"],
        json!([{"name": "exec_command", "id": "call_9f", "message_index": 1}]),
        "the call the session ended on"
    );
    assert!(
        d["verdict"]
            .as_str()
            .unwrap()
            .contains("ended while exec_command (call_9f) was running; no output recorded"),
        "the verdict says it: {}",
        d["verdict"]
    );
}

#[test]
fn a_replacement_history_that_is_not_a_list_is_an_error_row() {
    let tmp = tempfile::tempdir().unwrap();
    let t = "2026-02-24T10:00:01.000Z";
    let f = codex(
        tmp.path(),
        &[
            json!({"timestamp": t, "type": "compacted", "payload": {"message": "", "replacement_history": {"items": 3}}}),
        ],
    );
    let v = run_json(&["show", f.to_str().unwrap(), "--json"]);
    let last = &v["messages"][1];
    let err = last["error"].as_str().unwrap_or("");
    assert!(
        err.contains(f.to_str().unwrap())
            && err.contains(":3:")
            && err.contains("replacement_history"),
        "an error row naming file and line 3: {last}"
    );
}

#[test]
fn a_last_request_recorded_as_zero_is_no_recorded_usage() {
    let tmp = tempfile::tempdir().unwrap();
    let t = "2026-02-24T10:00:01.000Z";
    let zero = json!({"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0});
    let f = codex(
        tmp.path(),
        &[
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}}),
            json!({"timestamp": t, "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": zero, "last_token_usage": zero, "model_context_window": 258400}, "rate_limits": null}}),
        ],
    );
    let cache = tmp.path().join("cache");
    let out = common::run_env(
        &["tokens", f.to_str().unwrap()],
        &[("XDG_CACHE_HOME", cache.to_str().unwrap())],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tokens runs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("no recorded usage") && !text.contains("difference:"),
        "a zero is no recorded usage, not a percentage over zero: {text}"
    );
}

#[test]
fn archived_codex_rollouts_are_a_default_source() {
    let tmp = tempfile::tempdir().unwrap();
    let codex_home = tmp.path().join("codex");
    let archived = codex_home.join("archived_sessions");
    codex(&archived, &[]);
    let out = common::run_env(
        &["sources", "--json"],
        &[
            ("HOME", tmp.path().to_str().unwrap()),
            ("CODEX_HOME", codex_home.to_str().unwrap()),
        ],
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let archive = v
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["path"] == archived.to_str().unwrap())
        .cloned();
    assert_eq!(
        archive.map(|l| (
            l["family"].clone(),
            l["exists"].clone(),
            l["session_count"].clone()
        )),
        Some((json!("codex"), json!(true), json!(1))),
        "archived_sessions is listed as a Codex folder with its one rollout: {v}"
    );
}

#[test]
fn claude_transcripts_as_found_are_recognised_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-w");
    let two = |sid: &str| {
        vec![
            json!({"parentUuid": null, "isSidechain": false, "cwd": "/w", "sessionId": sid, "type": "user",
                   "timestamp": "2026-02-10T21:11:52.000Z", "uuid": "u1", "message": {"role": "user", "content": "hello"}}),
            json!({"parentUuid": "u1", "isSidechain": false, "cwd": "/w", "sessionId": sid, "type": "assistant",
                   "timestamp": "2026-02-10T21:11:53.000Z", "uuid": "a1",
                   "message": {"id": "msg_1", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "hi"}]}}),
        ]
    };
    // 1. Opens with an 80 KB file-history-snapshot record.
    let big = "0123456789".repeat(8_000);
    let mut lines = vec![
        json!({"type": "file-history-snapshot", "messageId": "m0", "isSnapshotUpdate": false,
                                "snapshot": {"messageId": "m0", "trackedFileBackups": {"a.py": big}}}),
    ];
    lines.extend(two("11111111-1111-4111-8111-111111111111"));
    write_lines(
        &project.join("11111111-1111-4111-8111-111111111111.jsonl"),
        &lines,
    );
    // 2. Re-serialised with `": "` and `", "`.
    let spaced: String = two("22222222-2222-4222-8222-222222222222")
        .iter()
        .map(|l| {
            l.to_string()
                .replace("\":", "\": ")
                .replace("\",\"", "\", \"")
                + "\n"
        })
        .collect();
    std::fs::write(
        project.join("22222222-2222-4222-8222-222222222222.jsonl"),
        spaced,
    )
    .unwrap();
    // 3. Only a teleported-from record, where Claude keeps transcripts.
    write_lines(
        &project.join("33333333-3333-4333-8333-333333333333.jsonl"),
        &[
            json!({"type": "teleported-from", "sessionId": "33333333-3333-4333-8333-333333333333", "from": "web"}),
        ],
    );
    // 4. Not a session at all: reported, not dropped unsaid.
    std::fs::write(project.join("notes.jsonl"), "{\"todo\": \"write docs\"}\n").unwrap();
    let out = run(&["sessions", tmp.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "lists");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["message_count"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("11111111-1111-4111-8111-111111111111".to_owned(), 2),
            ("22222222-2222-4222-8222-222222222222".to_owned(), 2),
            ("33333333-3333-4333-8333-333333333333".to_owned(), 0),
        ],
        "each transcript is recognised and its messages counted, spaces or not"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("notes.jsonl") && err.contains("no reader recognised"),
        "the file no reader claims is named: {err}"
    );
}

/// A Claude Code worker driving an MCP server: reads, then 120 `update_*` / `create_*` /
/// `delete_*` calls, one unknown verb, and one overflowing read saved to `tool-results/`.
fn mcp_worker(project: &Path) -> std::path::PathBuf {
    let id = "44444444-4444-4444-8444-444444444444";
    let mut lines = vec![claude_line(
        "u0",
        None,
        "user",
        json!({"role": "user", "content": "Triage the backlog: close stale issues, label the rest"}),
    )];
    let mut parent = "u0".to_owned();
    let mut push_call = |lines: &mut Vec<Value>,
                         n: usize,
                         name: &str,
                         input: Value,
                         result: &str| {
        let a = format!("a{n}");
        let u = format!("r{n}");
        let call = format!("toolu_{n}");
        lines.push(claude_line(
            &a,
            Some(&parent),
            "assistant",
            json!({"id": format!("msg_{n}"), "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": call, "name": name, "input": input}]}),
        ));
        lines.push(claude_line(&u, Some(&a), "user", json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": result}]})));
        parent = u;
    };
    let spill = project
        .join(id)
        .join("tool-results/mcp-linear-list_issues-1.txt");
    push_call(
        &mut lines,
        0,
        "mcp__linear__list_issues",
        json!({"team": "ENG"}),
        &format!(
            "Error: result (1,093,765 characters) exceeds maximum allowed tokens. Output has been saved to {}",
            spill.display()
        ),
    );
    push_call(
        &mut lines,
        1,
        "mcp__linear__get_issue",
        json!({"id": "ENG-1"}),
        "{\"id\":\"ENG-1\"}",
    );
    for n in 2..122 {
        let verb = ["update_issue", "create_comment", "delete_label"][n % 3];
        push_call(
            &mut lines,
            n,
            &format!("mcp__linear__{verb}"),
            json!({"id": format!("ENG-{n}"), "state": "closed"}),
            "ok",
        );
    }
    push_call(&mut lines, 122, "mcp__linear__frobnicate", json!({}), "ok");
    let f = project.join(format!("{id}.jsonl"));
    write_lines(&f, &lines);
    std::fs::create_dir_all(spill.parent().unwrap()).unwrap();
    std::fs::write(&spill, "[{\"id\":\"ENG-1\"}]").unwrap();
    f
}

#[test]
fn an_mcp_worker_that_changed_things_is_not_stuck_and_its_overflow_spill_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    let f = mcp_worker(&tmp.path().join("projects/-w"));
    let d = run_json(&["diagnose", f.to_str().unwrap(), "--json"]);
    let e = &d["exploration"];
    assert_eq!(
        (
            e["calls"].as_u64(),
            e["look_calls"].as_u64(),
            e["write_calls"].as_u64()
        ),
        (Some(123), Some(2), Some(120)),
        "get/list look, update/create/delete change, frobnicate is neither"
    );
    let stretches: Vec<&Value> = d["loops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "no_write_stretch")
        .collect();
    assert!(
        stretches.is_empty(),
        "120 MCP changes are writes, not a stretch without one: {stretches:?}"
    );
    assert!(
        !d["verdict"].as_str().unwrap().contains("without a write"),
        "the verdict does not call it stuck for lack of writes: {}",
        d["verdict"]
    );
    let s = run_json(&["spills", f.to_str().unwrap(), "--json"]);
    let spills = s["spills"].as_array().unwrap();
    let named: Vec<(&str, &str, Option<u64>)> = spills
        .iter()
        .filter(|x| x["message_index"].is_number())
        .map(|x| {
            (
                x["kind"].as_str().unwrap(),
                x["status"].as_str().unwrap(),
                x["total_bytes"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        named,
        vec![("claude_tool_results", "present", Some(1_093_765))],
        "Claude Code's overflow notice names its tool-results file, present in the session's folder"
    );
}
