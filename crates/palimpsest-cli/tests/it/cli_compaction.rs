//! `palimpsest compactions`, `lint` and `context` on the generated fixtures and on a message log
//! written here: the JSON contract (exact keys), the lint exit code (1 on findings, 0 clean) and
//! the providers' exact error texts.

use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use serde_json::{Value, json};

fn fixture(rel: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/").to_owned() + rel
}

/// Run with a cache of its own: the views count in BPE once a session is counted, so the
/// user's cache, or another test's, must not decide what these tests read.
fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    run_in(cache.path(), args)
}

fn run_in(cache: &std::path::Path, args: &[&str]) -> Output {
    Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", cache)
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn compactions_json_has_the_contract_keys_and_exact_cut() {
    let db = fixture("goose/sessions.db");
    let out = run(&["compactions", &db, "--session", "goose-compacted", "--json"]);
    assert!(
        out.status.success(),
        "compactions succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let cuts = v["compactions"].as_array().expect("a compactions array");
    assert_eq!(cuts.len(), 1, "goose-compacted has one cut");
    let c = &cuts[0];
    for key in [
        "cut_index",
        "trigger",
        "pre_tokens",
        "post_tokens",
        "summary_index",
        "summary_chars",
        "health",
        "kept_tail",
        "dropped",
        "preserved_index",
        "preserved_duplicate",
    ] {
        assert!(c.get(key).is_some(), "contract key `{key}` is present: {c}");
    }
    assert_eq!(
        c["cut_index"], 5,
        "the cut lands on the summary after five originals"
    );
    assert_eq!(c["trigger"], "auto", "auto compaction");
    assert_eq!(c["summary_index"], 5, "summary at the cut");
    assert_eq!(c["kept_tail"], json!([]), "upstream goose keeps no tail");
    assert_eq!(
        c["dropped"],
        json!([0, 4]),
        "first and last dropped message"
    );
    assert_eq!(
        c["preserved_index"], 7,
        "the ask copied after the continuation"
    );
    assert_eq!(c["preserved_duplicate"], false, "seen once");
    assert_eq!(
        c["pre_tokens"],
        Value::Null,
        "goose records none: our count is separate"
    );
    assert_eq!(
        c["health"][0]["code"], "few_sections",
        "the fixture summary names 4 of goose's 9 sections"
    );
}

#[test]
fn compactions_text_is_one_line_per_cut() {
    let out = run(&["compactions", &fixture("goose-stuck/sessions.db")]);
    assert!(out.status.success(), "text output succeeds");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "the stuck worker was compacted twice: {text}"
    );
    assert!(
        lines[0].starts_with("cut    11"),
        "first cut at 11: {}",
        lines[0]
    );
    assert!(
        lines[1].contains("chains [11]"),
        "the second summary folds the first: {}",
        lines[1]
    );
}

fn naive_tail_log(dir: &tempfile::TempDir) -> PathBuf {
    // Seed 000's row B: the tail sliced naively, its tool reply's request summarised away.
    let log = json!([
        {"role": "user", "content": "<summary of the conversation so far>"},
        {"role": "assistant", "content": "Your context was compacted."},
        {"role": "tool", "tool_call_id": "call_1", "content": "def fetch_rows(...)..."},
        {"role": "user", "content": "continue"}
    ]);
    let path = dir.path().join("naive-tail.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&log).unwrap()).unwrap();
    path
}

#[test]
fn lint_exits_1_with_the_exact_openai_and_anthropic_texts() {
    let dir = tempfile::tempdir().unwrap();
    let path = naive_tail_log(&dir);
    let p = path.to_str().unwrap();
    let out = run(&["lint", p, "--api", "openai", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "findings exit 1: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let f = &v["findings"][0];
    for key in [
        "kind",
        "message_index",
        "call_id",
        "caused_by_cut",
        "error_text",
    ] {
        assert!(f.get(key).is_some(), "contract key `{key}` is present: {f}");
    }
    assert_eq!(
        v["findings"].as_array().unwrap().len(),
        1,
        "one orphan: {v}"
    );
    assert_eq!(f["kind"], "orphan_result", "the tool reply has no call");
    assert_eq!(f["message_index"], 2, "the third line of the log");
    assert_eq!(f["call_id"], "call_1", "its id");
    assert_eq!(
        f["caused_by_cut"],
        Value::Null,
        "the log records no compaction"
    );
    assert_eq!(
        f["error_text"],
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        "OpenAI's text, its spelling kept"
    );
    assert_eq!(
        f["error_param"], "messages.[2].role",
        "a log is sent as stored: index 2"
    );

    let out = run(&["lint", p, "--api", "anthropic", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "findings exit 1 under Anthropic too"
    );
    assert_eq!(
        json_of(&out)["findings"][0]["error_text"],
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: call_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        "Anthropic's text with entry and block"
    );
}

#[test]
fn lint_exits_0_on_a_clean_session_and_1_on_codex_unanswered_call() {
    let db = fixture("goose/sessions.db");
    let out = run(&["lint", &db, "--session", "goose-compacted"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "upstream goose leaves no orphan"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("0 finding(s)"),
        "the text says so"
    );
    let codex = fixture("codex/sessions");
    let out = run(&[
        "lint",
        &codex,
        "--session",
        "019c8f0a-0000-7000-8000-00000000a003",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the interrupted call was never answered"
    );
    let v = json_of(&out);
    assert_eq!(v["findings"][0]["kind"], "unanswered_call", "{v}");
    assert_eq!(
        v["findings"][0]["call_id"], "call_u1",
        "the call left open by the interruption"
    );
}

#[test]
fn context_shows_what_the_model_saw_before_and_after_the_cut() {
    let db = fixture("goose/sessions.db");
    let out = run(&[
        "context",
        &db,
        "--session",
        "goose-compacted",
        "--request",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "context succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(
        v["indices"],
        json!([0, 1, 2]),
        "request 2 saw the ask, the cat call and the file"
    );
    assert_eq!(v["answer_index"], 3, "answered by the pytest call");
    assert_eq!(
        v["messages"].as_array().unwrap().len(),
        3,
        "with the messages themselves"
    );

    let out = run(&[
        "context",
        &db,
        "--session",
        "goose-compacted",
        "--request",
        "3",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(
        v["indices"],
        json!([5, 6, 7]),
        "after the cut: summary, continuation, ask"
    );
    assert_eq!(v["after_cut"], 5, "behind the cut at 5");

    let out = run(&[
        "context",
        &db,
        "--session",
        "goose-compacted",
        "--request",
        "next",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(
        v["indices"],
        json!([5, 6, 7, 8, 9]),
        "the next request adds the new cat pair"
    );
    assert_eq!(v["answer_index"], Value::Null, "not answered yet");

    let out = run(&[
        "context",
        &db,
        "--session",
        "goose-compacted",
        "--request",
        "9",
    ]);
    assert_eq!(out.status.code(), Some(2), "no request 9");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has requests 1 to 4"),
        "the error names the range: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn views_count_in_bpe_once_the_session_is_counted() {
    let six = fixture("claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl");
    let cache = tempfile::tempdir().unwrap();
    let cut =
        |c: &std::path::Path| json_of(&run_in(c, &["compactions", &six, "--cut", "3", "--json"]));
    let before = cut(cache.path());
    assert_eq!(
        (
            &before["anatomy"]["token_method"],
            &before["anatomy"]["pre_tokens_counted"]
        ),
        (&json!("estimate: characters / 4"), &json!(1578)),
        "before any count the cut view estimates, and says so"
    );

    let file_rows = |c: &std::path::Path| {
        json_of(&run_in(c, &["show", &six, "--rows", "--json"]))["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tokens"].clone())
            .collect::<Vec<Value>>()
    };
    assert!(
        file_rows(cache.path()).iter().all(Value::is_null),
        "rows read from the file carry no count before the session is counted"
    );

    // Indexing counts every message (as the Tokens tab does) into the token cache.
    assert!(
        run_in(cache.path(), &["index", &six]).status.success(),
        "index runs"
    );
    let after = cut(cache.path());
    assert_eq!(
        after["anatomy"]["token_method"],
        json!("BPE o200k_base"),
        "once counted, the cut view counts in the session's vocabulary"
    );
    assert_ne!(
        after["anatomy"]["pre_tokens_counted"], before["anatomy"]["pre_tokens_counted"],
        "the count is the tokenizer's, not the estimate"
    );

    // One message, one number: a request's context is the sum of the rows' tokens (the
    // ribbon's, from the index).
    let rows = json_of(&run_in(
        cache.path(),
        &["show", &six, "--rows", "--index", "--json"],
    ));
    assert_eq!(
        rows["from_index"],
        json!(true),
        "the rows come from the index"
    );
    let tokens_of = |i: u64| {
        rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["index"] == json!(i))
            .and_then(|r| r["tokens"].as_u64())
            .unwrap_or_else(|| panic!("row {i} has BPE tokens"))
    };
    let indexed: Vec<Value> = rows["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tokens"].clone())
        .collect();
    assert_eq!(
        file_rows(cache.path()),
        indexed,
        "once counted, rows read from the file carry the index's count of each message"
    );
    let ctx = json_of(&run_in(
        cache.path(),
        &["context", &six, "--request", "5", "--json"],
    ));
    let summed: u64 = ctx["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| tokens_of(i.as_u64().unwrap()))
        .sum();
    assert_eq!(
        (ctx["token_method"].as_str(), ctx["tokens_counted"].as_u64()),
        (Some("BPE o200k_base"), Some(summed)),
        "request 5's context counts each message as the ribbon does"
    );
}
