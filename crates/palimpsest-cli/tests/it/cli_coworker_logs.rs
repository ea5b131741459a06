//! `palimpsest sessions` and `palimpsest show` on the coworker and message-log fixtures: the
//! listing, the agent view after compactions, links in the JSON, and a clear error for a bad id.

use crate::common;

use serde_json::Value;

fn fixtures(rel: &str) -> String {
    format!("{}/../../fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// coworker's spill files are found under the fixture scratch base.
fn run(args: &[&str]) -> std::process::Output {
    common::run_env(
        args,
        &[("COWORKER_SCRATCH_BASE", &fixtures("coworker/scratch"))],
    )
}

fn run_json(args: &[&str]) -> Value {
    common::json_of(run(args), args)
}

#[test]
fn sessions_lists_the_coworker_state_and_headless_run() {
    let v = run_json(&["sessions", &fixtures("coworker"), "--json"]);
    let mut rows: Vec<(String, u64, u64)> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|s| {
            assert_eq!(s["format"], "coworker", "every session is coworker: {s}");
            (
                s["id"].as_str().unwrap().to_owned(),
                s["message_count"].as_u64().unwrap(),
                s["compaction_count"].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    let want = [
        ("0ld5e55i0n01", 9, 1),
        ("a1b2c3d4e5f6", 23, 3),
        ("c0ffee000002", 4, 0),
        ("e7e7e7e7e7e7", 2, 0),
        ("run-7", 5, 0),
    ];
    let want: Vec<(String, u64, u64)> = want
        .iter()
        .map(|(i, m, c)| (i.to_string(), *m, *c))
        .collect();
    assert_eq!(
        rows, want,
        "ids, message counts (blocks included) and compaction counts"
    );
}

#[test]
fn show_agent_view_is_what_the_model_receives() {
    let v = run_json(&[
        "show",
        &fixtures("coworker"),
        "--session",
        "a1b2c3d4e5f6",
        "--view",
        "agent",
        "--json",
    ]);
    let idx: Vec<u64> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        idx,
        [0, 13, 14, 15, 16, 18, 19, 21, 22],
        "system, the trim's block, then the kept turns"
    );
    assert_eq!(
        v["messages"][1]["kind"], "summary",
        "the block stands in for the span"
    );
    let all = run_json(&[
        "show",
        &fixtures("coworker"),
        "--session",
        "a1b2c3d4e5f6",
        "--json",
    ]);
    let m3 = &all["messages"][3];
    assert_eq!(
        m3["links"][0]["kind"], "spill_file",
        "capped result links its spill"
    );
    assert_eq!(
        m3["details"]["cap"][0]["spill_exists"], true,
        "found via COWORKER_SCRATCH_BASE"
    );
    assert_eq!(
        all["messages"][5]["details"]["cap"][0]["spill_exists"], false,
        "missing spill reported"
    );
}

#[test]
fn show_text_marks_visibility() {
    let out = run(&["show", &fixtures("coworker"), "--session", "0ld5e55i0n01"]);
    assert!(
        out.status.success(),
        "show works: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "header plus nine messages:\n{text}");
    assert!(
        lines[4].starts_with("[    3] M- user      summary"),
        "column record's block, model-only: {}",
        lines[4]
    );
    assert!(
        lines[7].starts_with("[    6] -U system    notification"),
        "notice, user-only: {}",
        lines[7]
    );
}

#[test]
fn message_logs_list_and_show() {
    for (file, count, cuts) in [
        ("openai-chat.json", 8, 0),
        ("anthropic-messages.json", 5, 0),
        ("harness-compaction.jsonl", 10, 1),
    ] {
        let v = run_json(&[
            "sessions",
            &fixtures(&format!("message-log/{file}")),
            "--json",
        ]);
        assert_eq!(
            v[0]["format"], "message-log",
            "{file} read as a message log"
        );
        assert_eq!(
            (
                v[0]["message_count"].as_u64(),
                v[0]["compaction_count"].as_u64()
            ),
            (Some(count), Some(cuts)),
            "{file} counts"
        );
    }
    let v = run_json(&[
        "show",
        &fixtures("message-log/harness-compaction.jsonl"),
        "--view",
        "agent",
        "--json",
    ]);
    let idx: Vec<u64> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        idx,
        [0, 1, 6, 9],
        "system, pinned request, summary, the turn after"
    );
    assert_eq!(
        v["messages"][2]["links"][0]["kind"], "transcript",
        "summary links its transcript"
    );
}

#[test]
fn unknown_session_is_a_clear_error() {
    let out = run(&["show", &fixtures("coworker"), "--session", "nope"]);
    assert_eq!(out.status.code(), Some(2), "input error exits 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no session with id `nope`"),
        "names the id: {err}"
    );
}
