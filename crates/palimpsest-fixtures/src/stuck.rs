//! The stuck-worker fixture: `fixtures/goose-stuck/sessions.db` (goose schema 16), written with
//! the goose writer (`goose::write`). One session, `20260301_1`, that:
//! - reads `store.py`, runs pytest, views it again (a re-read while still in view), edits it and
//!   reads it back (not a re-read: a write came between);
//! - after compaction 1 (a 180-character summary: not usable) cats `store.py` again, greps it,
//!   views it again;
//! - runs a spill loop under an 8,000-character cap: `cat test_store.py` (8,600 characters)
//!   spills to a goose large-response file, the worker cats that file, which spills again, twice,
//!   and the third read times out after 900 s;
//! - after compaction 2 (a usable summary) cats `store.py`, `head`s it and cats it once more.
//!
//! goose writes the large-response notice only above 200,000 characters; the 8,000 cap is the
//! swarm fork's, recorded with goose's wording.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::goose::sessions::{Era, Meta, Msg, Session, TOOL_LOOP, Tokens};
use crate::goose::write::write_db;

/// The session id.
pub const ID: &str = "20260301_1";
/// The working dir.
pub const WORKING_DIR: &str = "/home/dev/proj";
/// The user's ask.
pub const ASK: &str = "Add a retry to fetch_rows in store.py so that test_retry passes.";
/// store.py before the edit.
pub const STORE_PY: &str = "import time\n\nfrom db import connect\n\nRETRIES = 3\n\n\ndef open_conn(dsn):\n    return connect(dsn, timeout=5)\n\n\ndef fetch_rows(conn, q):\n    cur = conn.cursor()\n    cur.execute(q)\n    return cur.fetchall()\n\n\nclass RowCache:\n    def __init__(self, conn):\n        self.conn = conn\n        self.rows = {}\n\n    def get(self, q):\n        if q not in self.rows:\n            self.rows[q] = fetch_rows(self.conn, q)\n        return self.rows[q]\n";
/// store.py after the edit.
pub const STORE_PY_V2: &str = "import time\n\nfrom db import connect\n\nRETRIES = 3\n\n\ndef open_conn(dsn):\n    return connect(dsn, timeout=5)\n\n\ndef fetch_rows(conn, q):\n    for attempt in range(RETRIES):\n        cur = conn.cursor()\n        cur.execute(q)\n        return cur.fetchall()\n\n\nclass RowCache:\n    def __init__(self, conn):\n        self.conn = conn\n        self.rows = {}\n\n    def get(self, q):\n        if q not in self.rows:\n            self.rows[q] = fetch_rows(self.conn, q)\n        return self.rows[q]\n";
/// The pytest run.
pub const PYTEST: &str = "F.\nFAILED test_store.py::test_retry - AssertionError: expected 3 attempts, got 1\n1 failed, 1 passed in 0.12s";
/// The assistant's plan before the edit: a TODO and a next step.
pub const PLAN: &str = "TODO: catch OperationalError around cur.execute and sleep between attempts\nnext: check that open_conn() passes the timeout through";
/// The first summary: too short to be usable.
pub const SUMMARY_1: &str = "The user wants a retry in fetch_rows (store.py). store.py was read and edited to loop over RETRIES; pytest had failed before the edit. Continue the task.";
/// The second summary: usable (over 400 characters), still silent on the spill files.
pub const SUMMARY_2: &str = "## Task\nAdd a retry to fetch_rows in store.py so that test_retry passes.\n## Done\nstore.py was read several times and edited: fetch_rows now loops `for attempt in range(RETRIES)` but returns on the first attempt, so the retry never happens.\n## Errors\npytest reported test_retry failing: expected 3 attempts, got 1. Reading test_store.py did not work: its output was too large to show.\n## Next step\nMake the loop catch the database error and retry, then run pytest -q again.";
/// The size of test_store.py, over the 8,000-character cap.
pub const TEST_FILE_CHARS: usize = 8600;
/// Where the spilled outputs went (goose's data dir; outside the working dir).
pub const SPILL_DIR: &str = "/home/dev/.local/share/goose/mcp_responses";

/// The spill file of the n-th capped read.
pub fn spill(n: usize) -> String {
    format!("{SPILL_DIR}/mcp_response_20260301_101500.00000{n}_a{n}.txt")
}

fn notice(n: usize) -> String {
    format!(
        "The response returned from the tool call was larger ({TEST_FILE_CHARS} characters) and is stored in the file: {}\nYou can use other tools to examine or search it.",
        spill(n)
    )
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"type": "toolRequest", "id": id,
           "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}})
}

fn result(id: &str, out: &str, is_error: bool) -> Value {
    json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success",
           "value": {"content": [{"type": "text", "text": out}], "isError": is_error}}})
}

fn shell(id: &str, cmd: &str) -> Value {
    call(id, "developer__shell", json!({"command": cmd}))
}

fn editor(id: &str, args: Value) -> Value {
    call(id, "developer__text_editor", args)
}

/// The session's messages in stored order, with visibility after both compactions.
pub fn messages() -> Vec<Msg> {
    let hidden = Meta::Flags(true, false);
    let agent_only = Meta::Flags(false, true);
    let visible = Meta::Flags(true, true);
    let m = |role: &'static str, content: Vec<Value>, meta: Meta| Msg {
        role,
        content: Value::Array(content),
        meta,
    };
    let abs = format!("{WORKING_DIR}/store.py");
    let mut out = vec![
        // Before compaction 1: indices 0–10.
        m("user", vec![text(ASK)], hidden),
        m(
            "assistant",
            vec![text("Reading the code first."), shell("s1", "cat store.py")],
            hidden,
        ),
        m("user", vec![result("s1", STORE_PY, false)], hidden),
        m("assistant", vec![shell("s2", "pytest -q")], hidden),
        m("user", vec![result("s2", PYTEST, false)], hidden),
        m(
            "assistant",
            vec![
                text(PLAN),
                editor("s3", json!({"command": "view", "path": abs})),
            ],
            hidden,
        ),
        m("user", vec![result("s3", STORE_PY, false)], hidden),
        m(
            "assistant",
            vec![editor(
                "s4",
                json!({"command": "str_replace", "path": "store.py",
            "old_str": "    cur = conn.cursor()\n    cur.execute(q)\n    return cur.fetchall()\n",
            "new_str": "    for attempt in range(RETRIES):\n        cur = conn.cursor()\n        cur.execute(q)\n        return cur.fetchall()\n"}),
            )],
            hidden,
        ),
        m(
            "user",
            vec![result(
                "s4",
                "The file /home/dev/proj/store.py has been edited.",
                false,
            )],
            hidden,
        ),
        m("assistant", vec![shell("s5", "cat ./store.py")], hidden),
        m("user", vec![result("s5", STORE_PY_V2, false)], hidden),
        // Compaction 1: 11–13.
        m("user", vec![text(SUMMARY_1)], Meta::Flags(false, false)),
        m(
            "assistant",
            vec![text(TOOL_LOOP)],
            Meta::Flags(false, false),
        ),
        m("user", vec![text(ASK)], Meta::Flags(false, false)),
        // Between the compactions: 14–27.
        m("assistant", vec![shell("s6", "cat store.py")], hidden),
        m("user", vec![result("s6", STORE_PY_V2, false)], hidden),
        m(
            "assistant",
            vec![shell("s7", "grep -n fetch_rows store.py")],
            hidden,
        ),
        m(
            "user",
            vec![result(
                "s7",
                "12:def fetch_rows(conn, q):\n26:            self.rows[q] = fetch_rows(self.conn, q)",
                false,
            )],
            hidden,
        ),
        m(
            "assistant",
            vec![editor("s8", json!({"command": "view", "path": "store.py"}))],
            hidden,
        ),
        m("user", vec![result("s8", STORE_PY_V2, false)], hidden),
        m("assistant", vec![shell("s9", "cat test_store.py")], hidden),
        m("user", vec![result("s9", &notice(1), false)], hidden),
    ];
    for (k, id) in ["s10", "s11"].iter().enumerate() {
        out.push(m(
            "assistant",
            vec![shell(id, &format!("cat {}", spill(k + 1)))],
            hidden,
        ));
        out.push(m("user", vec![result(id, &notice(k + 2), false)], hidden));
    }
    out.extend([
        m(
            "assistant",
            vec![shell("s12", &format!("cat {}", spill(3)))],
            hidden,
        ),
        m(
            "user",
            vec![result(
                "s12",
                "Error: command timed out after 900 seconds",
                true,
            )],
            hidden,
        ),
        // Compaction 2: 28–30.
        m("user", vec![text(SUMMARY_2)], agent_only),
        m("assistant", vec![text(TOOL_LOOP)], agent_only),
        m("user", vec![text(ASK)], agent_only),
        // After: 31–38.
        m("assistant", vec![shell("s13", "cat store.py")], visible),
        m("user", vec![result("s13", STORE_PY_V2, false)], visible),
        m(
            "assistant",
            vec![shell("s14", "head -n 40 store.py")],
            visible,
        ),
        m("user", vec![result("s14", STORE_PY_V2, false)], visible),
        m("assistant", vec![shell("s15", "cat store.py")], visible),
        m("user", vec![result("s15", STORE_PY_V2, false)], visible),
        m("assistant", vec![shell("s16", "ls")], visible),
        m(
            "user",
            vec![result("s16", "db.py\nstore.py\ntest_store.py", false)],
            visible,
        ),
    ]);
    out
}

/// The fixture session.
pub fn session() -> Session {
    Session {
        id: ID,
        name: "integration pass: retry in fetch_rows",
        description: "",
        working_dir: WORKING_DIR,
        created: 1_772_359_200,
        ms_timestamps: false,
        tokens: Tokens {
            total: Some(9_412),
            input: Some(9_100),
            output: Some(312),
            accumulated_total: Some(118_000),
        },
        messages: messages(),
    }
}

/// Write `<out>/goose-stuck/sessions.db`, replacing it.
pub fn generate(out: &Path) -> Result<()> {
    let dir = out.join("goose-stuck");
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    let db = dir.join("sessions.db");
    let tmp = dir.join("sessions.db.tmp");
    for p in [&tmp, &db] {
        if p.exists() {
            std::fs::remove_file(p).with_context(|| format!("remove {}", p.display()))?;
        }
    }
    write_db(&tmp, Era::Head, &[session()])?;
    std::fs::rename(&tmp, &db).with_context(|| format!("rename to {}", db.display()))
}
