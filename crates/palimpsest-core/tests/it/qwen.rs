//! Qwen Code (fixtures/README.md, `qwen/`): a recording replayed as the CLI rebuilds the
//! history it resumes with: fragments of an answer joined, the active branch followed (a
//! rewind takes what it cut off from the model and the user), each `chat_compression` a cut
//! whose summary and thanks the model got and whose kept tail is the stored messages its new
//! history ends with, a sub-agent's side chain a child session, the harness's state records
//! no messages; its files never read as Claude Code transcripts.

use std::path::PathBuf;

use palimpsest_core::model::{Part, Role, Session, SourceFormat, Trigger};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::qwen::{CHILD, PROJECT, WORKER};

fn chats() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/qwen/projects")
        .join(PROJECT)
        .join("chats")
}

fn load(id: &str) -> Session {
    api::load_session(&chats(), Some(id)).expect("the fixture session loads")
}

#[test]
fn the_chats_folder_lists_each_recording_with_its_title_parent_and_window() {
    let (metas, problems) = sources::open(&chats()).unwrap().list();
    assert!(
        problems.is_empty(),
        "every file is a recording: {problems:?}"
    );
    let mut got: Vec<String> = metas
        .iter()
        .map(|m| {
            format!(
                "{} window={:?} cwd={:?}",
                super::listing::line(m),
                m.context_limit,
                m.working_dir
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            format!(
                "{WORKER} qwen-code \"Retry in fetch_rows\" parent=None messages=25 cuts=2 \
                 model=Some(\"qwen3-coder-plus\") window=Some(1000000) cwd=Some(\"/work/shop\")"
            ),
            format!(
                "{WORKER}:explore-7f3c qwen-code \"Find every caller of fetch_rows.\" \
                 parent=Some(\"{WORKER}\") messages=2 cuts=0 model=None window=None cwd=Some(\"/work/shop\")"
            ),
            format!(
                "{CHILD} qwen-code \"List the callers of fetch_rows.\" parent=Some(\"{WORKER}\") \
                 messages=2 cuts=0 model=Some(\"qwen3-coder-flash\") window=None cwd=Some(\"/work/shop\")"
            ),
        ],
        "named by the title record, else the first ask; the spawned session under its parent; \
         the sub-agent's side chain a child of the session; the model's window from the answers"
    );
    for m in &metas {
        assert_eq!(
            m.format,
            SourceFormat::QwenCode,
            "{}: never a Claude transcript",
            m.id
        );
    }
}

#[test]
fn compressions_cut_and_a_rewind_takes_messages_from_everyone() {
    let s = load(WORKER);
    let shape: Vec<String> = s
        .iter()
        .map(|m| {
            format!(
                "{} {:?} {:?} {}{}",
                m.index,
                m.role,
                m.kind,
                if m.agent_visible { "M" } else { "-" },
                if m.user_visible { "U" } else { "-" }
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            "0 User Ordinary -U",
            "1 Assistant Ordinary -U",
            "2 Tool Ordinary -U",
            "3 Assistant Ordinary -U",
            "4 Tool Ordinary -U",
            "5 Assistant Ordinary -U",
            "6 Tool Ordinary -U",
            "7 User Ordinary -U",
            "8 Assistant Ordinary -U",
            "9 System Notification -U",
            "10 User Summary --",
            "11 Assistant Continuation --",
            "12 System Notification -U",
            "13 User Ordinary --",
            "14 Assistant Ordinary --",
            "15 System Notification -U",
            "16 User Ordinary MU",
            "17 Assistant Ordinary MU",
            "18 Tool Ordinary MU",
            "19 Assistant Ordinary MU",
            "20 User Summary M-",
            "21 Assistant Continuation M-",
            "22 System Notification -U",
            "23 User Ordinary MU",
            "24 Assistant Ordinary MU",
        ],
        "/compress (9) kept the last turn (7-8) and brought a snapshot and the thanks (10-11), \
         which the second compression dropped; the rewound turn (13-14) is gone from both views; \
         the sub-agent's side chain, the telemetry and the title records are no messages of it"
    );
    let cuts: Vec<_> = s
        .compactions
        .iter()
        .map(|c| {
            (
                c.cut_index,
                c.summary_index,
                c.kept.clone(),
                c.trigger,
                c.pre_tokens,
                c.post_tokens,
            )
        })
        .collect();
    assert_eq!(
        cuts,
        [
            (
                10,
                Some(10),
                vec![7, 8],
                Some(Trigger::Manual),
                Some(9_860),
                Some(1_120)
            ),
            (
                20,
                Some(20),
                vec![16, 17, 18, 19],
                Some(Trigger::Auto),
                Some(7_400),
                Some(1_900)
            ),
        ],
        "each cut at its snapshot; the tail its new history kept (never the previous thanks, \
         the same words); /compress just before is manual; the recorded token counts"
    );
}

#[test]
fn an_answer_written_in_fragments_is_one_message_with_the_last_usage() {
    let s = load(WORKER);
    let a = &s.messages[1];
    let parts: Vec<String> = a
        .parts
        .iter()
        .map(|p| match p {
            Part::Thinking { text, .. } => format!("thinking {text}"),
            Part::ToolCall { id, name, .. } => format!("call {id} {name}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        (
            a.role,
            parts,
            a.usage.len(),
            a.usage[0].input,
            a.usage[0].output,
            a.usage[0].cache_read
        ),
        (
            Role::Assistant,
            vec![
                "thinking Read the file first.".to_owned(),
                "call c-read-1 read_file".to_owned()
            ],
            1,
            4_100,
            52,
            0
        ),
        "the thought, then the call; the prompt count less the cached part is input, thoughts \
         are output"
    );
    let result = s.messages[2].parts.iter().find_map(|p| match p {
        Part::ToolResult {
            call_id,
            text,
            is_error,
            ..
        } => Some((
            call_id.clone(),
            text.text().starts_with("import time"),
            *is_error,
        )),
        _ => None,
    });
    assert_eq!(
        (s.messages[2].role, result),
        (Role::Tool, Some(("c-read-1".to_owned(), true, false))),
        "a tool_result record is the tool message the model got"
    );
}

#[test]
fn a_sub_agent_side_chain_is_a_child_session_the_model_of_the_session_never_saw() {
    let s = load(&format!("{WORKER}:explore-7f3c"));
    let got: Vec<(Role, bool, bool, String)> = s
        .iter()
        .map(|m| (m.role, m.agent_visible, m.user_visible, m.text()))
        .collect();
    assert_eq!(
        got,
        [
            (
                Role::User,
                true,
                true,
                "Find every caller of fetch_rows.".to_owned()
            ),
            (
                Role::Assistant,
                true,
                true,
                "fetch_rows is called from app.py:12 and jobs.py:40.".to_owned()
            ),
        ],
        "the sub-agent's own conversation, whole"
    );
    let rewound = &load(WORKER).messages[13];
    assert_eq!(
        rewound
            .detail("branch")
            .and_then(|b| b.as_str().map(str::to_owned)),
        Some("inactive".to_owned()),
        "a rewound record is marked as Claude Code's rewound branches are"
    );
}
