//! Hand-built sessions for the unit tests: seed 000's five-message conversation and what
//! upstream goose's compactor leaves of it. Shared by every crate's unit tests.
#![allow(missing_docs)]

use serde_json::json;

use crate::model::{
    CompactionRecord, Message, MessageKind, Part, Role, Session, SourceFormat, Trigger,
};

pub const ASK: &str = "add a retry to fetch_rows in store.py";

pub fn text(i: usize, role: Role, t: &str) -> Message {
    Message::new(i, role, vec![Part::Text { text: t.into() }])
}

pub fn call(i: usize, id: &str, cmd: &str) -> Message {
    Message::new(
        i,
        Role::Assistant,
        vec![Part::ToolCall {
            id: id.into(),
            name: "shell".into(),
            arguments: json!({ "cmd": cmd }).into(),
        }],
    )
}

pub fn result(i: usize, id: &str, out: &str) -> Message {
    Message::new(
        i,
        Role::User,
        vec![Part::ToolResult {
            call_id: id.into(),
            text: out.into(),
            is_error: false,
            raw: json!(out).into(),
        }],
    )
}

/// seed-five: ask, cat call, file, pytest call, failure.
pub fn seed_five() -> Vec<Message> {
    vec![
        text(0, Role::User, ASK),
        call(1, "c1", "cat store.py"),
        result(2, "c1", "def fetch_rows(conn, q):\n    cur = conn.cursor()"),
        call(3, "c2", "pytest -q"),
        result(
            4,
            "c2",
            "1 failed: test_retry - AssertionError: expected 3 attempts, got 1",
        ),
    ]
}

pub fn session(messages: Vec<Message>, compactions: Vec<CompactionRecord>) -> Session {
    Session::in_memory("t", SourceFormat::Goose, messages, compactions)
}

pub fn seed_five_session() -> Session {
    session(seed_five(), Vec::new())
}

pub fn record(cut: usize, summary: Option<usize>, trigger: Trigger) -> CompactionRecord {
    CompactionRecord {
        cut_index: cut,
        trigger: Some(trigger),
        pre_tokens: None,
        post_tokens: None,
        post_tokens_from_usage: false,
        summary_index: summary,
        kept: Vec::new(),
        raw: None,
        applied_index: None,
        archived: None,
    }
}

pub fn with_kind(mut m: Message, kind: MessageKind) -> Message {
    m.kind = kind;
    m
}

/// Upstream goose, auto compaction of seed-five: originals hidden, then summary, the tool-loop
/// continuation and a copy of the ask (the last text-only user message).
pub fn compacted_seed_five() -> Session {
    let mut msgs = seed_five();
    for m in &mut msgs {
        m.agent_visible = false;
    }
    let mut summary = with_kind(
        text(5, Role::User, "<mock summary of conversation>"),
        MessageKind::Summary,
    );
    summary.user_visible = false;
    let mut cont = with_kind(
        text(
            6,
            Role::Assistant,
            "Your context was compacted. The previous message contains a summary of the conversation so far.",
        ),
        MessageKind::Continuation,
    );
    cont.user_visible = false;
    msgs.push(summary);
    msgs.push(cont);
    msgs.push(with_kind(
        text(7, Role::User, ASK),
        MessageKind::PreservedCopy,
    ));
    session(msgs, vec![record(5, Some(5), Trigger::Auto)])
}
