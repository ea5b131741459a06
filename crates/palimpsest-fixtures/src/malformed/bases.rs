//! The good session of each format the corpus damages. goose, Codex, coworker and message-log
//! bases come from this crate's own fixture generators (written to a scratch folder and read
//! back); the Claude Code base is written here, shaped like a real transcript: it opens with a
//! `queue-operation` and a `file-history-snapshot` record, makes a tool call, compacts (a
//! `compact_boundary` and the summary) and goes on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::Base;

/// The Claude base's session id (a uuid, as Claude names its files).
pub const CLAUDE_ID: &str = "0b6cdd3a-1b2c-4d5e-8f90-123456789abc";

/// Every base, one per format.
pub fn all() -> Result<Vec<Base>> {
    let scratch = std::env::temp_dir().join(format!(
        "palimpsest-corpus-bases-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&scratch)?;
    let out = build(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    out
}

fn read(p: &Path) -> Result<Vec<u8>> {
    std::fs::read(p).with_context(|| format!("read {}", p.display()))
}

fn build(scratch: &Path) -> Result<Vec<Base>> {
    crate::goose::generate(scratch)?;
    crate::codex::generate(scratch)?;
    crate::coworker::generate(scratch)?;
    crate::message_log::generate(scratch)?;
    crate::opencode::generate(scratch)?;
    crate::crush::generate(scratch)?;
    crate::copilot::generate(scratch)?;
    crate::gemini::generate(scratch)?;
    crate::qwen::generate(scratch)?;
    let qwen = format!("chats/{}.jsonl", crate::qwen::WORKER);
    let qwen_at = scratch
        .join("qwen/projects")
        .join(crate::qwen::PROJECT)
        .join(&qwen);
    let copilot = format!("session-state/{}/events.jsonl", crate::copilot::WORKER);
    let gemini = format!(
        "chats/session-2026-10-06T09-00-{}.jsonl",
        &crate::gemini::WORKER[..8]
    );
    let gemini_at = scratch
        .join("gemini/tmp")
        .join(crate::gemini::PROJECT)
        .join(&gemini);
    let legacy_name = "goose-compacted.jsonl";
    let codex_name = "rollout-2026-02-24T12-00-00-019c8f0a-0000-7000-8000-00000000a003.jsonl";
    let codex_day = scratch.join("codex/sessions/2026/02/24");
    let conv = scratch.join("coworker/state/conversations");
    let mut coworker_files = vec![(
        PathBuf::from("state/coworker.db"),
        read(&scratch.join("coworker/state/coworker.db"))?,
    )];
    for id in ["a1b2c3d4e5f6", "0ld5e55i0n01"] {
        coworker_files.push((
            PathBuf::from(format!("state/conversations/{id}.jsonl")),
            read(&conv.join(format!("{id}.jsonl")))?,
        ));
    }
    let claude = format!("projects/-home-u-proj/{CLAUDE_ID}.jsonl");
    Ok(vec![
        Base {
            format: "goose",
            files: vec![(
                PathBuf::from("sessions.db"),
                read(&scratch.join("goose/sessions.db"))?,
            )],
            main: PathBuf::from("sessions.db"),
            target: PathBuf::from("sessions.db"),
            session: Some("goose-compacted".into()),
        },
        Base {
            format: "goose-legacy",
            files: vec![(
                PathBuf::from(legacy_name),
                read(&scratch.join("goose/legacy").join(legacy_name))?,
            )],
            main: PathBuf::from(legacy_name),
            target: PathBuf::from(legacy_name),
            session: None,
        },
        Base {
            format: "claude",
            files: vec![(PathBuf::from(&claude), claude_transcript())],
            main: PathBuf::from(&claude),
            target: PathBuf::from(&claude),
            session: None,
        },
        Base {
            format: "codex",
            files: vec![(
                PathBuf::from(codex_name),
                read(&codex_day.join(codex_name))?,
            )],
            main: PathBuf::from(codex_name),
            target: PathBuf::from(codex_name),
            session: None,
        },
        Base {
            format: "coworker",
            files: coworker_files,
            main: PathBuf::from("state/conversations/a1b2c3d4e5f6.jsonl"),
            target: PathBuf::from("state"),
            session: Some("a1b2c3d4e5f6".into()),
        },
        Base {
            format: "message-log",
            files: vec![(
                PathBuf::from("harness-compaction.jsonl"),
                read(&scratch.join("message-log/harness-compaction.jsonl"))?,
            )],
            main: PathBuf::from("harness-compaction.jsonl"),
            target: PathBuf::from("harness-compaction.jsonl"),
            session: None,
        },
        Base {
            format: "opencode",
            files: vec![(
                PathBuf::from("opencode.db"),
                read(&scratch.join("opencode/opencode.db"))?,
            )],
            main: PathBuf::from("opencode.db"),
            target: PathBuf::from("opencode.db"),
            session: Some(crate::opencode::WORKER.into()),
        },
        Base {
            format: "crush",
            files: vec![(
                PathBuf::from(".crush/crush.db"),
                read(&scratch.join("crush/.crush/crush.db"))?,
            )],
            main: PathBuf::from(".crush/crush.db"),
            target: PathBuf::from(".crush/crush.db"),
            session: Some(crate::crush::WORKER.into()),
        },
        Base {
            format: "copilot",
            files: vec![(
                PathBuf::from(&copilot),
                read(&scratch.join("copilot").join(&copilot))?,
            )],
            main: PathBuf::from(&copilot),
            target: PathBuf::from(&copilot),
            session: Some(crate::copilot::WORKER.into()),
        },
        Base {
            format: "gemini",
            files: vec![(PathBuf::from(&gemini), read(&gemini_at)?)],
            main: PathBuf::from(&gemini),
            target: PathBuf::from(&gemini),
            session: None,
        },
        Base {
            format: "qwen",
            files: vec![(PathBuf::from(&qwen), read(&qwen_at)?)],
            main: PathBuf::from(&qwen),
            target: PathBuf::from(&qwen),
            session: None,
        },
    ])
}

fn envelope(
    uuid: &str,
    parent: Option<&str>,
    ts: &str,
    typ: &str,
) -> serde_json::Map<String, Value> {
    let v = json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": "/home/u/proj", "sessionId": CLAUDE_ID, "version": "2.1.39",
        "gitBranch": "main", "type": typ, "timestamp": ts, "uuid": uuid,
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("json! of an object"),
    }
}

fn with(mut m: serde_json::Map<String, Value>, extra: Value) -> Value {
    if let Value::Object(e) = extra {
        m.extend(e);
    }
    Value::Object(m)
}

/// A Claude Code transcript: 9 records, 7 of them messages, one auto compaction.
pub fn claude_transcript() -> Vec<u8> {
    let ts = |s: u32| format!("2026-02-10T21:{:02}:{:02}.000Z", 10 + s / 60, s % 60);
    let snapshot_body = "x".repeat(2000);
    let lines = vec![
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts(0),
               "sessionId": CLAUDE_ID, "content": "Fix the failing test in store.py"}),
        json!({"type": "file-history-snapshot", "messageId": "m0", "isSnapshotUpdate": false,
               "snapshot": {"messageId": "m0", "trackedFileBackups": {"store.py": snapshot_body}, "timestamp": ts(0)}}),
        with(
            envelope("u1", None, &ts(1), "user"),
            json!({"message": {"role": "user", "content": "Fix the failing test in store.py"}}),
        ),
        with(
            envelope("a1", Some("u1"), &ts(2), "assistant"),
            json!({"message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/home/u/proj/store.py"}}],
                    "usage": {"input_tokens": 1200, "output_tokens": 40, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}),
        ),
        with(
            envelope("u2", Some("a1"), &ts(3), "user"),
            json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                    "content": "def put(k, v):\n    store[k] = v\n"}]},
                    "toolUseResult": {"type": "text", "file": {"filePath": "/home/u/proj/store.py"}}}),
        ),
        with(
            envelope("a2", Some("u2"), &ts(4), "assistant"),
            json!({"message": {"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "The bug is in put: it never flushes."}],
                    "usage": {"input_tokens": 1500, "output_tokens": 20, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}),
        ),
        with(
            envelope("b1", None, &ts(5), "system"),
            json!({"logicalParentUuid": "a2", "subtype": "compact_boundary", "content": "Conversation compacted",
                    "isMeta": false, "level": "info", "compactMetadata": {"trigger": "auto", "preTokens": 1520}}),
        ),
        with(
            envelope("u3", Some("b1"), &ts(6), "user"),
            json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true,
                    "message": {"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe user asked to fix store.py; put never flushes."}}),
        ),
        with(
            envelope("a3", Some("u3"), &ts(7), "assistant"),
            json!({"message": {"id": "msg_03", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "Adding the flush now."}],
                    "usage": {"input_tokens": 300, "output_tokens": 10, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}),
        ),
    ];
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}
