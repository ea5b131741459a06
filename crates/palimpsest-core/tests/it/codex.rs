//! Codex reader on the generated rollouts in fixtures/codex (see fixtures/README.md):
//! both compaction styles, an unanswered call, a damaged file, listing and the raw view.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{MessageKind, Part, Role, Session, View};
use palimpsest_core::sources;

const REMOTE: &str = "019c8f0a-0000-7000-8000-00000000a001";
const LOCAL: &str = "019c8f0a-0000-7000-8000-00000000a002";
const UNANSWERED: &str = "019c8f0a-0000-7000-8000-00000000a003";
const DAMAGED: &str = "019c8f0a-0000-7000-8000-00000000a004";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex")
}

fn load(id: &str) -> Session {
    let r = root();
    sources::open(&r).unwrap().load(&r, Some(id)).unwrap()
}

fn indices<'a>(it: impl Iterator<Item = &'a palimpsest_core::model::Message>) -> Vec<usize> {
    it.map(|m| m.index).collect()
}

#[test]
fn remote_compaction_replaces_the_history() {
    let s = load(REMOTE);
    assert_eq!(
        s.messages.len(),
        13,
        "8 response items, 4 replacement items, 1 item after"
    );
    assert_eq!(
        indices(s.view(View::Agent)),
        vec![8, 9, 10, 11, 12],
        "only the replacement history and what follows reach the model"
    );
    let c = &s.compactions[..];
    assert_eq!(c.len(), 1, "one compacted item");
    assert_eq!(
        (c[0].cut_index, c[0].summary_index, c[0].kept.clone()),
        (8, Some(11), vec![8, 9, 10]),
        "cut before the replacement items; the encrypted item is the summary, the rest kept copies"
    );
    assert_eq!(
        c[0].pre_tokens,
        Some(251_000),
        "last_token_usage.total_tokens of the token_count before the cut"
    );
    assert_eq!(s.messages[11].kind, MessageKind::Summary, "opaque summary");
    assert!(
        matches!(&s.messages[11].parts[0], Part::Other { original_type, raw }
            if original_type == "compaction" && raw["encrypted_content_bytes"] == 29),
        "the encrypted compaction is shown as an opaque part with its size"
    );
    assert_eq!(
        s.messages[8].kind,
        MessageKind::PreservedCopy,
        "replacement messages are copies"
    );
    assert_eq!(s.meta.context_limit, Some(258_400), "model_context_window");
    let u = s.meta.usage.as_ref().unwrap();
    assert_eq!(
        (
            u.total_tokens,
            u.accumulated_total_tokens,
            u.cache_read_tokens
        ),
        (Some(30_000), Some(761_000), Some(15_000)),
        "usage from the last token_count"
    );
    assert_eq!(
        s.meta.model.as_deref(),
        Some("gpt-5.3-codex"),
        "from turn_context"
    );
}

#[test]
fn local_compaction_keeps_recent_prompts_and_the_summary() {
    let s = load(LOCAL);
    assert_eq!(
        s.meta.id, LOCAL,
        "the id comes from session_meta, not the renamed file"
    );
    assert_eq!(
        indices(s.view(View::Agent)),
        vec![2, 7, 8, 9],
        "the earlier prompt is carried over, the summary then the new turn follow"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (c.cut_index, c.summary_index, c.kept.clone(), c.pre_tokens),
        (7, Some(7), vec![2], Some(200_000)),
        "a local compaction's summary is the cut"
    );
    assert!(
        s.messages[7]
            .text()
            .starts_with("Another language model started"),
        "the summary text is the compacted message"
    );
    match &s.messages[4].parts[0] {
        Part::ToolResult { text, is_error, .. } => assert_eq!(
            (&*text.text(), *is_error),
            ("# Changelog\n", false),
            "a JSON-in-string shell output is unwrapped; exit code 0 is success"
        ),
        p => panic!("expected a tool result, got {p:?}"),
    }
    assert!(
        matches!(&s.messages[5].parts[0], Part::ToolCall { name, arguments, .. }
            if name == "apply_patch" && arguments.value().as_str().is_some_and(|a| a.starts_with("*** Begin Patch"))),
        "a custom tool call keeps its free-text input"
    );
}

#[test]
fn unanswered_call_is_kept_as_it_is() {
    let s = load(UNANSWERED);
    let calls: Vec<(&str, serde_json::Value)> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolCall { id, arguments, .. } => Some((id.as_str(), arguments.value())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2, "two calls");
    assert_eq!(
        calls[0].1["cmd"], "cargo test --workspace",
        "arguments are parsed from their JSON string"
    );
    let answered: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        answered,
        vec!["call_u2"],
        "call_u1 has no output and none is invented"
    );
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::System,
            Role::User,
            Role::User,
            Role::Assistant,
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ],
        "the resume (developer note, new prompt) follows the unanswered call"
    );
    assert!(s.compactions.is_empty(), "no compaction here");
}

#[test]
fn damaged_rollout_reports_the_bad_line_and_loads_the_rest() {
    let s = load(DAMAGED);
    assert_eq!(
        s.messages.len(),
        5,
        "2 context items, prompt, error row, reply; unfinished last line skipped"
    );
    let err = s.messages[3].error.as_deref().unwrap();
    assert!(
        err.contains("rollout-2026-02-24T13-00-00") && err.contains(".jsonl:6: not valid JSON"),
        "error names file and line 6: {err}"
    );
    assert_eq!(s.messages[4].text(), "Hi there.", "the rest loads");
}

#[test]
fn listing_reads_ids_and_counts_without_parsing() {
    let (mut metas, problems) = sources::open(&root()).unwrap().list();
    assert!(problems.is_empty(), "every rollout lists");
    metas.sort_by(|a, b| a.id.cmp(&b.id));
    let got: Vec<(&str, usize, usize)> = metas
        .iter()
        .map(|m| (m.id.as_str(), m.message_count, m.compaction_count))
        .collect();
    assert_eq!(
        got,
        vec![
            (REMOTE, 9, 1),
            (LOCAL, 9, 1),
            (UNANSWERED, 9, 0),
            (DAMAGED, 5, 0)
        ],
        "message lines (response_item) and compacted lines counted from line sketches"
    );
    assert_eq!(
        metas[0].name, "Port the parser to streaming.",
        "named by the first prompt"
    );
}

#[test]
fn raw_of_a_replacement_item_is_its_compacted_line() {
    let r = root();
    let catalog = sources::open(&r).unwrap();
    let src = catalog
        .sources
        .iter()
        .find(|s| s.list().unwrap()[0].id == REMOTE)
        .unwrap();
    let raw = src.raw(REMOTE, 9).unwrap().unwrap();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        v["type"], "compacted",
        "replacement items come from the compacted line"
    );
    let raw0 = src.raw(REMOTE, 2).unwrap().unwrap();
    assert!(
        raw0.contains("Port the parser to streaming."),
        "an ordinary item's raw is its own line"
    );
}

#[test]
fn a_real_rollout_is_titled_by_its_request_not_its_markdown_wrapper() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/real/codex/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl",
    );
    let listed = sources::open(&f).unwrap().list().0;
    let loaded = palimpsest_core::api::load_session(&f, None).unwrap();
    let want = "我需要按照行业最佳实践来完成这个项目 比如TDD 比如DDD 比如 FailFast 遵守SOLID 原则 最大化我们项目的可维护性, 保证架构清洁 You *";
    assert_eq!(
        listed[0].name, want,
        "the `## User Input` heading and the ```text fence are dropped from the title"
    );
    assert_eq!(
        loaded.meta.name, want,
        "listing and loading give the same title"
    );
}
