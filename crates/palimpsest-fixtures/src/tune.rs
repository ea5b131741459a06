//! The fleet `tune` is tested on: one goose `sessions.db` (schema 16, written with the goose
//! writer) of four workers, each compacted by goose at K = 0, shaped so that each keep-tail K
//! spares a known set of their re-reads and one setting storms:
//! - `tune-k3`: the first field report's worker — `cat store.py`, `pytest -q`, compaction,
//!   `cat store.py` again. K = 3 keeps the read (the walk drags its call along: ask for three,
//!   get four); K = 2 keeps only the pytest pair.
//! - `tune-k5`: the same with a `grep` of the test file between pytest and the compaction:
//!   the read is five messages back.
//! - `tune-twice`: two compactions, each followed by a re-read of `app.py`: the first read sits
//!   just before compaction 1 (K = 1 keeps it), the second three messages before compaction 2.
//! - `tune-storm`: twelve user turns, each reading a 4 000-character log, one recorded
//!   compaction: at a small window the threshold fires turn after turn once K keeps most of it.
//!
//! Nothing here is counted: the tests (`palimpsest-core/tests/it/tune.rs`,
//! `palimpsest-cli/tests/it/cli_tune.rs`) assert the counts `tune` finds.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::goose::sessions::{
    ASK, Era, Meta, Msg, PYTEST_FAIL, STORE_PY, Session, TOOL_LOOP, Tokens,
};
use crate::goose::write::write_db;

const HIDDEN: Meta = Meta::Flags(true, false);
const SUMMARY_ROWS: [Meta; 2] = [Meta::Flags(false, true), Meta::Flags(false, true)];
const VISIBLE: Meta = Meta::Flags(true, true);

/// A usable summary (over 400 characters), as goose's compactor writes one.
pub const SUMMARY: &str = "1. User Intent: add a retry to fetch_rows in store.py so that test_retry passes.\n2. Files + Code: store.py defines fetch_rows(conn, q), which runs the query once on a fresh cursor and returns every row, with no retry.\n3. Errors + Fixes: pytest -q reported 1 failed: test_retry - AssertionError: expected 3 attempts, got 1.\n4. Pending: wrap the query in a loop of three attempts that catches the database error.\n5. Next Step: edit fetch_rows, then run pytest -q again.";

/// app.py as `cat` returns it.
pub const APP_PY: &str = "from store import fetch_rows\n\n\ndef main(conn):\n    for row in fetch_rows(conn, 'select * from jobs'):\n        print(row)\n";

/// Characters of each log `tune-storm` reads.
pub const LOG_CHARS: usize = 4_000;

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn msg(role: &'static str, content: Vec<Value>, meta: Meta) -> Msg {
    Msg {
        role,
        content: Value::Array(content),
        meta,
    }
}

/// A shell call and its result, both with visibility `meta`.
fn shell(id: &str, cmd: &str, out: &str, meta: Meta) -> [Msg; 2] {
    [
        msg(
            "assistant",
            vec![
                json!({"type": "toolRequest", "id": id, "toolCall": {"status": "success",
                "value": {"name": "developer__shell", "arguments": {"command": cmd}}}}),
            ],
            meta,
        ),
        msg(
            "user",
            vec![
                json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success",
                "value": {"content": [{"type": "text", "text": out}], "isError": false}}}),
            ],
            meta,
        ),
    ]
}

/// A goose compaction at K = 0: the summary, the tool-loop continuation and the ask again,
/// seen by the agent only; everything before it has been hidden from the agent by the caller.
fn compaction(ask: &str) -> [Msg; 3] {
    [
        msg("user", vec![text(SUMMARY)], SUMMARY_ROWS[0]),
        msg("assistant", vec![text(TOOL_LOOP)], SUMMARY_ROWS[1]),
        msg("user", vec![text(ask)], VISIBLE),
    ]
}

/// Hide everything so far from the agent (goose does at each compaction).
fn hide(out: &mut [Msg]) {
    for m in out {
        if let Meta::Flags(user, _) = m.meta {
            m.meta = Meta::Flags(user, false);
        }
    }
}

fn k3() -> Vec<Msg> {
    let mut out = vec![msg("user", vec![text(ASK)], HIDDEN)];
    out.extend(shell("t1", "cat store.py", STORE_PY, HIDDEN));
    out.extend(shell("t2", "pytest -q", PYTEST_FAIL, HIDDEN));
    out.extend(compaction(ASK));
    out.extend(shell("t3", "cat store.py", STORE_PY, VISIBLE));
    out
}

fn k5() -> Vec<Msg> {
    let mut out = vec![msg("user", vec![text(ASK)], HIDDEN)];
    out.extend(shell("t1", "cat store.py", STORE_PY, HIDDEN));
    out.extend(shell("t2", "pytest -q", PYTEST_FAIL, HIDDEN));
    out.extend(shell(
        "t3",
        "grep -n test_retry test_store.py",
        "14:def test_retry(conn):",
        HIDDEN,
    ));
    out.extend(compaction(ASK));
    out.extend(shell("t4", "cat store.py", STORE_PY, VISIBLE));
    out
}

fn twice() -> Vec<Msg> {
    let ask = "log every job main() runs in app.py";
    let mut out = vec![msg("user", vec![text(ask)], HIDDEN)];
    out.extend(shell("t1", "cat app.py", APP_PY, HIDDEN));
    out.extend(compaction(ask));
    out.extend(shell("t2", "cat app.py", APP_PY, VISIBLE));
    out.extend(shell(
        "t3",
        "python -m pytest -q",
        "3 passed in 0.05s",
        VISIBLE,
    ));
    hide(&mut out);
    out.extend(compaction(ask));
    out.extend(shell("t4", "cat app.py", APP_PY, VISIBLE));
    out
}

fn storm() -> Vec<Msg> {
    let mut out = Vec::new();
    for turn in 0..12 {
        let log: String = (0..)
            .map(|n| {
                format!(
                    "2026-03-02T10:{turn:02}:{:02} worker {n}: fetched batch {n}\n",
                    n % 60
                )
            })
            .scan(0, |len, line| {
                *len += line.len();
                (*len <= LOG_CHARS).then_some(line)
            })
            .collect();
        let ask = format!("what went wrong in run {turn}?");
        out.push(msg("user", vec![text(&ask)], VISIBLE));
        out.extend(shell(
            &format!("t{turn}"),
            &format!("cat logs/run-{turn}.log"),
            &log,
            VISIBLE,
        ));
        out.push(msg(
            "assistant",
            vec![text(&format!(
                "Run {turn} fetched every batch; nothing failed."
            ))],
            VISIBLE,
        ));
        if turn == 5 {
            hide(&mut out);
            out.extend(compaction(&ask));
        }
    }
    out
}

/// The four sessions, in the order they are written.
pub fn sessions() -> Vec<Session> {
    let base = Session {
        id: "",
        name: "",
        description: "",
        working_dir: "/home/dev/store",
        created: 1_772_400_000,
        ms_timestamps: false,
        tokens: Tokens::default(),
        messages: Vec::new(),
    };
    [
        ("tune-k3", "retry in fetch_rows", k3()),
        ("tune-k5", "retry in fetch_rows, test read first", k5()),
        ("tune-twice", "log each job in app.py", twice()),
        ("tune-storm", "why did the runs fail", storm()),
    ]
    .into_iter()
    .enumerate()
    .map(|(n, (id, name, messages))| Session {
        id,
        name,
        created: base.created + 3_600 * n as i64,
        messages,
        ..base.clone()
    })
    .collect()
}

/// Write `<dir>/sessions.db` with the four sessions (replacing it) and return its path.
pub fn write(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let db = dir.join("sessions.db");
    if db.exists() {
        std::fs::remove_file(&db).with_context(|| format!("remove {}", db.display()))?;
    }
    write_db(&db, Era::Head, &sessions())?;
    Ok(db)
}
