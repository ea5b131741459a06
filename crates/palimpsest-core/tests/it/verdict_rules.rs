//! The four verdict rules that called working sessions stuck (issue 45), each on a Claude Code
//! transcript built in the shape the real sessions showed, asserted both ways: the false case
//! is no longer stuck, and the case that is stuck stays stuck.

use palimpsest_core::analysis::{Diagnosis, LoopKind, Severity};
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_fixtures::claude::Transcript;
use serde_json::json;

const ID: &str = "7e570000-0000-4000-8000-000000000045";

fn diagnose(t: &Transcript) -> Diagnosis {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(format!("{ID}.jsonl"));
    t.write(&f).unwrap();
    let s = api::load_session(&f, None).expect("the transcript loads");
    api::diagnose(
        &s,
        &DiagnoseOptions {
            estimate_tokens: true,
            ..Default::default()
        },
    )
    .expect("diagnoses")
}

fn repeated(d: &Diagnosis) -> Vec<(String, usize)> {
    d.loops
        .iter()
        .filter(|l| l.kind == LoopKind::RepeatedCall)
        .map(|l| (l.tool.clone().unwrap_or_default(), l.count))
        .collect()
}

fn summary() -> String {
    "Primary request: update the workflow. Current work: the webhook node. ".repeat(10)
}

#[test]
fn an_mcp_tool_named_after_its_server_is_read_by_its_verb() {
    // See: issue 45. `mcp__n8n-mcp__n8n_update_full_workflow` updates; it was read as the
    // verb `n8n`, so 61 updates "made no write" and the same update was "repeated".
    let mut t = Transcript::new(ID);
    t.user("Fix the webhook node of the intake workflow.");
    for _ in 0..5 {
        t.tool(
            "mcp__n8n-mcp__n8n_update_full_workflow",
            json!({"id": "wf_17", "nodes": [{"name": "Webhook", "path": "/intake"}]}),
            "{\"success\": true, \"id\": \"wf_17\"}",
            30_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(
        (d.exploration.write_calls, repeated(&d), d.severity),
        (5, vec![], Severity::Ok),
        "five updates are five changes, and a change between two calls is not a loop: {}",
        d.verdict
    );

    // Control: a tool whose name says nothing, called alike five times with one answer.
    let mut t = Transcript::new(ID);
    t.user("Fix the webhook node of the intake workflow.");
    for _ in 0..5 {
        t.tool(
            "mcp__n8n-mcp__n8n_frobnicate",
            json!({"id": "wf_17"}),
            "{\"success\": false}",
            30_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(
        (repeated(&d), d.severity),
        (
            vec![("mcp__n8n-mcp__n8n_frobnicate".to_owned(), 5)],
            Severity::Stuck
        ),
        "the same unknown call with the same answer five times is still a loop"
    );
}

#[test]
fn tailing_a_log_another_process_writes_is_not_a_reread() {
    // See: issue 45. An agent debugging a running API reads the end of its log after each
    // request; the log grows between reads.
    let mut t = Transcript::new(ID);
    t.user("The /orders endpoint returns 500; find out why.");
    for n in 0..4 {
        t.tool(
            "Bash",
            json!({"command": "curl -s localhost:8080/orders"}),
            &format!("{{\"error\": \"internal\", \"request\": {n}}}"),
            20_000,
        );
        t.tool(
            "Bash",
            json!({"command": "tail -30 /tmp/api.log | grep -i error"}),
            &format!("ERROR request {n}: KeyError 'customer'\n"),
            20_500,
        );
    }
    for _ in 0..3 {
        // A poll: waits, then looks. Its answer may be the same: waiting is the point.
        t.tool(
            "Bash",
            json!({"command": "sleep 10 && tail -20 /tmp/api.log"}),
            "INFO server listening on :8080\n",
            21_000,
        );
    }
    let d = diagnose(&t);
    let log = d.rereads.iter().find(|f| f.path == "/tmp/api.log").unwrap();
    assert_eq!(
        (log.reads, log.rereads),
        (7, 0),
        "seven looks at a growing log, none of them a re-read"
    );
    assert_ne!(d.severity, Severity::Stuck, "{}", d.verdict);

    // Control: a file nobody writes, read again after a compaction dropped it, is still the
    // seeds' stuck worker.
    let mut t = Transcript::new(ID);
    t.user("Add a retry to fetch_rows in store.py.");
    let store = "def fetch_rows():\n    return db.query()\n".repeat(40);
    t.tool("Bash", json!({"command": "cat store.py"}), &store, 20_000);
    t.compact("auto", 160_000, &summary());
    for _ in 0..3 {
        t.tool("Bash", json!({"command": "cat store.py"}), &store, 9_000);
    }
    let d = diagnose(&t);
    let f = d.rereads.iter().find(|f| f.path == "store.py").unwrap();
    assert_eq!(
        (f.rereads, f.after_compaction, d.severity),
        (3, 1, Severity::Stuck),
        "the same content read three more times, the first after the cut: {}",
        d.verdict
    );
}

#[test]
fn reading_on_from_where_a_truncated_read_stopped_is_not_a_reread() {
    // See: issue 45. The Read tool cut the file at line 842 and said where to go on.
    let mut t = Transcript::new(ID);
    t.user("Review gateway.ts.");
    let head = "<system-reminder>[Truncated: PARTIAL view — showing lines 1-842 of 1074 total \
                (25872 tokens, cap 25000). Call Read with offset=843 limit=842 for the next \
                page, or Grep to find a specific section.]</system-reminder>\n     1\timport x";
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/api/gateway.ts"}),
        head,
        30_000,
    );
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/api/gateway.ts", "offset": 843}),
        "   843\texport function route() {}",
        55_000,
    );
    let d = diagnose(&t);
    let f = d
        .rereads
        .iter()
        .find(|f| f.path == "/home/dev/api/gateway.ts")
        .unwrap();
    assert_eq!(
        (f.reads, f.rereads),
        (2, 0),
        "lines 1-842, then 843 on: two pages"
    );

    // Control: reading the whole file again does re-read lines 1-842.
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/api/gateway.ts"}),
        head,
        60_000,
    );
    let d = diagnose(&t);
    let f = d
        .rereads
        .iter()
        .find(|f| f.path == "/home/dev/api/gateway.ts")
        .unwrap();
    assert_eq!(
        (f.reads, f.rereads),
        (3, 1),
        "the third read repeats the first page"
    );
}

#[test]
fn asking_a_service_for_its_state_again_is_not_a_loop() {
    // See: issue 45. A read-only MCP query answered alike each time (who am I).
    let mut t = Transcript::new(ID);
    t.user("Open a pull request for the fix.");
    for _ in 0..4 {
        t.tool(
            "mcp__github__get_authenticated_user",
            json!({}),
            "{\"login\": \"dev\"}",
            25_000,
        );
        t.tool(
            "Edit",
            json!({"file_path": "/home/dev/api/a.ts", "old_string": "x", "new_string": "y"}),
            "ok",
            25_000,
        );
    }
    for _ in 0..3 {
        t.tool(
            "mcp__github__get_authenticated_user",
            json!({}),
            "{\"login\": \"dev\"}",
            25_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(
        repeated(&d),
        vec![],
        "a status query asked again is no loop: {}",
        d.verdict
    );
    assert_eq!(
        d.verdict, "mostly exploring: 64% of 11 calls only look",
        "what is left is a worker that mostly looks, worth a look, not stuck"
    );

    // Control: the same query failing alike three times is a loop.
    let mut t = Transcript::new(ID);
    t.user("Open a pull request for the fix.");
    for _ in 0..3 {
        t.tool_error(
            "mcp__github__get_authenticated_user",
            json!({}),
            "401 Bad credentials",
            25_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(d.severity, Severity::Stuck, "{}", d.verdict);
    assert_eq!(
        repeated(&d),
        vec![("mcp__github__get_authenticated_user".to_owned(), 3)],
        "the failing query is a repeated call"
    );
}
