//! Small in-code sessions for the replay unit tests: the seed's shapes, built goose-style
//! (tool results ride in user messages).

use serde_json::json;

use crate::model::{Message, Part, Role};

/// A text message.
pub fn text(index: usize, role: Role, t: &str) -> Message {
    Message::new(index, role, vec![Part::Text { text: t.into() }])
}

/// An assistant message issuing one shell call per command.
pub fn calls(index: usize, cmds: &[(&str, &str)]) -> Message {
    let parts = cmds
        .iter()
        .map(|(id, cmd)| Part::ToolCall {
            id: (*id).into(),
            name: "developer__shell".into(),
            arguments: json!({ "command": cmd }).into(),
        })
        .collect();
    Message::new(index, Role::Assistant, parts)
}

/// A user message carrying one tool result.
pub fn result(index: usize, id: &str, out: &str) -> Message {
    Message::new(
        index,
        Role::User,
        vec![Part::ToolResult {
            call_id: id.into(),
            text: out.into(),
            is_error: false,
            raw: json!(null).into(),
        }],
    )
}

/// The seed's five-message conversation ending on a test failure.
pub fn seed_five() -> Vec<Message> {
    vec![
        text(0, Role::User, "add a retry to fetch_rows in store.py"),
        calls(1, &[("c1", "cat store.py")]),
        result(
            2,
            "c1",
            "def fetch_rows(conn, q):\n    cur = conn.cursor()\n",
        ),
        calls(3, &[("c2", "pytest -q")]),
        result(
            4,
            "c2",
            "1 failed: test_retry - AssertionError: expected 3 attempts",
        ),
    ]
}

/// One assistant turn issuing three parallel calls, then their three responses.
pub fn seed_parallel() -> Vec<Message> {
    vec![
        text(0, Role::User, "check the three modules"),
        calls(
            1,
            &[("p1", "cat a.py"), ("p2", "cat b.py"), ("p3", "cat c.py")],
        ),
        result(2, "p1", "a"),
        result(3, "p2", "b"),
        result(4, "p3", "c"),
    ]
}

/// The most recent user ask falls inside a K = 3 tail.
pub fn seed_dup() -> Vec<Message> {
    vec![
        text(0, Role::User, "read store.py"),
        text(1, Role::Assistant, "Done."),
        text(2, Role::User, "now add a retry"),
        calls(3, &[("d1", "cat store.py")]),
        result(4, "d1", "def fetch_rows(): ..."),
    ]
}
