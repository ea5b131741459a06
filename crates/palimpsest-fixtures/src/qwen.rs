//! Qwen Code chat recordings under `fixtures/qwen/projects/<sanitized cwd>/chats/`, as its
//! `ChatRecordingService` writes them: one record per line linked by `uuid`/`parentUuid`, each
//! message a Gemini API `Content` (`role`, `parts`: text, `thought` text, `functionCall`,
//! `functionResponse`); an answer written in fragments sharing one `uuid`; `system` records for
//! the harness's state (telemetry, titles), a slash command, a `chat_compression` carrying the
//! exact history sent after it, and a `rewind` that re-roots what follows; a sub-agent's side
//! chain in the same file; a sub-session naming its parent. What each exercises is
//! fixtures/README.md's.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// The worker session.
pub const WORKER: &str = "7a1c2e3f-5b6d-4e8f-9a0b-1c2d3e000001";
/// A session it spawned.
pub const CHILD: &str = "7a1c2e3f-5b6d-4e8f-9a0b-1c2d3e000002";
/// The project folder: the working directory `/work/shop`, sanitized as Qwen Code does.
pub const PROJECT: &str = "-work-shop";

const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";
const SNAPSHOT_1: &str = "<state_snapshot>\n    <overall_goal>\n        Add a retry to fetch_rows in /work/shop/store.py.\n    </overall_goal>\n    <key_knowledge>\n        - tests/test_store.py::test_retry expects three attempts.\n    </key_knowledge>\n    <file_system_state>\n        - MODIFIED: /work/shop/store.py - fetch_rows retries three times.\n    </file_system_state>\n    <current_plan>\n        1. [DONE] Add the retry.\n        2. [IN PROGRESS] Log each attempt.\n    </current_plan>\n</state_snapshot>";
const SNAPSHOT_2: &str = "<state_snapshot>\n    <overall_goal>\n        Add a logged retry to fetch_rows in /work/shop/store.py.\n    </overall_goal>\n    <recent_actions>\n        - Logged each attempt; the whole suite passes (8 tests).\n    </recent_actions>\n    <current_plan>\n        1. [DONE] Retry and log.\n        2. [TODO] Commit.\n    </current_plan>\n</state_snapshot>";
const ACK: &str = "Got it. Thanks for the additional context!";

fn at(second: u32) -> String {
    format!("2026-11-02T14:{:02}:{:02}.000Z", second / 60, second % 60)
}

/// A record of `session`; `parent` links it, `extra` is merged in.
fn record(
    session: &str,
    uuid: &str,
    parent: Option<&str>,
    second: u32,
    kind: &str,
    extra: Value,
) -> Value {
    let mut r = json!({"uuid": uuid, "parentUuid": parent, "sessionId": session,
        "timestamp": at(second), "type": kind, "cwd": "/work/shop", "version": "0.18.2",
        "gitBranch": "main"});
    for (k, v) in extra.as_object().into_iter().flatten() {
        r[k] = v.clone();
    }
    r
}

fn text(role: &str, t: &str) -> Value {
    json!({"role": role, "parts": [{"text": t}]})
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"role": "model", "parts": [{"functionCall": {"id": id, "name": name, "args": args}}]})
}

fn response(id: &str, name: &str, output: &str) -> Value {
    json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": name,
        "response": {"output": output}}}]})
}

fn usage(prompt: u64, out: u64, cached: u64) -> Value {
    json!({"promptTokenCount": prompt, "candidatesTokenCount": out, "thoughtsTokenCount": 12,
        "cachedContentTokenCount": cached, "totalTokenCount": prompt + out + 12})
}

/// An answer record carrying `message`, its usage and model.
fn answer(uuid: &str, parent: &str, second: u32, message: Value, u: Value) -> Value {
    record(
        WORKER,
        uuid,
        Some(parent),
        second,
        "assistant",
        json!({"message": message, "usageMetadata": u, "model": "qwen3-coder-plus",
            "contextWindowSize": 1_000_000}),
    )
}

fn result(uuid: &str, parent: &str, second: u32, id: &str, name: &str, out: &str) -> Value {
    record(
        WORKER,
        uuid,
        Some(parent),
        second,
        "tool_result",
        json!({"message": response(id, name, out), "toolCallResult": {"callId": id,
            "status": "success", "resultDisplay": out}}),
    )
}

fn system(uuid: &str, parent: &str, second: u32, subtype: &str, payload: Value) -> Value {
    record(
        WORKER,
        uuid,
        Some(parent),
        second,
        "system",
        json!({"subtype": subtype, "systemPayload": payload}),
    )
}

fn worker() -> Vec<Value> {
    let pytest = "F.\nFAILED tests/test_store.py::test_retry - AssertionError: fetch_rows was called once, expected 3\n1 failed, 1 passed";
    let u2 = text("user", "also log each attempt");
    let a4 = text("model", "Each attempt is logged now.");
    let u4 = text("user", "run the whole suite");
    let a6 = call(
        "c-shell-2",
        "run_shell_command",
        json!({"command": "pytest", "description": "run the suite"}),
    );
    let t4 = response(
        "c-shell-2",
        "run_shell_command",
        "........\n8 passed in 0.51s",
    );
    let a7 = text("model", "All 8 tests pass.");
    let sub = |uuid: &str, parent: Option<&str>, second, kind: &str, message: Value| {
        record(
            WORKER,
            uuid,
            parent,
            second,
            kind,
            json!({"message": message, "agentId": "explore-7f3c", "agentName": "Explore",
                "isSidechain": true}),
        )
    };
    vec![
        record(
            WORKER,
            "u1",
            None,
            1,
            "user",
            json!({"message": text("user", "add a retry to fetch_rows in store.py"),
                "promptId": "p1"}),
        ),
        // An answer streamed in two fragments: the thought, then the call and the usage.
        record(
            WORKER,
            "a1",
            Some("u1"),
            4,
            "assistant",
            json!({"message": {"role": "model", "parts": [{"text": "Read the file first.",
                "thought": true}]}, "model": "qwen3-coder-plus", "contextWindowSize": 1_000_000}),
        ),
        answer(
            "a1",
            "u1",
            5,
            call(
                "c-read-1",
                "read_file",
                json!({"absolute_path": "/work/shop/store.py"}),
            ),
            usage(4_100, 40, 0),
        ),
        result("t1", "a1", 6, "c-read-1", "read_file", STORE_PY),
        system(
            "s-tel-1",
            "t1",
            6,
            "ui_telemetry",
            json!({"uiEvent": {"event.name": "qwen-code.api_response", "input_token_count": 4_100}}),
        ),
        // A sub-agent's side chain, written into the same file.
        sub(
            "x1",
            None,
            7,
            "user",
            text("user", "Find every caller of fetch_rows."),
        ),
        sub(
            "x2",
            Some("x1"),
            8,
            "assistant",
            text(
                "model",
                "fetch_rows is called from app.py:12 and jobs.py:40.",
            ),
        ),
        answer(
            "a2",
            "t1",
            10,
            call(
                "c-shell-1",
                "run_shell_command",
                json!({"command": "pytest -q", "description": "run the tests"}),
            ),
            usage(4_300, 30, 4_000),
        ),
        result("t2", "a2", 12, "c-shell-1", "run_shell_command", pytest),
        answer(
            "a3",
            "t2",
            20,
            call(
                "c-edit-1",
                "edit",
                json!({"file_path": "/work/shop/store.py",
                "old_string": "    return db.execute(query).fetchall()\n",
                "new_string": "    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n"}),
            ),
            usage(4_600, 120, 4_300),
        ),
        result(
            "t3",
            "a3",
            21,
            "c-edit-1",
            "edit",
            "Successfully modified file: /work/shop/store.py (1 replacements).",
        ),
        record(
            WORKER,
            "u2",
            Some("t3"),
            40,
            "user",
            json!({"message": u2, "promptId": "p2"}),
        ),
        answer("a4", "u2", 45, a4.clone(), usage(9_800, 60, 9_000)),
        system(
            "s-cmd-1",
            "a4",
            48,
            "slash_command",
            json!({"phase": "invocation", "rawCommand": "/compress"}),
        ),
        // The compression: the history sent next is the snapshot, the thanks and the last turn.
        system(
            "c1",
            "s-cmd-1",
            50,
            "chat_compression",
            json!({"info": {"originalTokenCount": 9_860, "newTokenCount": 1_120,
                "compressionStatus": 1},
            "compressedHistory": [text("user", SNAPSHOT_1), text("model", ACK), u2, a4]}),
        ),
        record(
            WORKER,
            "u3",
            Some("c1"),
            60,
            "user",
            json!({"message": text("user", "run the tests"), "promptId": "p3"}),
        ),
        answer(
            "a5",
            "u3",
            65,
            text("model", "Running them now."),
            usage(1_300, 20, 1_100),
        ),
        // The user rewound to before "run the tests": what follows hangs from the compression.
        system("r1", "c1", 68, "rewind", json!({"truncatedCount": 2})),
        record(
            WORKER,
            "u4",
            Some("r1"),
            70,
            "user",
            json!({"message": u4, "promptId": "p4"}),
        ),
        answer("a6", "u4", 75, a6.clone(), usage(1_500, 30, 1_100)),
        result(
            "t4",
            "a6",
            77,
            "c-shell-2",
            "run_shell_command",
            "........\n8 passed in 0.51s",
        ),
        answer("a7", "t4", 80, a7.clone(), usage(1_600, 15, 1_500)),
        // An automatic compression keeping the whole last turn.
        system(
            "c2",
            "a7",
            85,
            "chat_compression",
            json!({"info": {"originalTokenCount": 7_400, "newTokenCount": 1_900,
                "compressionStatus": 1},
            "compressedHistory": [text("user", SNAPSHOT_2), text("model", ACK), u4, a6, t4, a7]}),
        ),
        record(
            WORKER,
            "u5",
            Some("c2"),
            90,
            "user",
            json!({"message": text("user", "commit the change"), "promptId": "p5"}),
        ),
        answer(
            "a8",
            "u5",
            95,
            text("model", "Committed as 3f2a1b0."),
            usage(2_000, 25, 1_900),
        ),
        system(
            "s-title",
            "a8",
            96,
            "custom_title",
            json!({"customTitle": "Retry in fetch_rows", "titleSource": "auto"}),
        ),
    ]
}

/// A session the worker spawned: it names its parent.
fn child() -> Vec<Value> {
    let r = |uuid: &str, parent: Option<&str>, second, kind: &str, extra: Value| {
        record(CHILD, uuid, parent, second, kind, extra)
    };
    vec![
        r(
            "k0",
            None,
            30,
            "system",
            json!({"subtype": "parent_session", "systemPayload": {"parentSessionId": WORKER}}),
        ),
        r(
            "k1",
            Some("k0"),
            31,
            "user",
            json!({"message": text("user", "List the callers of fetch_rows.")}),
        ),
        r(
            "k2",
            Some("k1"),
            33,
            "assistant",
            json!({"message": text("model", "app.py:12 and jobs.py:40."),
                "usageMetadata": usage(2_000, 20, 0), "model": "qwen3-coder-flash"}),
        ),
    ]
}

/// Write `qwen/projects/<project>/chats/…` under `out`.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("qwen");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let chats = root.join("projects").join(PROJECT).join("chats");
    std::fs::create_dir_all(&chats).with_context(|| format!("create {}", chats.display()))?;
    let lines = |records: Vec<Value>| {
        records
            .iter()
            .map(|r| r.to_string() + "\n")
            .collect::<String>()
    };
    std::fs::write(chats.join(format!("{WORKER}.jsonl")), lines(worker()))?;
    std::fs::write(chats.join(format!("{CHILD}.jsonl")), lines(child()))?;
    Ok(())
}
