//! Gemini CLI (fixtures/README.md, `gemini/`): a recording replayed as the CLI reloads it, with
//! what it forgets kept: upserted records read at their latest version, a compression (a
//! `$set.messages` that drops messages and brings the state snapshot) is a cut keeping what the
//! new history kept, a rewind takes messages from the model and the user, a sub-agent's
//! recording is a child of the session whose folder holds it, and the legacy `.json` record
//! reads as the same messages.

use std::path::PathBuf;

use palimpsest_core::model::{MessageKind, Role, Session, Trigger};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::gemini::{LEGACY, PROJECT, SUBAGENT, WORKER};

fn chats() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/gemini/tmp")
        .join(PROJECT)
        .join("chats")
}

fn load(id: &str) -> Session {
    api::load_session(&chats(), Some(id)).expect("the fixture session loads")
}

#[test]
fn the_chats_folder_lists_each_recording_and_the_sub_agent_under_its_parent() {
    let (metas, problems) = sources::open(&chats()).unwrap().list();
    assert!(
        problems.is_empty(),
        "every file is a recording: {problems:?}"
    );
    let mut got: Vec<String> = metas.iter().map(super::listing::line).collect();
    got.sort();
    let pro = "Some(\"gemini-2.5-pro\")";
    assert_eq!(
        got,
        [
            format!(
                "{WORKER} gemini-cli \"Retry in fetch_rows\" parent=None messages=18 cuts=1 model={pro}"
            ),
            format!(
                "{SUBAGENT} gemini-cli \"Find every caller of fetch_rows.\" parent=Some(\"{WORKER}\") messages=4 cuts=0 model={pro}"
            ),
            format!(
                "{LEGACY} gemini-cli \"explain store.py\" parent=None messages=4 cuts=0 model={pro}"
            ),
        ],
        "named by the summary the CLI set, else the first ask; the sub-agent under the session \
         whose folder holds it"
    );
}

#[test]
fn a_compression_is_a_cut_and_a_rewind_takes_messages_from_everyone() {
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
        shape[7..],
        [
            "7 User Ordinary MU",
            "8 Assistant Ordinary MU",
            "9 User Summary M-",
            "10 Assistant Continuation M-",
            "11 System Notification -U",
            "12 User Ordinary --",
            "13 Assistant Ordinary --",
            "14 User Ordinary MU",
            "15 Assistant Ordinary MU",
            "16 Tool Ordinary MU",
            "17 Assistant Ordinary MU",
        ],
        "the compression kept the last turn (7-8) and brought the snapshot and the thanks; the \
         CLI's notice is the user's; the rewound turn (12-13) is gone from both views"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (
            s.compactions.len(),
            c.cut_index,
            c.summary_index,
            c.kept.clone(),
            c.trigger
        ),
        (1, 9, Some(9), vec![7, 8], Some(Trigger::Auto)),
        "one cut, at the state snapshot, keeping the turn the new history kept"
    );
    let answer = &s.messages[1];
    assert_eq!(
        (
            answer.usage.len(),
            answer.usage[0].input,
            answer.usage[0].cache_read,
            answer.usage[0].output
        ),
        (1, 4_100, 0, 52),
        "the record at its latest version: the tokens that came last, thoughts counted as output"
    );
    let result = s.messages[2].parts.iter().find_map(|p| match p {
        palimpsest_core::model::Part::ToolResult { call_id, text, .. } => {
            Some((call_id.clone(), text.text().starts_with("import time")))
        }
        _ => None,
    });
    assert_eq!(
        (s.messages[2].role, result),
        (Role::Tool, Some(("c-read-1".to_owned(), true))),
        "a call's result follows its answer as a tool message, its output as the model got it"
    );
}

#[test]
fn the_legacy_record_reads_as_the_same_messages() {
    let s = load(LEGACY);
    let kinds: Vec<(Role, MessageKind)> = s.iter().map(|m| (m.role, m.kind)).collect();
    assert_eq!(
        kinds,
        [
            (Role::User, MessageKind::Ordinary),
            (Role::Assistant, MessageKind::Ordinary),
            (Role::Tool, MessageKind::Ordinary),
            (Role::Assistant, MessageKind::Ordinary),
        ],
        "a whole-file .json record: its messages in order, the call's result after its answer"
    );
}

/// The JSON of line `n` (1-based) of the worker's recording.
fn line(n: usize) -> serde_json::Value {
    let file = std::fs::read_dir(chats())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("the worker's recording");
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().nth(n - 1).unwrap()).unwrap()
}

#[test]
fn the_raw_view_reads_a_record_at_its_latest_version_again_from_the_file() {
    let s = load(WORKER);
    let raw = |i: usize| -> serde_json::Value {
        let text = api::raw_message(&chats(), WORKER, i)
            .unwrap()
            .expect("a stored record");
        serde_json::from_str(&text).unwrap()
    };
    // `m2` is written three times as its calls run (lines 3 to 5): the raw view is the last.
    let answer = s
        .iter()
        .position(|m| m.id.as_deref() == Some("m2"))
        .unwrap();
    assert_eq!(raw(answer), line(5));
    // Its calls' results share its id and its record.
    assert_eq!(raw(answer + 1), line(5));
    // The state snapshot a compression brought is an entry of its `$set.messages` (line 10).
    let summary = s
        .iter()
        .position(|m| m.kind == MessageKind::Summary)
        .unwrap();
    let id = s.messages[summary].id.clone().unwrap();
    let brought = line(10)["$set"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id.as_str())
        .cloned()
        .unwrap();
    assert_eq!(raw(summary), brought);
    // A legacy `.json` recording: the message's entry in its `messages`.
    let legacy = chats().join("session-2026-10-05T17-30-3c7e9a1b.json");
    let whole: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&legacy).unwrap()).unwrap();
    let text = api::raw_message(&legacy, LEGACY, 0).unwrap().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        whole["messages"][0]
    );
}
