//! The content of every goose fixture session, era-aware (tool results are bare arrays in the
//! legacy era, CallToolResult objects from v1.16 on). Writing them is `write`'s job.
//!
//! The seed sessions carry exactly the text of the first field report (tool name `shell`,
//! `cat store.py`, the `test_retry` failure), since replay acceptance tests compare against it.

use serde_json::{Value, json};

/// Which goose era a fixture is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// Schema 16 (goose v1.47): object tool results, `message_id`, ms allowed.
    Head,
    /// Schema 6 (goose v1.16): object tool results, no `message_id`.
    V116,
    /// Legacy `.jsonl` (goose ≤ 1.9): bare-array tool results.
    Legacy,
}

/// Visibility metadata of a message as goose stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// `{"userVisible": u, "agentVisible": a}`.
    Flags(bool, bool),
    /// No metadata at all (NULL column / no key): goose reads the default (true, true).
    Missing,
}

/// One stored message.
#[derive(Debug, Clone)]
pub struct Msg {
    /// `user` or `assistant`.
    pub role: &'static str,
    /// The content array.
    pub content: Value,
    /// Visibility.
    pub meta: Meta,
}

/// Recorded token columns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tokens {
    /// Last call's total.
    pub total: Option<i64>,
    /// Last call's input.
    pub input: Option<i64>,
    /// Last call's output.
    pub output: Option<i64>,
    /// Running total over all calls.
    pub accumulated_total: Option<i64>,
}

/// One fixture session.
#[derive(Debug, Clone)]
pub struct Session {
    /// `sessions.id` (and the legacy file stem).
    pub id: &'static str,
    /// `sessions.name` (empty → readers fall back to the description).
    pub name: &'static str,
    /// The legacy `description` column.
    pub description: &'static str,
    /// Working directory.
    pub working_dir: &'static str,
    /// `created` of the first message, Unix seconds; later ones are 10 s apart.
    pub created: i64,
    /// Store `created_timestamp` in milliseconds (newer goose builds did) in the Head era.
    pub ms_timestamps: bool,
    /// Token columns.
    pub tokens: Tokens,
    /// The messages in stored order.
    pub messages: Vec<Msg>,
}

/// The TOOL_LOOP continuation text (≥ 2026-02-16).
pub const TOOL_LOOP: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
/// The MANUAL continuation text (≤ 2026-02-15).
pub const MANUAL_OLD: &str = "The previous message contains a summary that was prepared at the user's request.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context";

/// The user's ask in the seed.
pub const ASK: &str = "add a retry to fetch_rows in store.py";
/// store.py as `cat` returns it.
pub const STORE_PY: &str = "def fetch_rows(conn, q):\n    cur = conn.cursor()\n    cur.execute(q)\n    return cur.fetchall()\n";
/// The pytest failure.
pub const PYTEST_FAIL: &str = "1 failed: test_retry - AssertionError: expected 3 attempts, got 1";

const BOTH: Meta = Meta::Flags(true, true);
const USER_ONLY: Meta = Meta::Flags(true, false);
const AGENT_ONLY: Meta = Meta::Flags(false, true);

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn request(id: &str, name: &str, args: Value) -> Value {
    json!({"type": "toolRequest", "id": id,
           "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}})
}

fn response(era: Era, id: &str, out: &str) -> Value {
    let items = json!([{"type": "text", "text": out}]);
    let value = if era == Era::Legacy {
        items
    } else {
        json!({"content": items})
    };
    json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success", "value": value}})
}

fn msg(role: &'static str, content: Vec<Value>, meta: Meta) -> Msg {
    Msg {
        role,
        content: Value::Array(content),
        meta,
    }
}

/// The five seed messages, all with visibility `meta`.
fn seed_five(era: Era, meta: Meta) -> Vec<Msg> {
    vec![
        msg("user", vec![text(ASK)], meta),
        msg(
            "assistant",
            vec![request("call_1", "shell", json!({"cmd": "cat store.py"}))],
            meta,
        ),
        msg("user", vec![response(era, "call_1", STORE_PY)], meta),
        msg(
            "assistant",
            vec![request("call_2", "shell", json!({"cmd": "pytest -q"}))],
            meta,
        ),
        msg("user", vec![response(era, "call_2", PYTEST_FAIL)], meta),
    ]
}

/// The summary goose's compactor would have written for the seed conversation.
pub const SUMMARY: &str = "<analysis>\nThe user asked for a retry in fetch_rows; store.py was read and pytest was run.\n</analysis>\n\n1. User Intent: add a retry to fetch_rows in store.py.\n2. Files + Code: store.py defines fetch_rows(conn, q), which runs the query once, with no retry.\n3. Errors + Fixes: pytest -q reported 1 failed: test_retry - AssertionError: expected 3 attempts, got 1.\n4. Next Step: wrap the query in a loop of 3 attempts.";

/// Every goose fixture session for `era`, in the order they are written.
pub fn all(era: Era) -> Vec<Session> {
    let base = Session {
        id: "",
        name: "",
        description: "",
        working_dir: "/home/dev/store",
        created: 1_771_900_000,
        ms_timestamps: false,
        tokens: Tokens::default(),
        messages: Vec::new(),
    };
    let mut dup = seed_five(era, BOTH);
    dup.insert(3, msg("user", vec![text("also log each attempt")], BOTH));

    let mut compacted = seed_five(era, USER_ONLY);
    compacted.extend([
        msg("user", vec![text(SUMMARY)], AGENT_ONLY),
        msg("assistant", vec![text(TOOL_LOOP)], AGENT_ONLY),
        msg("user", vec![text(ASK)], BOTH),
        msg(
            "assistant",
            vec![request("call_3", "shell", json!({"cmd": "cat store.py"}))],
            BOTH,
        ),
        msg("user", vec![response(era, "call_3", STORE_PY)], BOTH),
    ]);

    vec![
        Session {
            id: "seed-five",
            name: "seed: retry in fetch_rows",
            created: 1_771_900_000,
            tokens: Tokens {
                total: Some(2_200),
                input: Some(2_000),
                output: Some(200),
                accumulated_total: Some(5_100),
            },
            messages: seed_five(era, BOTH),
            ..base.clone()
        },
        Session {
            id: "seed-parallel",
            name: "seed: three checks at once",
            created: 1_771_901_000,
            messages: vec![
                msg(
                    "user",
                    vec![text("run the three checks: lint, types and tests")],
                    Meta::Missing,
                ),
                msg(
                    "assistant",
                    vec![
                        request("call_a", "shell", json!({"cmd": "ruff check ."})),
                        request("call_b", "shell", json!({"cmd": "mypy store.py"})),
                        request("call_c", "shell", json!({"cmd": "pytest -q"})),
                    ],
                    Meta::Missing,
                ),
                msg(
                    "user",
                    vec![response(era, "call_a", "All checks passed!")],
                    Meta::Missing,
                ),
                msg(
                    "user",
                    vec![response(
                        era,
                        "call_b",
                        "Success: no issues found in 1 source file",
                    )],
                    Meta::Missing,
                ),
                msg(
                    "user",
                    vec![response(era, "call_c", PYTEST_FAIL)],
                    Meta::Missing,
                ),
            ],
            ..base.clone()
        },
        Session {
            id: "seed-dup",
            name: "seed: ask inside the tail",
            created: 1_771_902_000,
            messages: dup,
            ..base.clone()
        },
        Session {
            id: "goose-compacted",
            name: "auto compaction in a tool loop",
            created: 1_771_903_000,
            tokens: Tokens {
                total: Some(310),
                input: Some(310),
                output: None,
                accumulated_total: Some(9_800),
            },
            messages: compacted,
            ..base.clone()
        },
        Session {
            id: "goose-manual",
            name: "manual /compact",
            created: 1_768_000_000,
            messages: vec![
                msg(
                    "user",
                    vec![text("explain what fetch_rows does")],
                    USER_ONLY,
                ),
                msg(
                    "assistant",
                    vec![text(
                        "fetch_rows runs the query on a fresh cursor and returns every row. It does not retry.",
                    )],
                    USER_ONLY,
                ),
                msg(
                    "user",
                    vec![text(
                        "1. User Intent: understand fetch_rows.\n2. Files + Code: store.py, fetch_rows(conn, q) returns cur.fetchall() without retry.",
                    )],
                    AGENT_ONLY,
                ),
                msg("assistant", vec![text(MANUAL_OLD)], AGENT_ONLY),
                msg("user", vec![text("/compact")], USER_ONLY),
                msg(
                    "assistant",
                    vec![
                        json!({"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Compaction complete"}),
                    ],
                    USER_ONLY,
                ),
                msg("user", vec![text("now add the retry")], BOTH),
                msg(
                    "assistant",
                    vec![text("Adding a loop of three attempts around cur.execute.")],
                    BOTH,
                ),
            ],
            ..base.clone()
        },
        Session {
            id: "goose-legacy-types",
            name: "",
            description: "  legacy   item\ttypes ",
            created: 1_759_000_000,
            messages: vec![
                msg(
                    "user",
                    vec![text("check the nightly logs for errors")],
                    BOTH,
                ),
                msg(
                    "assistant",
                    vec![request(
                        "call_l1",
                        "developer__shell",
                        json!({"command": "tail -n 200 nightly.log"}),
                    )],
                    BOTH,
                ),
                // The pre-v1.16 bare-array result, in every era of this session.
                msg(
                    "user",
                    vec![
                        json!({"type": "toolResponse", "id": "call_l1", "toolResult": {"status": "success",
                        "value": [{"type": "text", "text": "ERROR db timeout after 30s"}, {"type": "text", "text": "ERROR db timeout after 30s"}]}}),
                    ],
                    BOTH,
                ),
                msg(
                    "assistant",
                    vec![
                        json!({"type": "contextLengthExceeded", "msg": "The context length of the model has been exceeded. Please start a new session and try again."}),
                    ],
                    USER_ONLY,
                ),
                msg(
                    "assistant",
                    vec![
                        json!({"type": "summarizationRequested", "msg": "Conversation compacted and summarized"}),
                    ],
                    USER_ONLY,
                ),
                msg(
                    "assistant",
                    vec![
                        json!({"type": "conversationCompacted", "msg": "Conversation compacted to fit the context window"}),
                    ],
                    USER_ONLY,
                ),
                msg(
                    "assistant",
                    vec![text(
                        "The nightly run failed twice on a database timeout after 30s.",
                    )],
                    BOTH,
                ),
            ],
            ..base.clone()
        },
        Session {
            id: "hostile-html",
            name: "<b>hostile</b><script>alert('name')</script>",
            working_dir: "/tmp/<img src=x onerror=alert('cwd')>",
            created: 1_771_904_000,
            ms_timestamps: true,
            messages: vec![
                msg(
                    "user",
                    vec![text(
                        "<script>alert(1)</script> please render <img src=x onerror=alert(2)> and [this](javascript:alert(3))",
                    )],
                    BOTH,
                ),
                msg(
                    "assistant",
                    vec![
                        text(
                            "</div></div></pre><script>document.title='pwned'</script><a href=\"javascript:alert(4)\">click</a>",
                        ),
                        request(
                            "call_h1",
                            "shell",
                            json!({"cmd": "echo '<script>alert(5)</script>'", "html": "<img src=x onerror=alert(6)>", "</div>": "<svg onload=alert(7)>"}),
                        ),
                    ],
                    BOTH,
                ),
                msg(
                    "user",
                    vec![response(
                        era,
                        "call_h1",
                        "</div><script>alert(8)</script><iframe src=\"javascript:alert(9)\"></iframe>\n<style>body{display:none}</style>",
                    )],
                    BOTH,
                ),
            ],
            ..base
        },
    ]
}
