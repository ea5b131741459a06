//! Cline's task folders under `fixtures/cline/tasks/<task id>/`, as the extension keeps them in
//! its global storage: `api_conversation_history.json` (what the model was sent, Anthropic
//! message params with native tool use), `ui_messages.json` (what the panel shows; each
//! `api_req_started` carries its request's tokens and cost, the history index it was sent at
//! and the truncation range then in force, `conversationHistoryDeletedRange`) and
//! `task_metadata.json`. One task is truncated mid-way; one is Roo Code's (its archive keeps
//! the same files) and condenses: a summary (`isSummary`) and the messages it replaced marked
//! with its `condenseParent`. One is from a build before native tool calling: its calls are XML
//! in the answers' text and its results text blocks after a `[tool for '…'] Result:` header.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// The truncated Cline task.
pub const TASK: &str = "1790200000000";
/// The condensing Roo Code task.
pub const ROO: &str = "1790200600000";
/// A task of a build before native tool calling: calls written as XML in the answers.
pub const XML: &str = "1790201200000";

const T0: i64 = 1_790_200_000_000;
const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";

fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

fn call(text: &str, id: &str, name: &str, input: Value) -> Value {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    json!({"role": "assistant", "content": content})
}

fn result(id: &str, out: &str) -> Value {
    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": out}]})
}

fn answer(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

/// The API history of the Cline task: three requests' worth, then a question after the
/// truncation.
fn history() -> Vec<Value> {
    vec![
        user("<task>\nadd a retry to fetch_rows in store.py\n</task>"),
        call(
            "Reading store.py.",
            "toolu_k1",
            "read_file",
            json!({"path": "store.py"}),
        ),
        result("toolu_k1", STORE_PY),
        call(
            "",
            "toolu_k2",
            "execute_command",
            json!({"command": "pytest -q", "requires_approval": false}),
        ),
        result(
            "toolu_k2",
            "F.\nFAILED tests/test_store.py::test_retry - fetch_rows was called once, expected 3",
        ),
        call(
            "",
            "toolu_k3",
            "replace_in_file",
            json!({"path": "store.py", "diff": "------- SEARCH\n    return db.execute(query).fetchall()\n=======\n    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n+++++++ REPLACE"}),
        ),
        result(
            "toolu_k3",
            "The content was successfully saved to store.py.",
        ),
        answer("fetch_rows now retries three times."),
        user("<feedback>\nalso log each attempt\n</feedback>"),
        call("", "toolu_k4", "read_file", json!({"path": "store.py"})),
        result("toolu_k4", STORE_PY),
        answer("Each attempt is logged now."),
    ]
}

/// `api_req_started` for the request sent when the history ended at `index`, under `range`.
fn request(k: i64, index: usize, range: Option<[usize; 2]>, tokens_in: u64) -> Value {
    let info = json!({"request": "…", "tokensIn": tokens_in, "tokensOut": 60, "cacheWrites": 0,
        "cacheReads": 0, "cost": 0.012});
    let mut m = json!({"ts": T0 + k * 1000, "type": "say", "say": "api_req_started",
        "text": info.to_string(), "conversationHistoryIndex": index});
    if let Some(r) = range {
        m["conversationHistoryDeletedRange"] = json!(r);
    }
    m
}

fn ui() -> Vec<Value> {
    vec![
        json!({"ts": T0, "type": "say", "say": "task", "text": "add a retry to fetch_rows in store.py"}),
        request(1, 0, None, 9_000),
        request(3, 2, None, 9_400),
        request(5, 4, None, 9_800),
        request(7, 6, None, 10_100),
        json!({"ts": T0 + 8_000, "type": "say", "say": "completion_result", "text": "fetch_rows now retries three times."}),
        json!({"ts": T0 + 9_000, "type": "ask", "ask": "completion_result", "text": ""}),
        json!({"ts": T0 + 10_000, "type": "say", "say": "user_feedback", "text": "also log each attempt"}),
        // The context was full: Cline dropped messages 2-5 (two request/result pairs) first.
        request(11, 8, Some([2, 5]), 5_200),
        request(13, 10, Some([2, 5]), 5_600),
    ]
}

/// A Roo Code task that condensed: messages 1-4 replaced by the summary (5).
fn roo() -> Vec<Value> {
    let mut h = vec![
        user("<task>\nexplain store.py\n</task>"),
        call("", "toolu_r1", "read_file", json!({"path": "store.py"})),
        result("toolu_r1", STORE_PY),
        answer("store.py runs a query and returns every row."),
        user("<feedback>\nand what calls it?\n</feedback>"),
        json!({"role": "user", "isSummary": true, "condenseId": "c-1", "ts": T0 + 700_000,
            "content": [{"type": "text", "text": "## Conversation Summary\n\n1. **Task**: explain /work/shop/store.py.\n2. **Done**: read it; fetch_rows runs a query and returns every row.\n3. **Pending**: the user asked what calls fetch_rows."}]}),
        call(
            "",
            "toolu_r2",
            "search_files",
            json!({"path": ".", "regex": "fetch_rows"}),
        ),
        result("toolu_r2", "app.py:12\njobs.py:40"),
        answer("app.py and jobs.py call it."),
    ];
    for m in &mut h[1..5] {
        m["condenseParent"] = json!("c-1");
    }
    h
}

/// A result as those builds sent it: a header block, the output, then the harness's context.
fn xml_result(head: &str, out: &str) -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": format!("{head} Result:")},
        {"type": "text", "text": out},
        {"type": "text", "text": "<environment_details>\n# VSCode Visible Files\nstore.py\n</environment_details>"}]})
}

/// The XML-calling task: a read, the same read again, an edit whose diff holds tags, a failing
/// command, and the completion.
fn xml() -> Vec<Value> {
    vec![
        user("<task>\nadd a retry to fetch_rows in store.py\n</task>"),
        answer(
            "<thinking>I need the file first.</thinking>\n\n<read_file>\n<path>store.py</path>\n</read_file>",
        ),
        xml_result("[read_file for 'store.py']", STORE_PY),
        answer(
            "Let me check it again before editing.\n\n<read_file>\n<path>store.py</path>\n</read_file>",
        ),
        xml_result("[read_file for 'store.py']", STORE_PY),
        answer(
            "<replace_in_file>\n<path>store.py</path>\n<diff>\n<<<<<<< SEARCH\n    return db.execute(query).fetchall()\n=======\n    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(2 ** attempt)\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>",
        ),
        xml_result(
            "[replace_in_file for 'store.py']",
            "The content was successfully saved to store.py.",
        ),
        answer(
            "<execute_command>\n<command>pytest -q</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
        ),
        xml_result(
            "[execute_command for 'pytest -q']",
            "The tool execution failed with the following error:\n<error>\nError executing command: {\"name\":\"Error\"}\n</error>",
        ),
        answer(
            "<attempt_completion>\n<result>\nfetch_rows retries three times with backoff.\n</result>\n</attempt_completion>",
        ),
    ]
}

/// Write `cline/tasks/<id>/…` under `out`.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("cline");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    for (id, history, ui) in [
        (TASK, history(), ui()),
        (ROO, roo(), Vec::new()),
        (XML, xml(), Vec::new()),
    ] {
        let dir = root.join("tasks").join(id);
        std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
        std::fs::write(
            dir.join("api_conversation_history.json"),
            serde_json::to_string(&history)?,
        )?;
        std::fs::write(dir.join("ui_messages.json"), serde_json::to_string(&ui)?)?;
        std::fs::write(
            dir.join("task_metadata.json"),
            serde_json::to_string(
                &json!({"files_in_context": [{"path": "store.py", "record_state": "active",
                "record_source": "read_tool"}], "model_usage": [{"ts": T0, "model_id": "claude-sonnet-4-5",
                "model_provider_id": "anthropic", "mode": "act"}]}),
            )?,
        )?;
    }
    Ok(())
}
