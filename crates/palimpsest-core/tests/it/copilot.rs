//! GitHub Copilot CLI (fixtures/README.md, `copilot/`): events become the model's messages; a
//! background compaction keeps what it did not remove from the conversation as it started and
//! the messages sent while it ran; a failed one changes nothing; a truncation drops the oldest
//! messages without a summary; a sub-agent's events are a child session linked from the call
//! that ran it; an unknown event is an invisible row and a line still being written is left
//! out.

use std::path::PathBuf;

use palimpsest_core::model::{LinkKind, Session, Trigger};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::copilot::{TRUNCATED, WORKER};
use palimpsest_fixtures::copilot_legacy::LEGACY;

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot")
}

fn load(id: &str) -> Session {
    api::load_session(&folder(), Some(id)).expect("the fixture session loads")
}

/// Which messages the model sees at the end.
fn seen(s: &Session) -> Vec<usize> {
    s.iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect()
}

#[test]
fn the_state_folder_lists_each_session_and_its_sub_agent() {
    let (metas, problems) = sources::open(&folder()).unwrap().list();
    assert!(
        problems.is_empty(),
        "the workspace files are the harness's, not problems: {problems:?}"
    );
    let mut got: Vec<String> = metas
        .iter()
        .map(|m| format!("{} cwd={:?}", super::listing::line(m), m.working_dir))
        .collect();
    got.sort();
    let cwd = "Some(\"/work/shop\")";
    assert_eq!(
        got,
        [
            format!(
                "{WORKER} copilot-cli \"add a retry to fetch_rows in store.py\" parent=None messages=24 cuts=2 model=Some(\"claude-sonnet-4.5\") cwd={cwd}"
            ),
            format!(
                "{WORKER}:explore-1 copilot-cli \"explore (sub-agent)\" parent=Some(\"{WORKER}\") messages=4 cuts=0 model=Some(\"claude-haiku-4.5\") cwd={cwd}"
            ),
            format!(
                "{TRUNCATED} copilot-cli \"explain store.py\" parent=None messages=6 cuts=1 model=Some(\"claude-sonnet-4.5\") cwd={cwd}"
            ),
            format!(
                "{LEGACY} copilot-cli \"fix the failing test in store.py\" parent=None messages=14 cuts=0 model=Some(\"claude-sonnet-4\") cwd=None"
            ),
        ],
        "a session per folder (named by its first ask), its sub-agent a child named by its \
         agent; the model of the latest answer; an older build's session file beside them"
    );
}

#[test]
fn an_older_builds_session_file_is_its_chat_messages_dated_by_its_timeline() {
    let s = load(LEGACY);
    let rows: Vec<String> = s
        .iter()
        .map(|m| {
            format!(
                "{} {:?} {}{} {}",
                m.index,
                m.role,
                if m.agent_visible { "M" } else { "-" },
                if m.user_visible { "U" } else { "-" },
                m.created
                    .map_or(0, |t| (t - s.meta.created.unwrap()) / 1000)
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "0 System MU 0",
            "1 User MU 0",
            "2 Assistant MU 4",
            "3 Tool MU 6",
            "4 Assistant MU 10",
            "5 Tool MU 12",
            "6 System -U 13",
            "7 Assistant MU 16",
            "8 Tool MU 18",
            "9 Assistant MU 22",
            "10 Tool MU 24",
            "11 System -- 24",
            "12 System -U 25",
            "13 Assistant MU 30",
        ],
        "the chat messages as the model got them, each dated by its timeline entry (a call by \
         its request, a result by its completion); the timeline's notices shown, not sent, at \
         their time; a message whose role nobody knows shown as an error row"
    );
    let file = folder().join(format!("history-session-state/{LEGACY}.json"));
    assert_eq!(
        s.messages[11].error.as_deref(),
        Some(
            format!(
                "{}: chatMessages[10]: unknown role `critic`",
                file.display()
            )
            .as_str()
        )
    );
    let d = palimpsest_core::analysis::diagnose(&s, &Default::default());
    assert_eq!(
        (
            d.exploration.write_calls,
            d.rereads.len(),
            d.compactions.len()
        ),
        (1, 1, 0),
        "the calls are paired and classified: one edit, one file read, no compaction"
    );
    let raw = sources::open(&file).unwrap().sources[0]
        .raw(LEGACY, 6)
        .unwrap()
        .expect("a timeline entry");
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["id"].as_str()),
        (Some("info"), Some("tl-13"))
    );
}

#[test]
fn the_older_builds_folder_is_a_default_location() {
    let home = tempfile::tempdir().unwrap();
    let legacy = home.path().join(".copilot/history-session-state");
    palimpsest_fixtures::copy_tree(&folder().join("history-session-state"), &legacy, &[]).unwrap();
    let (metas, problems) = sources::open(&legacy).unwrap().list();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        metas.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        [LEGACY]
    );
    let found = sources::discovery::default_locations(Some(home.path()), &|_: &str| None);
    assert!(found.iter().any(|(_, p)| *p == legacy), "{found:?}");
}

#[test]
fn a_background_compaction_keeps_what_it_did_not_remove_and_what_came_meanwhile() {
    let s = load(WORKER);
    let c = &s.compactions;
    let got: Vec<String> = c
        .iter()
        .map(|c| {
            format!(
                "{} {:?} summary={:?} applied={:?} kept={:?} {:?}→{:?}",
                c.cut_index,
                c.trigger,
                c.summary_index,
                c.applied_index,
                c.kept,
                c.pre_tokens,
                c.post_tokens
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "8 Some(Auto) summary=Some(10) applied=Some(10) kept=[5, 6, 7] Some(108700)→Some(14900)",
            "19 Some(Manual) summary=Some(20) applied=Some(20) kept=[] Some(21300)→Some(2100)",
        ],
        "the threshold compaction started at 8 and took effect at its summary (10): the oldest \
         5 of the 8 messages it started with went; the failed manual one (17-18) left no \
         record; the next one removed all 10"
    );
    let answered_by = |i: usize| {
        (1..)
            .map_while(|n| api::request_context(&s, n, None).ok())
            .find(|c| c.answer_index == Some(i))
            .map(|c| c.indices)
    };
    assert_eq!(
        answered_by(11),
        Some(vec![5, 6, 7, 9, 10]),
        "the request after the first compaction: what it kept, the ask sent while it ran and \
         its summary (listed in stored order)"
    );
    assert_eq!(
        seen(&s),
        [20, 21, 22, 23],
        "the model sees the last summary and what follows"
    );
    assert_eq!(
        (s.messages[16].agent_visible, s.messages[16].user_visible),
        (false, false),
        "an event type nobody knows is kept as an invisible row"
    );
    assert_eq!(
        s.messages[18].text(),
        "Compaction failed: compaction request failed: 503",
        "a failed compaction says why, to the user only"
    );
    let task = &s.messages[13];
    assert_eq!(
        task.links
            .iter()
            .map(|l| (l.kind, l.session.clone()))
            .collect::<Vec<_>>(),
        vec![(LinkKind::Subagent, Some(format!("{WORKER}:explore-1")))],
        "the task call links the sub-agent's session"
    );
    assert!(
        s.messages[0].text().starts_with("<current_datetime>"),
        "a user message is what the model got (the transformed text)"
    );
}

#[test]
fn a_truncation_drops_the_oldest_messages_without_a_summary() {
    let s = load(TRUNCATED);
    assert_eq!(
        s.messages.len(),
        6,
        "the line still being written is left out"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (
            c.cut_index,
            c.summary_index,
            c.kept.clone(),
            c.raw.as_ref().map(|r| r["trimmed"].clone())
        ),
        (4, None, vec![3], Some(serde_json::json!(true))),
        "3 of the 4 messages went; nothing summarises them"
    );
    assert_eq!(c.trigger, Some(Trigger::Auto));
    assert_eq!(
        seen(&s),
        [3, 5],
        "the model keeps the last answer and the next ask"
    );
}

#[test]
fn a_compactions_checkpoint_is_a_spill_file_of_its_summary() {
    let s = load(WORKER);
    let links: Vec<(usize, LinkKind, String)> = s
        .iter()
        .flat_map(|m| {
            m.links
                .iter()
                .filter(|l| l.kind != LinkKind::Subagent)
                .map(move |l| (m.index, l.kind, l.path.clone()))
        })
        .collect();
    assert_eq!(
        links,
        vec![(
            10,
            LinkKind::SpillFile,
            format!("/home/dev/.copilot/session-state/{WORKER}/checkpoints/001-retry.md")
        )],
        "the checkpoint as recorded, on the summary; the manual /compact saved none"
    );
}
