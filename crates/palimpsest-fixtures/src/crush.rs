//! Crush's per-project store `fixtures/crush/.crush/crush.db`, as Crush's migrations leave it:
//! `sessions` (with `summary_message_id`), `messages` whose `parts` are a JSON list of
//! `{type, data}` parts (`text`, `reasoning`, `tool_call`, `tool_result`, `finish`), `files`,
//! and the `goose_db_version` table of the migration tool Crush uses — which makes it look like
//! a goose database to a careless reader. A summarised session (the summary is an assistant
//! message the session points at; the model then sees it, as a user message, and what
//! follows) and a sub-agent's child session.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

/// The summarised session.
pub const WORKER: &str = "0b7e1c2d-3f40-4a51-8b62-c3d4e5f60001";
/// Its sub-agent's session.
pub const TASK: &str = "0b7e1c2d-3f40-4a51-8b62-c3d4e5f60002";

/// Crush's tables as its migrations leave them (the columns a reader relies on).
pub const DDL: &str = "
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
  is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
  parts BLOB NOT NULL DEFAULT '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE INDEX idx_messages_session_id ON messages (session_id);
";

const T0: i64 = 1_790_100_000;
const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";

fn text(t: &str) -> Value {
    json!({"type": "text", "data": {"text": t}})
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_call", "data": {"id": id, "name": name, "input": input.to_string(), "type": "function", "finished": true}})
}

fn result(id: &str, name: &str, content: &str) -> Value {
    json!({"type": "tool_result", "data": {"tool_call_id": id, "name": name, "content": content, "metadata": "", "is_error": false}})
}

fn finish(reason: &str, at: i64) -> Value {
    json!({"type": "finish", "data": {"reason": reason, "time": at}})
}

/// `(id, role, parts, summary)` of the worker, in order.
fn worker() -> Vec<(String, &'static str, Vec<Value>, bool)> {
    let m = |n: usize| format!("m-{n:02}");
    vec![
        (
            m(1),
            "user",
            vec![text("add a retry to fetch_rows in store.py")],
            false,
        ),
        (
            m(2),
            "assistant",
            vec![
                json!({"type": "reasoning", "data": {"thinking": "Read the file first."}}),
                text("Reading store.py."),
                call(
                    "toolu_c1",
                    "view",
                    json!({"file_path": "/work/shop/store.py"}),
                ),
                finish("tool_use", T0 + 20),
            ],
            false,
        ),
        (
            m(3),
            "tool",
            vec![result("toolu_c1", "view", STORE_PY)],
            false,
        ),
        (
            m(4),
            "assistant",
            vec![
                call(
                    "toolu_c2",
                    "edit",
                    json!({"file_path": "/work/shop/store.py",
                "old_string": "    return db.execute(query).fetchall()\n",
                "new_string": "    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n"}),
                ),
                finish("tool_use", T0 + 40),
            ],
            false,
        ),
        (
            m(5),
            "tool",
            vec![result(
                "toolu_c2",
                "edit",
                "<result>\nContent replaced in file: /work/shop/store.py\n</result>",
            )],
            false,
        ),
        (
            m(6),
            "assistant",
            vec![
                call(
                    "toolu_c3",
                    "agent",
                    json!({"prompt": "Find every caller of fetch_rows."}),
                ),
                finish("tool_use", T0 + 60),
            ],
            false,
        ),
        (
            m(7),
            "tool",
            vec![result(
                "toolu_c3",
                "agent",
                "fetch_rows is called from app.py:12 and jobs.py:40.",
            )],
            false,
        ),
        (
            m(8),
            "assistant",
            vec![
                text("fetch_rows retries three times; its callers are app.py and jobs.py."),
                finish("end_turn", T0 + 80),
            ],
            false,
        ),
        (
            m(9),
            "assistant",
            vec![
                text(
                    "**Goal**: a retry in fetch_rows (/work/shop/store.py).\n\n**Done**: fetch_rows retries three times with a sleep; callers are app.py:12 and jobs.py:40.\n\n**Files**: /work/shop/store.py\n\n**Next**: log each attempt, then run the whole test suite to confirm nothing else calls it in a way the retry breaks.",
                ),
                finish("end_turn", T0 + 95),
            ],
            true,
        ),
        (m(10), "user", vec![text("also log each attempt")], false),
        (
            m(11),
            "assistant",
            vec![
                call(
                    "toolu_c4",
                    "view",
                    json!({"file_path": "/work/shop/store.py"}),
                ),
                finish("tool_use", T0 + 110),
            ],
            false,
        ),
        (
            m(12),
            "tool",
            vec![result("toolu_c4", "view", STORE_PY)],
            false,
        ),
        (
            m(13),
            "assistant",
            vec![
                text("Each attempt is logged now."),
                finish("end_turn", T0 + 130),
            ],
            false,
        ),
    ]
}

fn task() -> Vec<(String, &'static str, Vec<Value>, bool)> {
    vec![
        (
            "t-01".to_owned(),
            "user",
            vec![text("Find every caller of fetch_rows.")],
            false,
        ),
        (
            "t-02".to_owned(),
            "assistant",
            vec![
                call("toolu_t1", "grep", json!({"pattern": "fetch_rows"})),
                finish("tool_use", T0 + 62),
            ],
            false,
        ),
        (
            "t-03".to_owned(),
            "tool",
            vec![result("toolu_t1", "grep", "app.py:12\njobs.py:40")],
            false,
        ),
        (
            "t-04".to_owned(),
            "assistant",
            vec![
                text("fetch_rows is called from app.py:12 and jobs.py:40."),
                finish("end_turn", T0 + 66),
            ],
            false,
        ),
    ]
}

/// Write `crush/.crush/crush.db` under `out` (rollback journal, so the file is whole).
pub fn generate(out: &Path) -> Result<()> {
    let dir = out.join("crush").join(".crush");
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    let path = dir.join("crush.db");
    if path.exists() {
        std::fs::remove_file(&path)?;
    }
    let conn = Connection::open(&path).with_context(|| format!("create {}", path.display()))?;
    conn.execute_batch(DDL)?;
    for v in [20250424200609_i64, 20250811000000, 20251120000000] {
        conn.execute(
            "INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (?1, 1, '2026-09-23 10:00:00')",
            params![v],
        )?;
    }
    for (id, parent, title, messages, summary) in [
        (
            WORKER,
            None,
            "Add a retry to fetch_rows",
            worker(),
            Some("m-09"),
        ),
        (
            TASK,
            Some(WORKER),
            "Find every caller of fetch_rows.",
            task(),
            None,
        ),
    ] {
        conn.execute(
            "INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens,
               cost, updated_at, created_at, summary_message_id) VALUES (?1, ?2, ?3, ?4, 41200, 930, 0.1384, ?5, ?6, ?7)",
            params![id, parent, title, messages.len() as i64, T0 + 130, T0, summary],
        )?;
        for (k, (mid, role, parts, is_summary)) in messages.iter().enumerate() {
            let at = T0 + 10 * k as i64;
            let model = (*role == "assistant").then_some("claude-sonnet-4-5");
            conn.execute(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, finished_at,
                   provider, is_summary_message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?6, 'anthropic', ?7)",
                params![mid, id, role, Value::Array(parts.clone()).to_string(), model, at, i64::from(*is_summary)],
            )?;
        }
    }
    Ok(())
}
