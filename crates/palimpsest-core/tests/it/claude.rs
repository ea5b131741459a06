//! Claude Code reader on the real transcripts in fixtures/real/claude-code (and small inputs
//! written here for shapes the real data lacks: bad lines, rewinds, microcompaction).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::model::{LinkKind, MessageKind, Part, Session, Trigger, View};
use palimpsest_core::sources::claude::{ClaudeSource, load_file};
use palimpsest_core::sources::{self, SessionSource};

const AUTO: &str = "258c7280-ae70-4798-800f-63464d01a85d";
const MANUAL: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code")
        .join(name)
}

fn load(id: &str) -> Session {
    let file = data(&format!("{id}.jsonl"));
    sources::open(&file).unwrap().load(&file, Some(id)).unwrap()
}

/// (tool calls, tool results, results whose call id matches exactly one call)
fn pairing(s: &Session) -> (usize, usize, usize) {
    let mut calls: HashMap<&str, usize> = HashMap::new();
    let mut results = Vec::new();
    for p in s.messages.iter().flat_map(|m| &m.parts) {
        match p {
            Part::ToolCall { id, .. } => *calls.entry(id).or_default() += 1,
            Part::ToolResult { call_id, .. } => results.push(call_id.as_str()),
            _ => {}
        }
    }
    let paired = results
        .iter()
        .filter(|id| calls.get(*id) == Some(&1))
        .count();
    (calls.values().sum(), results.len(), paired)
}

#[test]
fn auto_compacted_transcript_imports_cleanly() {
    let s = load(AUTO);
    assert!(
        s.messages.iter().all(|m| m.error.is_none()),
        "the real file has no bad line, so no error row"
    );
    assert_eq!(
        pairing(&s),
        (186, 186, 186),
        "186 tool_use blocks, 186 tool_result blocks, each result answering exactly one call"
    );
    assert_eq!(
        s.messages.len(),
        349,
        "192 user + 152 API responses (299 assistant lines merged by message.id) + 5 system lines"
    );
    assert_eq!(s.compactions.len(), 1, "exactly one compact_boundary");
    let c = &s.compactions[0];
    assert_eq!(
        c.trigger,
        Some(Trigger::Auto),
        "compactMetadata.trigger is auto"
    );
    assert_eq!(c.pre_tokens, Some(167_094), "compactMetadata.preTokens");
    assert_eq!(
        (c.post_tokens, c.post_tokens_from_usage),
        (Some(33_960), true),
        "2.1.39 writes no postTokens: the first request after the boundary (line 1261) recorded \
         3 input + 21 460 cache reads + 12 497 cache writes"
    );
    assert_eq!(c.cut_index, 229, "the boundary (line 1256) is message 229");
    assert_eq!(
        c.summary_index,
        Some(230),
        "the summary follows its boundary"
    );
    assert_eq!(
        s.messages[230].kind,
        MessageKind::Summary,
        "isCompactSummary makes a summary message"
    );
    assert!(
        s.messages[..229].iter().all(|m| !m.agent_visible),
        "everything before the boundary is gone from the model's context"
    );
    let agent: Vec<usize> = s.view(View::Agent).map(|m| m.index).collect();
    assert_eq!(
        agent.first(),
        Some(&230),
        "the agent view starts with the summary"
    );
    assert_eq!(
        agent.len(),
        115,
        "119 messages follow the boundary; 4 of them are system notices the model never gets"
    );
}

#[test]
fn manual_compacted_transcript_imports_cleanly() {
    let s = load(MANUAL);
    assert!(
        s.messages.iter().all(|m| m.error.is_none()),
        "no error rows"
    );
    assert_eq!(
        pairing(&s),
        (242, 242, 242),
        "242 tool_use / 242 tool_result, all paired by id"
    );
    assert_eq!(s.compactions.len(), 1, "exactly one compaction");
    let c = &s.compactions[0];
    assert_eq!(c.trigger, Some(Trigger::Manual), "/compact is manual");
    assert_eq!(c.pre_tokens, Some(142_431), "compactMetadata.preTokens");
    assert_eq!(
        (c.cut_index, c.summary_index),
        (290, Some(291)),
        "boundary then summary"
    );
    let echoes: Vec<usize> = s
        .messages
        .iter()
        .filter(|m| {
            m.kind == MessageKind::Notification && m.role == palimpsest_core::model::Role::User
        })
        .map(|m| m.index)
        .collect();
    assert_eq!(
        echoes,
        vec![293, 294],
        "the /compact command echo and its 'Compacted' output are notifications"
    );
    let boundary = &s.messages[290];
    assert_eq!(
        boundary
            .details
            .as_ref()
            .and_then(|d| d.get("logical_parent"))
            .and_then(|v| v.pointer("/found").and_then(|f| f.as_bool())),
        Some(true),
        "logicalParentUuid points at the turn_duration line before the boundary"
    );
    assert!(
        boundary.links.iter().any(
            |l| l.kind == LinkKind::Subagent && l.path.ends_with("agent-acompact-946d2b.jsonl")
        ),
        "the compactor's own run is linked from its compaction"
    );
    let task = s
        .messages
        .iter()
        .find(|m| !m.links.is_empty() && m.has_tool_call())
        .expect("the Task call carries a subagent link");
    assert!(
        task.links[0].path.ends_with("agent-aac57f5.jsonl"),
        "the Task call links to the subagent its result names (agentId aac57f5)"
    );
}

#[test]
fn listing_counts_without_parsing_match_the_load() {
    let file = data(&format!("{AUTO}.jsonl"));
    let catalog = sources::open(&file).unwrap();
    let (metas, problems) = catalog.list();
    assert!(
        problems.is_empty(),
        "listing the real file raises no problem"
    );
    let ids: Vec<(&str, Option<&str>, usize, usize)> = metas
        .iter()
        .map(|m| {
            (
                m.id.as_str(),
                m.parent_id.as_deref(),
                m.message_count,
                m.compaction_count,
            )
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            (AUTO, None, 349, 1),
            (
                "258c7280-ae70-4798-800f-63464d01a85d/agent-a881341",
                Some(AUTO),
                6,
                0
            ),
            (
                "258c7280-ae70-4798-800f-63464d01a85d/agent-acompact-fffbd0",
                Some(AUTO),
                4,
                0
            ),
        ],
        "the main session then its two subagent runs as children, with counts equal to a full load"
    );
    assert_eq!(
        metas[0].name, "Implement spotter-gqc",
        "named by the first prompt"
    );
    assert_eq!(
        metas[0].model.as_deref(),
        Some("claude-opus-4-6"),
        "model of the last response"
    );
}

#[test]
fn project_folder_lists_every_session_once() {
    let (metas, problems) = sources::open(&data("")).unwrap().list();
    assert!(problems.is_empty(), "no problem in the real folder");
    let mains = metas.iter().filter(|m| m.parent_id.is_none()).count();
    let children = metas.iter().filter(|m| m.parent_id.is_some()).count();
    assert_eq!(
        (mains, children),
        (5, 4),
        "five transcripts and four subagent files, none listed twice"
    );
}

#[test]
fn raw_returns_every_line_of_a_merged_response() {
    let file = data(&format!("{AUTO}.jsonl"));
    let src = ClaudeSource::new(&file, vec![file.clone()]);
    let s = src.load(AUTO).unwrap();
    let merged = s
        .messages
        .iter()
        .find(|m| {
            m.details
                .as_ref()
                .and_then(|d| d.get("lines"))
                .is_some_and(|l| l.as_array().is_some_and(|l| l.len() == 4))
        })
        .expect("some response spans four lines");
    let raw = src.raw(AUTO, merged.index).unwrap().unwrap();
    let lines: Vec<serde_json::Value> = raw
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "one stored line per content block");
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l.pointer("/message/id").and_then(|v| v.as_str()).unwrap())
        .collect();
    assert!(
        ids.iter().all(|i| *i == ids[0]),
        "all four lines are the same API response"
    );
}

fn write(lines: &[&str]) -> tempfile::NamedTempFile {
    write_with_tail(lines, "")
}

/// Lines with newlines, then `tail` without one (a line still being written).
fn write_with_tail(lines: &[&str], tail: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    write!(f, "{tail}").unwrap();
    f
}

const ENV: &str =
    r#""isSidechain":false,"sessionId":"s1","cwd":"/p","timestamp":"2026-01-01T00:00:00Z""#;

fn user(uuid: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"parentUuid":{parent},{ENV},"type":"user","message":{{"role":"user","content":"{text}"}},"uuid":"{uuid}"}}"#
    )
}

fn assistant(uuid: &str, parent: &str, id: &str, text: &str) -> String {
    format!(
        r#"{{"parentUuid":{parent},{ENV},"message":{{"id":"{id}","role":"assistant","content":[{{"type":"text","text":"{text}"}}],"usage":{{"input_tokens":1,"output_tokens":1}}}},"type":"assistant","uuid":"{uuid}"}}"#
    )
}

#[test]
fn bad_line_is_an_error_row_and_truncated_tail_is_ignored() {
    let a = user("u1", "null", "hi");
    let b = assistant("a1", r#""u1""#, "msg_1", "hello");
    let f = write_with_tail(&[&a, "{not json", &b], r#"{"parentUuid":"a1","type":"us"#);
    let s = load_file(f.path(), "s1", None).unwrap().session;
    assert_eq!(
        s.messages.len(),
        3,
        "prompt, error row, reply; the cut-off last line is skipped"
    );
    let err = s.messages[1].error.as_deref().unwrap();
    assert!(
        err.starts_with(&format!("{}:2: not valid JSON", f.path().display())),
        "the error names file and line: {err}"
    );
    assert!(
        matches!(&s.messages[1].parts[0], Part::Other { raw, .. } if raw == "{not json"),
        "the raw text is kept in an other part"
    );
    assert_eq!(s.messages[2].text(), "hello", "the rest still loads");
}

#[test]
fn rewound_branch_is_kept_but_hidden() {
    let f = write(&[
        &user("u1", "null", "first"),
        &assistant("a1", r#""u1""#, "msg_1", "one"),
        &user("u2", r#""a1""#, "abandoned"),
        &assistant("a2", r#""u2""#, "msg_2", "lost"),
        &user("u3", r#""a1""#, "edited"),
        &assistant("a3", r#""u3""#, "msg_3", "kept"),
    ]);
    let s = load_file(f.path(), "s1", None).unwrap().session;
    let agent: Vec<String> = s.view(View::Agent).map(|m| m.text()).collect();
    assert_eq!(
        agent,
        vec!["first", "one", "edited", "kept"],
        "the later sibling under a1 is the active branch"
    );
    let off = &s.messages[2];
    assert_eq!(
        off.details.as_ref().and_then(|d| d.get("branch")),
        Some(serde_json::json!("inactive")),
        "the abandoned branch is marked, not dropped"
    );
}

#[test]
fn microcompaction_clears_listed_results_but_keeps_them_stored() {
    let call = format!(
        r#"{{"parentUuid":"u1",{ENV},"message":{{"id":"msg_1","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"Read","input":{{}}}}]}},"type":"assistant","uuid":"a1"}}"#
    );
    let result = format!(
        r#"{{"parentUuid":"a1",{ENV},"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"file body"}}]}},"uuid":"r1"}}"#
    );
    let micro = format!(
        r#"{{"parentUuid":"r1",{ENV},"type":"system","subtype":"microcompact_boundary","content":"Context microcompacted","microcompactMetadata":{{"trigger":"auto","preTokens":5000,"tokensSaved":1200,"compactedToolIds":["t1"]}},"uuid":"m1"}}"#
    );
    let f = write(&[&user("u1", "null", "read it"), &call, &result, &micro]);
    let s = load_file(f.path(), "s1", None).unwrap().session;
    let c = &s.compactions[0];
    assert_eq!(
        (c.trigger, c.pre_tokens, c.post_tokens, c.cut_index),
        (Some(Trigger::Micro), Some(5000), Some(3800), 3),
        "a Micro record: preTokens, and preTokens minus tokensSaved after"
    );
    let r = &s.messages[2];
    assert!(r.agent_visible, "the message stays in context");
    match &r.parts[0] {
        Part::ToolResult { text, raw, .. } => {
            assert_eq!(
                text, "[Old tool result content cleared]",
                "the model now gets the placeholder"
            );
            assert_eq!(
                raw.value()["content"],
                "file body",
                "the stored result is kept in raw"
            );
        }
        p => panic!("expected a tool result, got {p:?}"),
    }
}

/// A line's `toolUseResult` (Claude Code's structured copy of a tool's output) is kept in the
/// message's details only when small; a bigger one becomes a size note, and the line itself
/// still has it whole. It was most of what a loaded session held.
#[test]
fn big_tool_use_results_are_left_in_the_line() {
    let file = data(&format!("{AUTO}.jsonl"));
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let s = load(AUTO);
    let (mut kept, mut noted) = (0, 0);
    for m in &s.messages {
        let Some(details) = &m.details else { continue };
        let Some(r) = details.get("toolUseResult") else {
            continue;
        };
        let line = details.value()["lines"][0].as_u64().unwrap() as usize;
        let stored: serde_json::Value = serde_json::from_str(&lines[line - 1]).unwrap();
        let whole = &stored["toolUseResult"];
        let size = whole.to_string().len();
        if r.get("omitted").is_some() {
            noted += 1;
            assert!(
                size > 1024,
                "message {}: a {size}-byte result is small enough to keep",
                m.index
            );
            assert!(
                r["approx_bytes"].as_u64().unwrap() > 1024,
                "message {}: the note gives the result's size",
                m.index
            );
        } else {
            kept += 1;
            assert_eq!(
                &r, whole,
                "message {}: a small result is kept as stored",
                m.index
            );
            assert!(
                size <= 1400,
                "message {}: a {size}-byte result kept",
                m.index
            );
        }
    }
    assert_eq!(
        (kept, noted),
        (85, 101),
        "the real transcript's 186 structured results: 85 kept whole, 101 left in their lines"
    );
}
