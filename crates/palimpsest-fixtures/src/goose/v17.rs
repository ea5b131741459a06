//! `fixtures/goose/v17/sessions.db`: goose schema 17, written the way its newer releases write.
//! Shapes come from the issue that asked for them (goose's `crates/goose/src/session/` at that
//! time); none is yet seen in a real file here:
//! - `sessions.parent_delegation` (JSON `execution_mode`, `parent_delegate_message_id`,
//!   `result_delivered_to_parent`): `20261120_2` is a sync delegation of the worker's message
//!   that called `delegate`, with `parent_session_id` set; `20261120_3` a background one that
//!   names its parent only through the message id (`msg_<session>_<uuid>`);
//! - in-place compaction (`save_compacted_conversation`): the worker `20261120_1` compacts in a
//!   tool loop by updating `agentVisible` on its existing rows and inserting summary and
//!   continuation with `created_timestamp` raised to the latest, deleting nothing;
//! - `usage_ledger`: one row per call, the compaction call marked `is_compaction = 1`;
//! - `logs/llm_request.{0,1,2}.jsonl` beside the database ([`logs`]): the worker's last three
//!   requests as goose's request log writes them (`model_config`, OpenAI `input`, then the
//!   response with its usage).
//!
//! [`Compaction::Replace`] writes the same worker the older way (delete every row, insert the
//! compacted conversation again), for the tests that compare the two.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use super::sessions::{STORE_PY, TOOL_LOOP};
use super::write::{DDL_16, MODEL_CONFIG, sqlite_time};

/// The worker that compacts and delegates.
pub const WORKER: &str = "20261120_1";
/// Its sync child (`parent_session_id` and `parent_delegation`).
pub const SYNC_CHILD: &str = "20261120_2";
/// Its background child (`parent_delegation` only).
pub const BACKGROUND_CHILD: &str = "20261120_3";
/// The message id of the worker's `delegate` call (sync child).
pub const DELEGATE_SYNC: &str = "msg_20261120_1_9f1c2a7e4b6d4e0a8c3b5d7f9a1e3c5b";
/// The message id of the worker's second `delegate` call (background child).
pub const DELEGATE_BACKGROUND: &str = "msg_20261120_1_0a2b4c6d8e0f4a1b9c3d5e7f1a3b5c7d";

/// How the compaction is persisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compaction {
    /// Schema 17: update the rows' metadata, insert the new rows, delete nothing.
    InPlace,
    /// Before: delete every row of the session and insert the compacted conversation again.
    Replace,
}

/// The summary the worker's compaction wrote.
pub const SUMMARY: &str = "1. User Intent: make test_fetch_rows stop flaking.\n2. Files + Code: store.py \
    fetch_rows(conn, q) runs the query once.\n3. Errors + Fixes: pytest -q -k fetch_rows failed 2 of 5 runs \
    (sqlite3.OperationalError: database is locked).\n4. Next Step: retry on OperationalError, 3 attempts.";

const T0: i64 = 1_795_161_600; // 2026-11-20 08:00:00 UTC

fn uuid(n: usize) -> String {
    format!("msg_{WORKER}_{n:032x}")
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!([{"type": "toolRequest", "id": id, "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}}])
}

fn result(id: &str, text: &str) -> Value {
    json!([{"type": "toolResponse", "id": id, "toolResult": {"status": "success",
        "value": {"content": [{"type": "text", "text": text}], "isError": false}}}])
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

/// The worker's rows before its compaction: (message_id, role, content).
fn worker_before() -> Vec<(String, &'static str, Value)> {
    let mut rows = vec![(
        uuid(0),
        "user",
        text("test_fetch_rows fails about one run in three; find out why and fix it"),
    )];
    let mut n = 1;
    let mut push = |role: &'static str, content: Value, id: Option<&str>| {
        rows.push((id.map_or_else(|| uuid(n), str::to_owned), role, content));
        n += 1;
    };
    for k in 0..5 {
        let c = format!("call_{k}a");
        push(
            "assistant",
            call(
                &c,
                "developer__shell",
                json!({"command": "pytest -q -k fetch_rows"}),
            ),
            None,
        );
        push(
            "user",
            result(
                &c,
                if k % 2 == 0 {
                    "1 passed"
                } else {
                    "1 failed: sqlite3.OperationalError: database is locked"
                },
            ),
            None,
        );
        let c = format!("call_{k}b");
        push(
            "assistant",
            call(
                &c,
                "developer__text_editor",
                json!({"command": "view", "path": "/w/store.py"}),
            ),
            None,
        );
        push("user", result(&c, &STORE_PY.repeat(40)), None);
    }
    push(
        "assistant",
        call(
            "call_d1",
            "delegate",
            json!({"instructions": "Find every caller of fetch_rows and say which hold a transaction open."}),
        ),
        Some(DELEGATE_SYNC),
    );
    push(
        "user",
        result(
            "call_d1",
            "store.py:load_all holds a transaction across fetch_rows; cli.py:export does not.",
        ),
        None,
    );
    push(
        "assistant",
        call(
            "call_d2",
            "delegate",
            json!({"instructions": "Run the suite 50 times in the background and report the failure rate.", "background": true}),
        ),
        Some(DELEGATE_BACKGROUND),
    );
    push("user", result("call_d2", "started in the background"), None);
    rows
}

/// The rows compaction adds: summary, continuation (in a tool loop: no user text preserved).
fn compaction_rows() -> Vec<(String, &'static str, Value)> {
    vec![
        (uuid(100), "user", text(SUMMARY)),
        (uuid(101), "assistant", text(TOOL_LOOP)),
    ]
}

/// What the worker does after the compaction.
fn worker_after() -> Vec<(String, &'static str, Value)> {
    vec![
        (
            uuid(102),
            "assistant",
            call(
                "call_e1",
                "developer__text_editor",
                json!({"command": "str_replace", "path": "/w/store.py",
            "old_str": "    cur.execute(q)\n", "new_str": "    for attempt in range(3):\n        try:\n            cur.execute(q)\n            break\n        except sqlite3.OperationalError:\n            time.sleep(0.1 * (attempt + 1))\n"}),
            ),
        ),
        (
            uuid(103),
            "user",
            result("call_e1", "The file /w/store.py has been edited."),
        ),
        (
            uuid(104),
            "assistant",
            call(
                "call_e2",
                "developer__shell",
                json!({"command": "pytest -q -k fetch_rows --count 20"}),
            ),
        ),
        (uuid(105), "user", result("call_e2", "20 passed")),
        (
            uuid(106),
            "assistant",
            text("fetch_rows now retries on OperationalError (3 attempts); 20 of 20 runs pass."),
        ),
    ]
}

fn meta(user: bool, agent: bool) -> String {
    json!({"userVisible": user, "agentVisible": agent}).to_string()
}

fn insert(
    conn: &Connection,
    session: &str,
    at: i64,
    row: &(String, &str, Value),
    m: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, metadata_json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![row.0, session, row.1, row.2.to_string(), at, sqlite_time(at), m],
    )?;
    Ok(())
}

fn ledger(
    conn: &Connection,
    session: &str,
    at: i64,
    input: i64,
    output: i64,
    compaction: bool,
) -> Result<()> {
    conn.execute(
        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, \
         cache_read_tokens, cost_source, is_compaction) VALUES (?1, ?2, 'qwen3.6-27b', ?3, ?4, ?5, ?6, 'estimated', ?7)",
        params![session, at, input, output, input + output, input / 2, i64::from(compaction)],
    )?;
    Ok(())
}

fn session(
    conn: &Connection,
    id: &str,
    name: &str,
    parent: Option<&str>,
    delegation: Option<Value>,
    at: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO sessions (id, name, working_dir, created_at, updated_at, total_tokens, input_tokens, output_tokens, \
         provider_name, model_config_json, parent_session_id, parent_delegation) \
         VALUES (?1, ?2, '/w', ?3, ?3, 4200, 4000, 200, 'openai', ?4, ?5, ?6)",
        params![id, name, sqlite_time(at), MODEL_CONFIG, parent, delegation.map(|d| d.to_string())],
    )?;
    Ok(())
}

/// Schema 17 DDL: schema 16 and the delegation column.
pub fn ddl() -> String {
    format!("{DDL_16}\nALTER TABLE sessions ADD COLUMN parent_delegation TEXT;\n")
}

/// Create the worker's database at `path` up to just before its compaction (the live test
/// compacts it afterwards with [`compact`] and [`finish`]).
pub fn begin(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open(path).with_context(|| format!("create {}", path.display()))?;
    conn.execute_batch(&ddl())?;
    let tx = conn.transaction()?;
    for v in [16, 17] {
        tx.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)",
            params![v, sqlite_time(T0 - 86_400 * (18 - i64::from(v)))],
        )?;
    }
    session(&tx, WORKER, "fix flaky test_fetch_rows", None, None, T0)?;
    for (i, row) in worker_before().iter().enumerate() {
        let at = T0 + 10 * i as i64;
        insert(&tx, WORKER, at, row, &meta(true, true))?;
        if row.1 == "assistant" {
            ledger(&tx, WORKER, at, 4_000 + 3_500 * i as i64, 120, false)?;
        }
    }
    session(
        &tx,
        SYNC_CHILD,
        "callers of fetch_rows",
        Some(WORKER),
        Some(json!({"execution_mode": "sync",
        "parent_delegate_message_id": DELEGATE_SYNC, "result_delivered_to_parent": true})),
        T0 + 210,
    )?;
    insert(
        &tx,
        SYNC_CHILD,
        T0 + 211,
        &(
            format!("msg_{SYNC_CHILD}_{:032x}", 0),
            "user",
            text("Find every caller of fetch_rows and say which hold a transaction open."),
        ),
        &meta(true, true),
    )?;
    insert(
        &tx,
        SYNC_CHILD,
        T0 + 212,
        &(
            format!("msg_{SYNC_CHILD}_{:032x}", 1),
            "assistant",
            text(
                "store.py:load_all holds a transaction across fetch_rows; cli.py:export does not.",
            ),
        ),
        &meta(true, true),
    )?;
    session(
        &tx,
        BACKGROUND_CHILD,
        "flake rate of the suite",
        None,
        Some(json!({"execution_mode": "background",
        "parent_delegate_message_id": DELEGATE_BACKGROUND, "result_delivered_to_parent": false})),
        T0 + 230,
    )?;
    insert(
        &tx,
        BACKGROUND_CHILD,
        T0 + 231,
        &(
            format!("msg_{BACKGROUND_CHILD}_{:032x}", 0),
            "user",
            text("Run the suite 50 times in the background and report the failure rate."),
        ),
        &meta(true, true),
    )?;
    tx.commit()?;
    Ok(conn)
}

/// The worker's compaction, persisted `how`.
pub fn compact(conn: &mut Connection, how: Compaction) -> Result<()> {
    let tx = conn.transaction()?;
    let before = worker_before();
    let latest = T0 + 10 * (before.len() as i64 - 1);
    // The compaction call: it read the whole visible conversation.
    ledger(&tx, WORKER, latest + 1, 72_000, 900, true)?;
    match how {
        Compaction::InPlace => {
            tx.execute(
                "UPDATE messages SET metadata_json = ?1 WHERE session_id = ?2",
                params![meta(true, false), WORKER],
            )?;
            for row in compaction_rows() {
                insert(&tx, WORKER, latest, &row, &meta(false, true))?;
            }
        }
        Compaction::Replace => {
            tx.execute(
                "DELETE FROM messages WHERE session_id = ?1",
                params![WORKER],
            )?;
            for (i, row) in before.iter().enumerate() {
                insert(&tx, WORKER, T0 + 10 * i as i64, row, &meta(true, false))?;
            }
            for row in compaction_rows() {
                insert(&tx, WORKER, latest, &row, &meta(false, true))?;
            }
        }
    }
    tx.commit()?;
    Ok(())
}

/// The worker's turns after its compaction.
pub fn finish(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction()?;
    let start = T0 + 10 * worker_before().len() as i64 + 20;
    for (i, row) in worker_after().iter().enumerate() {
        let at = start + 10 * i as i64;
        insert(&tx, WORKER, at, row, &meta(true, true))?;
        if row.1 == "assistant" {
            ledger(&tx, WORKER, at, 9_000 + 1_200 * i as i64, 150, false)?;
        }
    }
    tx.execute(
        "UPDATE sessions SET updated_at = ?1 WHERE id = ?2",
        params![sqlite_time(start + 50), WORKER],
    )?;
    tx.commit()?;
    Ok(())
}

/// Write the whole database at `path` (which must not exist), compacted `how`.
pub fn write(path: &Path, how: Compaction) -> Result<()> {
    let mut conn = begin(path)?;
    compact(&mut conn, how)?;
    finish(&mut conn)?;
    Ok(())
}

/// The system prompt the recorded requests open with (goose never stores it).
pub const SYSTEM: &str = "You are a general-purpose AI agent called goose, created by Block.";

/// One stored row as the OpenAI chat messages goose's provider sends for it.
fn openai(role: &str, content: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for item in content.as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("text") => texts.push(item["text"].as_str().unwrap_or("").to_owned()),
            Some("toolRequest") => {
                let v = &item["toolCall"]["value"];
                calls.push(json!({"id": item["id"], "type": "function",
                    "function": {"name": v["name"], "arguments": v["arguments"].to_string()}}));
            }
            Some("toolResponse") => {
                let text = item["toolResult"]["value"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("");
                out.push(json!({"role": "tool", "tool_call_id": item["id"], "content": text}));
            }
            _ => {}
        }
    }
    if !texts.is_empty() || !calls.is_empty() {
        let mut m = json!({"role": role, "content": if texts.is_empty() { Value::Null } else { json!(texts.join("\n")) }});
        if !calls.is_empty() {
            m["tool_calls"] = Value::Array(calls);
        }
        out.insert(0, m);
    }
    out
}

/// A request log as goose writes it: the payload, then the response with its usage.
fn request_log(rows: &[(String, &'static str, Value)], extra: &[Value], input: i64) -> String {
    let mut messages = vec![json!({"role": "system", "content": SYSTEM})];
    for (_, role, content) in rows {
        messages.extend(openai(role, content));
    }
    messages.extend(extra.iter().cloned());
    let model: Value = serde_json::from_str(MODEL_CONFIG).unwrap_or(Value::Null);
    let head = json!({"model_config": model, "input": {"model": "qwen3.6-27b", "messages": messages, "stream": false}});
    let tail = json!({"data": {"choices": [{"message": {"role": "assistant", "content": "…"}}]},
        "usage": {"input_tokens": input, "output_tokens": 150, "total_tokens": input + 150}});
    format!("{head}\n{tail}\n")
}

/// The logs of the worker's last three requests, newest first (`llm_request.0.jsonl` first):
/// the request answered by 31 (with a turn hint goose sends after the last result and never
/// stores), the first after the compaction (answered by 27), and the request answered by 13.
pub fn logs() -> Vec<String> {
    let before = worker_before();
    let (summary, after) = (compaction_rows(), worker_after());
    let mut last: Vec<(String, &'static str, Value)> = summary.clone();
    last.extend(after[..4].iter().cloned());
    let hint = json!({"role": "user", "content": "<info-msg>\nIt is 2026-11-20 08:06. Working directory: /w\n</info-msg>"});
    vec![
        request_log(&last, &[hint], 11_400),
        request_log(&summary, &[], 9_000),
        request_log(&before[..13], &[], 25_000),
    ]
}

/// Write [`logs`] as `dir/llm_request.<n>.jsonl`.
pub fn write_logs(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    for (n, text) in logs().into_iter().enumerate() {
        let p = dir.join(format!("llm_request.{n}.jsonl"));
        std::fs::write(&p, text).with_context(|| format!("write {}", p.display()))?;
    }
    Ok(())
}
