//! The message-log reader on the generated fixtures (fixtures/message-log): OpenAI and
//! Anthropic shapes, the interchange's hints and compaction record, links, tolerance, the
//! claim rule against other agents' files, listing and raw text.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{LinkKind, Part, Session, Trigger};
use palimpsest_core::sources::message_log::{self, Dialect, MessageLogSource, detect_dialect};
use palimpsest_core::sources::{Probe, SessionSource};
use serde_json::{Value, json};

fn fixture(rel: &str) -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/message-log"
    ))
    .join(rel)
}

fn load(rel: &str) -> Session {
    let p = fixture(rel);
    let id = p.file_stem().unwrap().to_string_lossy().into_owned();
    MessageLogSource::new(&p, rel.ends_with(".jsonl"))
        .load(&id)
        .unwrap_or_else(|e| panic!("{rel} loads: {e}"))
}

fn shape(s: &Session) -> Vec<String> {
    s.messages
        .iter()
        .map(|m| {
            let role = serde_json::to_value(m.role).unwrap();
            let kind = serde_json::to_value(m.kind).unwrap();
            let parts: Vec<&str> = m.parts.iter().map(Part::type_name).collect();
            format!(
                "{}/{}/{}{} {}",
                role.as_str().unwrap(),
                kind.as_str().unwrap(),
                if m.agent_visible { "M" } else { "-" },
                if m.user_visible { "U" } else { "-" },
                parts.join("+")
            )
        })
        .collect()
}

fn claims(path: &Path) -> bool {
    let head = std::fs::read(path).unwrap();
    let probe = Probe {
        path,
        is_dir: false,
        head: &head,
    };
    message_log::claim(&probe).is_some()
}

#[test]
fn openai_chat_array() {
    let s = load("openai-chat.json");
    assert_eq!(
        shape(&s),
        [
            "system/ordinary/M- text",
            "user/ordinary/MU text+image",
            "assistant/ordinary/MU tool_call",
            "tool/ordinary/MU tool_result",
            "assistant/ordinary/MU tool_call+tool_call",
            "tool/ordinary/MU tool_result",
            "tool/ordinary/MU tool_result",
            "assistant/ordinary/MU text",
        ],
        "one message per element; null content adds no part"
    );
    assert_eq!(
        s.messages[2].parts[0],
        Part::ToolCall {
            id: "call_abc".into(),
            name: "get_weather".into(),
            arguments: json!({"city": "Paris"}).into()
        },
        "string arguments are parsed"
    );
    assert!(
        matches!(&s.messages[6].parts[0], Part::ToolResult { call_id, is_error: true, .. } if call_id == "call_ghi"),
        "a JSON `error` result is an error"
    );
    assert!(
        matches!(&s.messages[3].parts[0], Part::ToolResult { is_error: false, text, .. } if text == "18C, cloudy"),
        "plain result"
    );
    assert!(
        s.messages[5].links.is_empty(),
        "`full text not saved` names no file"
    );
    assert!(s.compactions.is_empty(), "no compaction in a plain log");
    let values: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixture("openai-chat.json")).unwrap())
            .unwrap();
    assert_eq!(
        detect_dialect(&values, false),
        Dialect::OpenAi,
        "OpenAI shape detected"
    );
}

#[test]
fn anthropic_messages_document() {
    let s = load("anthropic-messages.json");
    assert_eq!(
        shape(&s),
        [
            "system/ordinary/M- text",
            "user/ordinary/MU text",
            "assistant/ordinary/MU thinking+text+tool_call",
            "user/ordinary/MU tool_result+text",
            "assistant/ordinary/MU text",
        ],
        "top-level system becomes message 0; blocks become parts in order"
    );
    assert_eq!(s.messages[0].text(), "You are terse.", "system text");
    assert!(
        matches!(&s.messages[3].parts[0], Part::ToolResult { call_id, text, is_error: false, .. } if call_id == "toolu_01A" && text == "18C, cloudy"),
        "tool_result block text joined from its text blocks"
    );
    assert_eq!(
        s.meta.model.as_deref(),
        Some("claude-sonnet-4-5"),
        "document's model key"
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("anthropic-messages.json")).unwrap())
            .unwrap();
    assert_eq!(
        detect_dialect(doc["messages"].as_array().unwrap(), true),
        Dialect::Anthropic,
        "Anthropic shape detected"
    );
}

#[test]
fn harness_log_honours_hints_and_its_compaction_record() {
    let s = load("harness-compaction.jsonl");
    assert_eq!(
        shape(&s),
        [
            "system/ordinary/M- text",
            "user/ordinary/MU text", // pinned: agent_visible hint beats the cut
            "assistant/ordinary/-U tool_call",
            "tool/ordinary/-U tool_result",
            "assistant/ordinary/-U text",
            "user/ordinary/-- text", // user_visible hint; before the cut
            "user/summary/MU text",  // kind hint; the cut lands here
            "assistant/notification/-U text",
            "system/ordinary/-- other", // malformed line 10
            "assistant/ordinary/MU text",
        ],
        "the unfinished last line is left out"
    );
    let c = &s.compactions;
    assert_eq!(c.len(), 1, "one explicit record");
    assert_eq!(
        (
            c[0].cut_index,
            c[0].summary_index,
            c[0].trigger,
            c[0].pre_tokens,
            c[0].post_tokens
        ),
        (6, Some(6), Some(Trigger::Auto), Some(150000), Some(12000)),
        "cut defaults to where the record sits; the summary there is its summary"
    );
    assert_eq!(
        s.messages[3]
            .links
            .iter()
            .map(|l| (l.kind, l.path.as_str()))
            .collect::<Vec<_>>(),
        [(LinkKind::SpillFile, "/srv/agent/spill/0001-read_file.txt")],
        "the cap marker's spill file"
    );
    assert_eq!(
        s.messages[6]
            .links
            .iter()
            .map(|l| (l.kind, l.path.as_str()))
            .collect::<Vec<_>>(),
        [(
            LinkKind::Transcript,
            "/srv/agent/transcripts/compacted-transcript-upto-0006.md"
        )],
        "the block's transcript file"
    );
    let err = s.messages[8].error.as_deref().unwrap();
    assert!(
        err.starts_with(&format!(
            "{}:10: not valid JSON",
            fixture("harness-compaction.jsonl").display()
        )),
        "error names file and line: {err}"
    );
    assert_eq!(
        s.messages[1].created,
        Some(1_788_170_400_000),
        "RFC 3339 timestamp"
    );
}

#[test]
fn explicit_cut_index_kept_and_unrecorded_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.jsonl");
    std::fs::write(
        &p,
        [
            json!({"role": "user", "content": "a"}),
            json!({"role": "assistant", "content": "b"}),
            json!({"role": "user", "content": "c"}),
            json!({"compaction": {"cut_index": 2, "trigger": "manual", "kept": [2]}}),
            json!({"role": "user", "content": "<compacted-history>\nS\n</compacted-history>"}),
        ]
        .iter()
        .map(|v| v.to_string() + "\n")
        .collect::<String>(),
    )
    .unwrap();
    let s = MessageLogSource::new(&p, true).load("log").unwrap();
    // (cut, summary, trigger, kept) of each record.
    type Rec = (usize, Option<usize>, Option<Trigger>, Vec<usize>);
    let recs: Vec<Rec> = s
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.summary_index, c.trigger, c.kept.clone()))
        .collect();
    assert_eq!(
        recs,
        vec![
            (2, None, Some(Trigger::Manual), vec![2]),
            (3, Some(3), None, vec![])
        ],
        "explicit cut kept as written; a compacted block with no record gets one"
    );
    let vis: Vec<bool> = s.messages.iter().map(|m| m.agent_visible).collect();
    assert_eq!(
        vis,
        [false, false, false, true],
        "the latest cut (3) hides what precedes it"
    );
}

#[test]
fn claim_rule_takes_logs_and_leaves_other_agents_files() {
    for f in [
        "openai-chat.json",
        "anthropic-messages.json",
        "harness-compaction.jsonl",
    ] {
        assert!(claims(&fixture(f)), "{f} is a message log");
    }
    for f in [
        "claude-like.jsonl",
        "codex-like.jsonl",
        "goose-legacy-like.jsonl",
    ] {
        assert!(
            !claims(&fixture(&format!("foreign/{f}"))),
            "{f} belongs to another reader"
        );
    }
}

#[test]
fn listing_matches_loading_and_raw_is_the_stored_line() {
    let p = fixture("harness-compaction.jsonl");
    let src = MessageLogSource::new(&p, true);
    let meta = &src.list().unwrap()[0];
    let s = src.load("harness-compaction").unwrap();
    assert_eq!(
        (
            meta.message_count,
            meta.compaction_count,
            meta.name.as_str()
        ),
        (
            s.meta.message_count,
            s.meta.compaction_count,
            "Port utils.py to Rust."
        ),
        "listing counts what loading finds"
    );
    let line8 = std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .nth(7)
        .unwrap()
        .to_owned();
    assert_eq!(
        src.raw("harness-compaction", 6).unwrap(),
        Some(line8),
        "message 6 is line 8 (after the record line)"
    );
    let doc = MessageLogSource::new(&fixture("anthropic-messages.json"), false);
    assert_eq!(
        doc.raw("anthropic-messages", 0).unwrap().as_deref(),
        Some("\"You are terse.\""),
        "system key's value"
    );
}
