//! OpenCode's and Kilo Code's SQLite stores as the harness writes them (`opencode.db`,
//! `kilo.db`: tables `session`, `message` and `part`, each message and part a JSON `data`
//! column), with the shapes of OpenCode's `session/message-v2.ts` and `session/compaction.ts`:
//! an auto compaction that keeps a tail (`compaction` part with `tail_start_id`, then the
//! `summary: true` answer and the synthetic "Continue" message), a manual one from a build that
//! kept no tail, pruned tool outputs (`state.time.compacted`), a `task` call whose child session
//! names it as parent, multi-step answers (`step-start` / `step-finish` with per-step tokens), a
//! failed request, and one row whose JSON is cut short. Every value is fixed, so regenerating
//! gives the same rows. What each session exercises is fixtures/README.md's.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

/// OpenCode's tables as its migrations leave them (the columns a reader relies on; newer
/// builds add more, which the reader ignores).
pub const DDL: &str = "
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
  share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
  revert TEXT, permission TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX session_project_idx ON session(project_id);
CREATE INDEX session_parent_idx ON session(parent_id);
CREATE INDEX message_session_time_created_id_idx ON message(session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part(message_id, id);
CREATE INDEX part_session_idx ON part(session_id);
";

/// The worker session: two compactions, a prune and a subagent.
pub const WORKER: &str = "ses_7a1c0e2f4001worker";
/// The subagent the worker's `task` call ran.
pub const CHILD: &str = "ses_7a1c0e2f4002explore";
/// A session of a build that kept no tail at compaction, with a failed request and a row cut
/// short.
pub const OLD: &str = "ses_7a1c0e2f4003oldbuild";
/// Kilo Code's one session.
pub const KILO: &str = "ses_7a1c0e2f4004kilo";

pub(crate) const T0: i64 = 1_790_000_000_000;
pub(crate) const CWD: &str = "/work/shop";

/// One message and its parts, as rows.
pub(crate) struct Msg {
    pub id: String,
    pub at: i64,
    pub data: Value,
    pub parts: Vec<Value>,
    /// The stored `data` text instead of `data` (a row cut short).
    pub raw: Option<String>,
}

/// A session's rows.
pub(crate) struct Sess {
    pub id: &'static str,
    pub parent: Option<&'static str>,
    pub title: &'static str,
    pub messages: Vec<Msg>,
}

/// Message ids ascend with time, as OpenCode's `Identifier.ascending` makes them.
fn mid(session: &str, n: usize) -> String {
    format!("msg_{}{:04}", &session[4..16], n)
}

fn user(session: &str, n: usize, text: &str) -> Msg {
    Msg {
        id: mid(session, n),
        at: T0 + n as i64 * 10_000,
        data: json!({"role": "user", "time": {"created": T0 + n as i64 * 10_000}, "agent": "build",
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}),
        parts: vec![json!({"type": "text", "text": text})],
        raw: None,
    }
}

fn tokens(input: u64, output: u64, read: u64, write: u64) -> Value {
    json!({"input": input, "output": output, "reasoning": 0, "cache": {"read": read, "write": write}})
}

/// An answer of `steps`, each a list of parts closed by a `step-finish` with its tokens; the
/// message's tokens are the steps' sum.
fn answer(session: &str, n: usize, parent: usize, steps: Vec<(Vec<Value>, Value)>) -> Msg {
    let at = T0 + n as i64 * 10_000;
    let mut parts = Vec::new();
    let (mut input, mut output, mut read, mut write) = (0, 0, 0, 0);
    let last = steps.len().saturating_sub(1);
    for (i, (body, t)) in steps.into_iter().enumerate() {
        input += t["input"].as_u64().unwrap_or(0);
        output += t["output"].as_u64().unwrap_or(0);
        read += t["cache"]["read"].as_u64().unwrap_or(0);
        write += t["cache"]["write"].as_u64().unwrap_or(0);
        parts.push(json!({"type": "step-start", "snapshot": format!("{:040x}", n * 16 + i)}));
        let calls = body.iter().any(|p| p["type"] == "tool");
        // Each step's calls ran during that step.
        let start = at + 2_000 * i as i64 + 500;
        parts.extend(body.into_iter().map(|mut p| {
            if p["type"] == "tool" {
                p["state"]["time"]["start"] = json!(start);
                p["state"]["time"]["end"] = json!(start + 700);
            }
            p
        }));
        let reason = if calls && i < last {
            "tool-calls"
        } else {
            "stop"
        };
        parts.push(
            json!({"type": "step-finish", "reason": reason, "cost": 0.0123, "tokens": t,
            "snapshot": format!("{:040x}", n * 16 + i + 1)}),
        );
    }
    Msg {
        id: mid(session, n),
        at,
        data: json!({"role": "assistant", "time": {"created": at, "completed": at + 9_000},
            "parentID": mid(session, parent), "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
            "mode": "build", "agent": "build", "path": {"cwd": CWD, "root": CWD}, "cost": 0.0369,
            "tokens": tokens(input, output, read, write), "finish": "stop"}),
        parts,
        raw: None,
    }
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// A completed tool call; `compacted` marks its output pruned at that time. Its start and
/// end are its step's (`answer` sets them).
fn tool(call: &str, name: &str, input: Value, output: &str, compacted: Option<i64>) -> Value {
    let mut time = json!({"start": 0, "end": 0});
    if let Some(c) = compacted {
        time["compacted"] = json!(c);
    }
    json!({"type": "tool", "callID": call, "tool": name, "state": {"status": "completed",
        "input": input, "output": output, "title": name, "metadata": {}, "time": time}})
}

const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";
const FAILING: &str = "F.\n=== FAILURES ===\nFAILED tests/test_store.py::test_retry - AssertionError: fetch_rows was called once, expected 3\n1 failed, 1 passed in 0.12s";
const SUMMARY: &str = "## Goal\nAdd a retry with logging to `fetch_rows` in `store.py` (working dir /work/shop).\n\n## Instructions\n- Retry three times, log each attempt.\n\n## Discoveries\n- `tests/test_store.py::test_retry` expects three calls.\n\n## Accomplished\n- `fetch_rows` now retries with a sleep and logs each attempt; `pytest -q` passes.\n- Still running the whole suite.\n\n## Relevant files / directories\n- /work/shop/store.py\n- /work/shop/tests/test_store.py\n";

/// A `pytest -v` run long enough (≈ 10 000 tokens) that the turn holding it does not fit
/// OpenCode's 8 000-token tail budget, so its auto compaction keeps the last turn alone.
fn verbose_log() -> String {
    let mut out = String::from("============ test session starts ============\n");
    for i in 0..700 {
        out.push_str(&format!(
            "tests/test_store.py::test_fetch_rows_case_{i:03} PASSED [{:>3}%]\n",
            (i + 1) * 100 / 700
        ));
    }
    out.push_str("============ 700 passed in 4.12s ============\n");
    out
}

/// The worker: three turns, an auto compaction keeping the last turn (its messages 6–7), the
/// synthetic continue, a re-read of `store.py`, a `task` call, a prune of two of message 11's
/// outputs, then a manual `/compact` of the whole history.
fn worker() -> Sess {
    let s = WORKER;
    let read = |c: &str, out: &str, pruned: Option<i64>| {
        tool(
            c,
            "read",
            json!({"filePath": "/work/shop/store.py"}),
            out,
            pruned,
        )
    };
    let bash = |c: &str, cmd: &str, out: &str, pruned: Option<i64>| {
        tool(
            c,
            "bash",
            json!({"command": cmd, "description": "run"}),
            out,
            pruned,
        )
    };
    // Pruned after the answer to message 12, before the manual compaction.
    let pruned = Some(T0 + 145_000);
    let mut task = tool(
        "toolu_task01",
        "task",
        json!({"description": "find callers", "prompt": "Find every caller of fetch_rows.", "subagent_type": "explore"}),
        "fetch_rows is called from app.py:12 and jobs.py:40.",
        None,
    );
    task["state"]["metadata"] = json!({"sessionId": CHILD});
    let mut compact_auto = user(s, 8, "");
    compact_auto.parts = vec![
        json!({"type": "compaction", "auto": true, "overflow": false, "tail_start_id": mid(s, 6)}),
    ];
    let mut summary = answer(
        s,
        9,
        8,
        vec![(vec![text(SUMMARY)], tokens(310, 420, 0, 9_800))],
    );
    summary.data["summary"] = json!(true);
    summary.data["mode"] = json!("compaction");
    summary.data["agent"] = json!("compaction");
    let mut resume = user(
        s,
        10,
        "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
    );
    resume.parts[0]["synthetic"] = json!(true);
    let mut compact_manual = user(s, 15, "");
    compact_manual.parts = vec![json!({"type": "compaction", "auto": false})];
    let mut summary2 = answer(
        s,
        16,
        15,
        vec![(vec![text(SUMMARY)], tokens(820, 400, 0, 6_100))],
    );
    summary2.data["summary"] = json!(true);
    summary2.data["mode"] = json!("compaction");
    summary2.data["agent"] = json!("compaction");
    let messages = vec![
        user(s, 1, "add a retry to fetch_rows in store.py"),
        answer(
            s,
            2,
            1,
            vec![
                (
                    vec![
                        text("Reading store.py first."),
                        read("toolu_r1", STORE_PY, None),
                    ],
                    tokens(3, 60, 0, 12_400),
                ),
                (
                    vec![bash("toolu_b1", "pytest -q", FAILING, None)],
                    tokens(4, 40, 12_400, 300),
                ),
                (
                    vec![text(
                        "test_retry expects three attempts; fetch_rows makes one.",
                    )],
                    tokens(2, 30, 12_700, 200),
                ),
            ],
        ),
        user(s, 3, "also log each attempt"),
        answer(
            s,
            4,
            3,
            vec![
                (
                    vec![tool(
                        "toolu_e1",
                        "edit",
                        json!({"filePath": "/work/shop/store.py",
                "oldString": "    return db.execute(query).fetchall()\n",
                "newString": "    for attempt in range(3):\n        log.info('attempt %d', attempt)\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n"}),
                        "Edit applied successfully.",
                        None,
                    )],
                    tokens(3, 120, 12_900, 400),
                ),
                (
                    vec![bash("toolu_b2", "pytest -v", &verbose_log(), None)],
                    tokens(2, 20, 13_300, 100),
                ),
                (
                    vec![text("All 700 cases pass; each attempt is logged.")],
                    tokens(2, 25, 13_400, 9_900),
                ),
            ],
        ),
        user(s, 6, "now run the whole suite"),
        answer(
            s,
            7,
            6,
            vec![
                (
                    vec![bash(
                        "toolu_b3",
                        "pytest",
                        "........\n8 passed in 0.51s",
                        None,
                    )],
                    tokens(3, 20, 23_300, 200),
                ),
                (vec![text("All 8 tests pass.")], tokens(2, 10, 23_500, 50)),
            ],
        ),
        compact_auto,
        summary,
        resume,
        answer(
            s,
            11,
            10,
            vec![
                (
                    vec![read("toolu_r2", STORE_PY, pruned)],
                    tokens(3, 30, 0, 10_300),
                ),
                (vec![task], tokens(3, 60, 10_300, 500)),
                (
                    vec![bash(
                        "toolu_b4",
                        "pytest -q",
                        "..\n2 passed in 0.10s",
                        pruned,
                    )],
                    tokens(2, 20, 10_800, 100),
                ),
                (
                    vec![text(
                        "The retry is done and its callers are app.py and jobs.py.",
                    )],
                    tokens(2, 20, 10_900, 60),
                ),
            ],
        ),
        user(s, 12, "check the log output"),
        answer(
            s,
            13,
            12,
            vec![
                (
                    vec![bash(
                        "toolu_b5",
                        "pytest -q -o log_cli=true",
                        "INFO attempt 0\n..\n2 passed",
                        None,
                    )],
                    tokens(3, 30, 11_000, 150),
                ),
                (
                    vec![text("One attempt is logged per try.")],
                    tokens(2, 12, 11_150, 40),
                ),
            ],
        ),
        compact_manual,
        summary2,
        user(s, 17, "add a docstring to fetch_rows"),
        answer(
            s,
            18,
            17,
            vec![
                (
                    vec![tool(
                        "toolu_e2",
                        "edit",
                        json!({"filePath": "/work/shop/store.py",
                "oldString": "def fetch_rows(db, query):\n", "newString": "def fetch_rows(db, query):\n    \"\"\"Rows of query, retried.\"\"\"\n"}),
                        "Edit applied successfully.",
                        None,
                    )],
                    tokens(3, 50, 0, 7_000),
                ),
                (vec![text("Added.")], tokens(2, 5, 7_000, 30)),
            ],
        ),
    ];
    Sess {
        id: s,
        parent: None,
        title: "Add a retry to fetch_rows",
        messages,
    }
}

fn child() -> Sess {
    let s = CHILD;
    Sess {
        id: s,
        parent: Some(WORKER),
        title: "find callers (@explore subagent)",
        messages: vec![
            user(s, 1, "Find every caller of fetch_rows."),
            answer(
                s,
                2,
                1,
                vec![
                    (
                        vec![tool(
                            "toolu_g1",
                            "grep",
                            json!({"pattern": "fetch_rows", "path": CWD}),
                            &grep_truncated(),
                            None,
                        )],
                        tokens(3, 30, 0, 4_000),
                    ),
                    (
                        vec![text("fetch_rows is called from app.py:12 and jobs.py:40.")],
                        tokens(2, 20, 4_000, 80),
                    ),
                ],
            ),
        ],
    }
}

/// Where the explore agent's grep output was saved, on the machine that recorded it.
const GREP_SAVED: &str = "/home/dev/.local/share/opencode/tool-output/tool_9a1c0e2f4002Gq7ZfXk2Lm";

/// Every hit of the explore agent's grep: two real callers, then the vendored copies.
fn grep_hits() -> String {
    let mut s =
        String::from("app.py:12: rows = fetch_rows(db, q)\njobs.py:40: fetch_rows(db, 'select 1')");
    for n in 0..2_098 {
        s += &format!("\nvendor/legacy/store_{n:04}.py:3: def fetch_rows(db, query):");
    }
    s
}

/// The grep output as OpenCode's `Truncate.output` left it: the lines that fit its 50 KB
/// (before its 2 000 lines), the bytes left out, and where the whole was saved.
fn grep_truncated() -> String {
    const MAX_BYTES: usize = 50 * 1024;
    let hits = grep_hits();
    let (mut kept, mut bytes) = (Vec::new(), 0);
    for (i, line) in hits.lines().enumerate().take(2_000) {
        let size = line.len() + usize::from(i > 0);
        if bytes + size > MAX_BYTES {
            break;
        }
        kept.push(line);
        bytes += size;
    }
    format!(
        "{}\n\n...{} bytes truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: {GREP_SAVED}\nUse Grep to search the full content or Read with offset/limit to view specific sections.",
        kept.join("\n"),
        hits.len() - bytes
    )
}

/// A build that kept no tail: the compaction part has no `tail_start_id`, so everything
/// before it is summarised. A request failed (an error, no parts); one part row is cut short.
fn old() -> Sess {
    let s = OLD;
    let mut compact = user(s, 5, "");
    compact.parts = vec![json!({"type": "compaction", "auto": true})];
    let mut summary = answer(
        s,
        6,
        5,
        vec![(
            vec![text("Fixed the import in app.py.")],
            tokens(200, 30, 0, 0),
        )],
    );
    summary.data["summary"] = json!(true);
    summary.data["mode"] = json!("compaction");
    let mut failed = answer(s, 8, 7, vec![]);
    failed.data["error"] =
        json!({"name": "APIError", "data": {"message": "Overloaded", "isRetryable": true}});
    failed.data["finish"] = Value::Null;
    let mut cut = answer(
        s,
        9,
        7,
        vec![(
            vec![text("Retried: the import is fixed.")],
            tokens(10, 12, 0, 900),
        )],
    );
    cut.raw = Some(r#"{"role":"assistant","time":{"created":"#.to_owned());
    Sess {
        id: s,
        parent: None,
        title: "Fix the import",
        messages: vec![
            user(s, 1, "app.py fails to import store"),
            answer(
                s,
                2,
                1,
                vec![
                    (
                        vec![tool(
                            "toolu_o1",
                            "read",
                            json!({"filePath": "/work/shop/app.py"}),
                            "from stor import fetch_rows\n",
                            None,
                        )],
                        tokens(5, 20, 0, 3_000),
                    ),
                    (
                        vec![tool(
                            "toolu_o2",
                            "edit",
                            json!({"filePath": "/work/shop/app.py", "oldString": "stor", "newString": "store"}),
                            "Edit applied successfully.",
                            None,
                        )],
                        tokens(3, 20, 3_000, 60),
                    ),
                    (
                        vec![text("Fixed the typo in the import.")],
                        tokens(2, 8, 3_060, 20),
                    ),
                ],
            ),
            user(s, 3, "does it run now?"),
            answer(
                s,
                4,
                3,
                vec![(
                    vec![tool(
                        "toolu_o3",
                        "bash",
                        json!({"command": "python app.py"}),
                        "ok",
                        None,
                    )],
                    tokens(3, 10, 3_100, 40),
                )],
            ),
            compact,
            summary,
            user(s, 7, "run it once more"),
            failed,
            cut,
        ],
    }
}

fn kilo() -> Sess {
    let s = KILO;
    Sess {
        id: s,
        parent: None,
        title: "Explain store.py",
        messages: vec![
            user(s, 1, "explain store.py"),
            answer(
                s,
                2,
                1,
                vec![
                    (
                        vec![tool(
                            "toolu_k1",
                            "read",
                            json!({"filePath": "/work/shop/store.py"}),
                            STORE_PY,
                            None,
                        )],
                        tokens(4, 20, 0, 2_500),
                    ),
                    (
                        vec![text("store.py runs a query and returns every row.")],
                        tokens(2, 15, 2_500, 40),
                    ),
                ],
            ),
        ],
    }
}

/// Write `sessions` to a new database at `path` (rollback journal, so the file is whole).
fn write_db(path: &Path, sessions: &[Sess]) -> Result<()> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let conn = Connection::open(path).with_context(|| format!("create {}", path.display()))?;
    conn.execute_batch(DDL)?;
    conn.execute(
        "INSERT INTO project VALUES ('prj_shop', ?1, 'git', 'shop', ?2, ?2)",
        params![CWD, T0],
    )?;
    let mut part_n = 0usize;
    for s in sessions {
        let last = s.messages.last().map_or(T0, |m| m.at + 9_000);
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,
               time_created, time_updated) VALUES (?1, 'prj_shop', ?2, ?3, ?4, ?5, '1.14.29', ?6, ?7)",
            params![s.id, s.parent, &s.id[4..], CWD, s.title, s.messages[0].at, last],
        )?;
        for m in &s.messages {
            let data = m.raw.clone().unwrap_or_else(|| m.data.to_string());
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?4, ?5)",
                params![m.id, s.id, m.at, m.at + 9_000, data],
            )?;
            for p in &m.parts {
                part_n += 1;
                conn.execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        format!("prt_{:06}", part_n),
                        m.id,
                        s.id,
                        m.at,
                        m.at,
                        p.to_string()
                    ],
                )?;
            }
        }
    }
    Ok(())
}

/// Write `opencode/opencode.db` and `kilo/kilo.db` under `out`.
pub fn generate(out: &Path) -> Result<()> {
    for (dir, file, sessions) in [
        ("opencode", "opencode.db", vec![worker(), child(), old()]),
        ("kilo", "kilo.db", vec![kilo()]),
    ] {
        let d = out.join(dir);
        std::fs::create_dir_all(&d).with_context(|| format!("create {}", d.display()))?;
        write_db(&d.join(file), &sessions)?;
    }
    // The explore agent's whole grep output, where OpenCode keeps it: `tool-output/` in its
    // data folder (the database's folder).
    let saved = out.join("opencode").join("tool-output");
    std::fs::create_dir_all(&saved)?;
    let name = GREP_SAVED.rsplit('/').next().expect("a file name");
    std::fs::write(saved.join(name), grep_hits())?;
    // The same sessions as a build before the database kept them.
    crate::opencode_storage::write(&out.join("opencode-storage"), &[worker(), child(), old()])
}
