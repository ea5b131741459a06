//! Gemini CLI chat recordings under `fixtures/gemini/tmp/<project hash>/chats/`, as its
//! `ChatRecordingService` writes them: a metadata line, then message records upserted by id
//! (a `gemini` message written again when its tool calls' results or its tokens arrive),
//! `{"$set": {...}}` patches — `$set.messages` replacing the whole history, which is how a
//! chat compression is recorded — and `{"$rewindTo": id}`. Also a sub-agent's recording
//! (`chats/<parent session id>/<id>.jsonl`, `kind: "subagent"`) and a legacy whole-file `.json`
//! record. What each exercises is fixtures/README.md's.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// The worker session.
pub const WORKER: &str = "3c7e9a1b-0d42-4e55-9a3b-6f1d2e000001";
/// Its sub-agent.
pub const SUBAGENT: &str = "3c7e9a1b-0d42-4e55-9a3b-6f1d2e000002";
/// A session in the legacy single-record `.json` form.
pub const LEGACY: &str = "3c7e9a1b-0d42-4e55-9a3b-6f1d2e000003";
/// The project hash folder (sha256 of the project root, as Gemini names it).
pub const PROJECT: &str = "5d0c3f4ea1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c";

const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";
const SNAPSHOT: &str = "<state_snapshot>\n    <overall_goal>\n        Add a retry to fetch_rows in /work/shop/store.py.\n    </overall_goal>\n    <key_knowledge>\n        - tests/test_store.py::test_retry expects three attempts.\n    </key_knowledge>\n    <file_system_state>\n        - MODIFIED: /work/shop/store.py - fetch_rows retries three times with a sleep.\n    </file_system_state>\n    <recent_actions>\n        - Ran pytest -q: both tests pass.\n    </recent_actions>\n    <current_plan>\n        1. [DONE] Add the retry.\n        2. [IN PROGRESS] Log each attempt.\n    </current_plan>\n</state_snapshot>";

fn at(second: u32) -> String {
    format!("2026-10-06T09:{:02}:{:02}.000Z", second / 60, second % 60)
}

fn tokens(input: u64, output: u64, cached: u64) -> Value {
    json!({"input": input, "output": output, "cached": cached, "thoughts": 12, "tool": 0,
        "total": input + output + 12})
}

fn user(id: &str, second: u32, text: &str) -> Value {
    json!({"id": id, "timestamp": at(second), "type": "user", "content": [{"text": text}]})
}

/// A `gemini` message calling `name` with `args`; `out` is the result once it came back.
fn call(id: &str, second: u32, call: &str, name: &str, args: Value, out: Option<&str>) -> Value {
    let mut tc = json!({"id": call, "name": name, "args": args, "status": "executing",
        "timestamp": at(second), "displayName": name, "description": ""});
    if let Some(o) = out {
        tc["status"] = json!("success");
        tc["result"] =
            json!([{"functionResponse": {"id": call, "name": name, "response": {"output": o}}}]);
    }
    json!({"id": id, "timestamp": at(second), "type": "gemini", "content": "", "model": "gemini-2.5-pro",
        "thoughts": [{"subject": "Planning", "description": "Look before changing.", "timestamp": at(second)}],
        "toolCalls": [tc]})
}

fn answer(id: &str, second: u32, text: &str, t: Value) -> Value {
    json!({"id": id, "timestamp": at(second), "type": "gemini", "content": text, "model": "gemini-2.5-pro",
        "thoughts": [], "tokens": t})
}

fn with_tokens(mut m: Value, t: Value) -> Value {
    m["tokens"] = t;
    m
}

fn worker() -> Vec<Value> {
    let read = |id, s, out| {
        call(
            id,
            s,
            "c-read-1",
            "read_file",
            json!({"absolute_path": "/work/shop/store.py"}),
            out,
        )
    };
    let pytest = "F.\nFAILED tests/test_store.py::test_retry - AssertionError: fetch_rows was called once, expected 3\n1 failed, 1 passed";
    let m5 = user("m5", 40, "also log each attempt");
    let m6 = answer(
        "m6",
        45,
        "Each attempt is logged now.",
        tokens(9_800, 60, 9_000),
    );
    vec![
        json!({"sessionId": WORKER, "projectHash": PROJECT, "startTime": at(0), "lastUpdated": at(0), "kind": "main",
            "directories": ["/work/shop"]}),
        user("m1", 1, "add a retry to fetch_rows in store.py"),
        // The call is recorded when it starts, then again with its result, then with tokens.
        read("m2", 5, None),
        read("m2", 6, Some(STORE_PY)),
        with_tokens(read("m2", 6, Some(STORE_PY)), tokens(4_100, 40, 0)),
        with_tokens(
            call(
                "m3",
                10,
                "c-shell-1",
                "run_shell_command",
                json!({"command": "pytest -q", "description": "run the tests"}),
                Some(pytest),
            ),
            tokens(4_300, 30, 4_000),
        ),
        with_tokens(
            call(
                "m4",
                20,
                "c-replace-1",
                "replace",
                json!({"file_path": "/work/shop/store.py",
                "old_string": "    return db.execute(query).fetchall()\n",
                "new_string": "    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n"}),
                Some("Successfully modified file: /work/shop/store.py (1 replacements)."),
            ),
            tokens(4_600, 120, 4_300),
        ),
        m5.clone(),
        m6.clone(),
        // Chat compression: the history is replaced by the snapshot, the model's thanks, and
        // what it keeps (the last 30 %).
        json!({"$set": {"messages": [
            {"id": "s1", "timestamp": at(50), "type": "user", "content": [{"text": SNAPSHOT}]},
            {"id": "s2", "timestamp": at(50), "type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}]},
            m5, m6,
        ], "lastUpdated": at(50)}}),
        json!({"id": "i1", "timestamp": at(50), "type": "info", "content": "Chat history compressed from 9860 to 1120 tokens."}),
        user("m7", 60, "run the tests"),
        answer("m8", 65, "Running them now.", tokens(1_300, 20, 1_100)),
        // The user rewound to before `run the tests`.
        json!({"$rewindTo": "m7"}),
        user("m9", 70, "run the whole suite"),
        with_tokens(
            call(
                "m10",
                75,
                "c-shell-2",
                "run_shell_command",
                json!({"command": "pytest", "description": "run the suite"}),
                Some("........\n8 passed in 0.51s"),
            ),
            tokens(1_500, 30, 1_100),
        ),
        answer("m11", 80, "All 8 tests pass.", tokens(1_600, 15, 1_500)),
        json!({"$set": {"summary": "Retry in fetch_rows", "lastUpdated": at(80)}}),
    ]
}

fn subagent() -> Vec<Value> {
    vec![
        json!({"sessionId": SUBAGENT, "projectHash": PROJECT, "startTime": at(30), "lastUpdated": at(32), "kind": "subagent",
            "directories": ["/work/shop"]}),
        user("a1", 30, "Find every caller of fetch_rows."),
        with_tokens(
            call(
                "a2",
                31,
                "c-grep-1",
                "search_file_content",
                json!({"pattern": "fetch_rows"}),
                Some("app.py:12\njobs.py:40"),
            ),
            tokens(2_000, 20, 0),
        ),
        answer(
            "a3",
            32,
            "fetch_rows is called from app.py:12 and jobs.py:40.",
            tokens(2_100, 20, 2_000),
        ),
    ]
}

/// The legacy record: one JSON object with every message.
fn legacy() -> Value {
    json!({"sessionId": LEGACY, "projectHash": PROJECT, "startTime": at(0), "lastUpdated": at(9),
    "messages": [
        user("l1", 1, "explain store.py"),
        with_tokens(call("l2", 3, "c-read-9", "read_file", json!({"absolute_path": "/work/shop/store.py"}), Some(STORE_PY)), tokens(3_000, 20, 0)),
        answer("l3", 9, "store.py runs a query and returns every row.", tokens(3_200, 15, 3_000)),
    ]})
}

/// Write `gemini/tmp/<project>/chats/…` under `out`.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("gemini");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let chats = root.join("tmp").join(PROJECT).join("chats");
    let sub = chats.join(WORKER);
    std::fs::create_dir_all(&sub).with_context(|| format!("create {}", sub.display()))?;
    let lines = |records: Vec<Value>| {
        records
            .iter()
            .map(|r| r.to_string() + "\n")
            .collect::<String>()
    };
    std::fs::write(
        chats.join(format!("session-2026-10-06T09-00-{}.jsonl", &WORKER[..8])),
        lines(worker()),
    )?;
    std::fs::write(sub.join(format!("{SUBAGENT}.jsonl")), lines(subagent()))?;
    std::fs::write(
        chats.join(format!("session-2026-10-05T17-30-{}.json", &LEGACY[..8])),
        serde_json::to_string_pretty(&legacy())?,
    )?;
    Ok(())
}
