//! A Copilot CLI session as builds before `events.jsonl` kept it:
//! `history-session-state/<id>.json`, one object with the conversation as sent to the model
//! (`chatMessages`, Chat Completions shape) and what the window showed (`timeline`, each entry
//! dated). It holds a system prompt, a file viewed, a test run that fails, an edit and a passing
//! run, an `info` notice between them, an entry kind nobody knows, and one chat message whose
//! role is unknown. Every value is fixed, so regenerating gives the same bytes.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// The session's id.
pub const LEGACY: &str = "8d2e4f61-0b3c-4a5d-9e7f-1a2b3c4d0003";

const STORE_PY: &str = "def fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"id": id, "type": "function",
        "function": {"name": name, "arguments": args.to_string()}})
}

fn at(s: u32) -> String {
    format!("2025-10-08T21:{:02}:{:02}.000Z", 10 + s / 60, s % 60)
}

/// The session file's JSON.
fn session() -> Value {
    let view = json!({"command": "view", "path": "/work/shop/store.py"});
    let test = json!({"command": "pytest -q", "description": "Run the tests"});
    let edit = json!({"command": "str_replace", "path": "/work/shop/store.py",
        "old_str": "    return db.execute(query).fetchall()",
        "new_str": "    return list(db.execute(query))"});
    let chat = vec![
        json!({"role": "system", "content": "You are the GitHub Copilot CLI, a terminal assistant."}),
        json!({"role": "user", "content": "fix the failing test in store.py"}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("call_v1", "str_replace_editor", view.clone())]}),
        json!({"role": "tool", "tool_call_id": "call_v1", "content": STORE_PY}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("call_t1", "bash", test.clone())]}),
        json!({"role": "tool", "tool_call_id": "call_t1", "content": "F\nFAILED test_store.py::test_rows - TypeError: 'Cursor' object is not subscriptable\n1 failed"}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("call_e1", "str_replace_editor", edit.clone())]}),
        json!({"role": "tool", "tool_call_id": "call_e1", "content": "File /work/shop/store.py edited."}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("call_t2", "bash", test.clone())]}),
        json!({"role": "tool", "tool_call_id": "call_t2", "content": ".\n1 passed"}),
        json!({"role": "critic", "content": "a role the reader does not know"}),
        json!({"role": "assistant", "content": "fetch_rows now returns a list; the test passes."}),
    ];
    let tool = |s: u32, id: &str, title: &str, args: &Value, log: &str| {
        [
            json!({"id": format!("tl-{s}a"), "timestamp": at(s), "type": "tool_call_requested",
                "callId": id, "name": title, "toolTitle": title, "intentionSummary": title, "arguments": args}),
            json!({"id": format!("tl-{s}b"), "timestamp": at(s + 2), "type": "tool_call_completed",
                "callId": id, "name": title, "toolTitle": title, "arguments": args,
                "result": {"type": "success", "log": log}}),
        ]
    };
    let mut timeline = vec![json!({"id": "tl-0", "timestamp": at(0), "type": "user",
        "text": "fix the failing test in store.py", "mentions": []})];
    timeline.extend(tool(4, "call_v1", "str_replace_editor", &view, STORE_PY));
    timeline.extend(tool(10, "call_t1", "bash", &test, "1 failed"));
    timeline.push(json!({"id": "tl-13", "timestamp": at(13), "type": "info",
        "text": "Tests failed; Copilot will edit store.py"}));
    timeline.extend(tool(16, "call_e1", "str_replace_editor", &edit, "edited"));
    timeline.extend(tool(22, "call_t2", "bash", &test, "1 passed"));
    timeline
        .push(json!({"id": "tl-25", "timestamp": at(25), "type": "banner", "text": "v0.0.330"}));
    timeline.push(
        json!({"id": "tl-30", "timestamp": at(30), "type": "copilot",
        "text": "fetch_rows now returns a list; the test passes."}),
    );
    json!({"sessionId": LEGACY, "startTime": at(0), "chatMessages": chat, "timeline": timeline,
        "selectedModel": "claude-sonnet-4"})
}

/// Write `copilot/history-session-state/<id>.json` under `out` (the harness's two-space JSON).
pub fn generate(out: &Path) -> Result<()> {
    let dir = out.join("copilot").join("history-session-state");
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    let text = serde_json::to_string_pretty(&session())?;
    std::fs::write(dir.join(format!("{LEGACY}.json")), text + "\n")?;
    Ok(())
}
