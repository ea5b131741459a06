//! OpenCode and Kilo Code (fixtures/README.md, `opencode/`, `kilo/`): each answer's steps become
//! an assistant message and its tool results, a compaction keeps the tail its part names (or
//! nothing, for a build that kept none) and hides the rest from the model, a pruned output is a
//! microcompact of the calls it names, a `task` call links its child session, and a failed
//! request and a row cut short are shown, never sent, never fatal.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{LinkKind, MessageKind, Role, Session, SourceFormat};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::opencode::{CHILD, KILO, OLD, WORKER};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn load(path: &Path, id: &str) -> Session {
    api::load_session(path, Some(id)).expect("the fixture session loads")
}

/// Each message as `index role kind seen`, `seen` being `M` (the model) and `U` (the user).
fn shape(s: &Session) -> Vec<String> {
    s.iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            };
            let kind = match m.kind {
                MessageKind::Ordinary => "",
                MessageKind::Summary => " summary",
                MessageKind::Continuation => " continuation",
                MessageKind::Notification => " notification",
                MessageKind::PreservedCopy => " copy",
                MessageKind::ToolSummary => " tool-summary",
            };
            let seen = format!(
                "{}{}",
                if m.agent_visible { "M" } else { "-" },
                if m.user_visible { "U" } else { "-" }
            );
            format!("{} {role}{kind} {seen}", m.index)
        })
        .collect()
}

#[test]
fn the_data_folder_lists_every_session_with_its_parent_and_counts() {
    let (metas, problems) = sources::open(&fixture("opencode")).unwrap().list();
    assert!(problems.is_empty(), "lists without problems: {problems:?}");
    let got: Vec<String> = metas.iter().map(super::listing::line).collect();
    assert_eq!(
        got,
        [
            format!(
                "{WORKER} opencode \"Add a retry to fetch_rows\" parent=None messages=16 cuts=2 model=Some(\"claude-sonnet-4-5\")"
            ),
            format!(
                "{OLD} opencode \"Fix the import\" parent=None messages=9 cuts=1 model=Some(\"claude-sonnet-4-5\")"
            ),
            format!(
                "{CHILD} opencode \"find callers (@explore subagent)\" parent=Some(\"{WORKER}\") messages=2 cuts=0 model=Some(\"claude-sonnet-4-5\")"
            ),
        ],
        "most recently updated first; stored messages and summaries counted from message rows; \
         the model of the latest answer that reads"
    );
    let (kilo, _) = sources::open(&fixture("kilo/kilo.db")).unwrap().list();
    assert_eq!(
        kilo.iter()
            .map(|m| (m.id.as_str(), m.format))
            .collect::<Vec<_>>(),
        vec![(KILO, SourceFormat::Kilo)],
        "a kilo.db is Kilo Code's, read by the same reader"
    );
}

#[test]
fn steps_become_messages_and_each_compaction_keeps_its_tail() {
    let s = load(&fixture("opencode"), WORKER);
    let mut want: Vec<String> = Vec::new();
    let mut add = |from: usize, rows: &[&str]| {
        for (i, r) in rows.iter().enumerate() {
            want.push(format!("{} {r}", from + i));
        }
    };
    // The first turn's answer: three steps, two with a call and its result.
    let turn = ["assistant", "tool", "assistant", "tool", "assistant"];
    add(0, &["user"]);
    add(1, &turn);
    add(6, &["user"]);
    add(7, &turn);
    add(12, &["user", "assistant", "tool", "assistant"]);
    add(
        16,
        &[
            "user notification",
            "assistant summary",
            "user continuation",
        ],
    );
    add(
        19,
        &[
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ],
    );
    add(26, &["user", "assistant", "tool", "assistant"]);
    add(
        30,
        &[
            "user notification",
            "assistant summary",
            "user",
            "assistant",
            "tool",
            "assistant",
        ],
    );
    let seen = |i: usize| match i {
        18 => "--",
        0..=29 => "-U",
        _ => "MU",
    };
    let want: Vec<String> = want
        .into_iter()
        .enumerate()
        .map(|(i, w)| format!("{w} {}", seen(i)))
        .collect();
    assert_eq!(
        shape(&s),
        want,
        "after the manual compaction (no tail) the model sees it, its summary and what follows; \
         the synthetic continue is the harness's, not shown as the user's"
    );
    let cuts: Vec<String> = s
        .compactions
        .iter()
        .map(|c| {
            format!(
                "{} {:?} summary={:?} kept={:?}",
                c.cut_index, c.trigger, c.summary_index, c.kept
            )
        })
        .collect();
    assert_eq!(
        cuts,
        [
            "16 Some(Auto) summary=Some(17) kept=[12, 13, 14, 15]",
            "30 Some(Manual) summary=Some(31) kept=[]",
            "30 Some(Micro) summary=None kept=[]",
        ],
        "the auto compaction keeps its tail (the last turn, from `tail_start_id`); the manual \
         one keeps nothing; the prune is in force from the first message written after it"
    );
    assert_eq!(
        s.compactions[2].cleared_calls(),
        ["toolu_r2", "toolu_b4"],
        "the prune names the calls whose outputs it cleared"
    );
    assert_eq!(
        (s.compactions[0].pre_tokens, s.compactions[0].post_tokens),
        (Some(23_562), Some(10_303)),
        "before: the last answer's whole usage (OpenCode's overflow count); after: the next \
         request's prompt"
    );
    let u = &s.messages[1].usage;
    assert_eq!(
        (
            u.len(),
            u[0].input,
            u[0].output,
            u[0].cache_read,
            u[0].cache_write
        ),
        (1, 3, 60, 0, 12_400),
        "each step carries its own step-finish tokens"
    );
    let task = &s.messages[21];
    assert_eq!(
        task.links
            .iter()
            .map(|l| (l.kind, l.session.as_deref()))
            .collect::<Vec<_>>(),
        vec![(LinkKind::Subagent, Some(CHILD))],
        "the task call links the child session it ran"
    );
    assert_eq!(
        s.meta.message_count, 36,
        "a loaded session counts its model messages"
    );
}

#[test]
fn a_build_without_tails_a_failed_request_and_a_cut_row() {
    let s = load(&fixture("opencode"), OLD);
    let shapes = shape(&s);
    assert_eq!(
        &shapes[8..],
        [
            "8 tool -U",
            "9 user notification MU",
            "10 assistant summary MU",
            "11 user MU",
            "12 assistant -U",
            "13 system --",
        ],
        "the model sees from the compaction on; the failed request is shown, never sent; the \
         row cut short is neither"
    );
    assert_eq!(
        (
            s.compactions.len(),
            s.compactions[0].cut_index,
            s.compactions[0].kept.len()
        ),
        (1, 9, 0),
        "a compaction part without `tail_start_id` keeps no tail"
    );
    let db = fixture("opencode/opencode.db");
    assert_eq!(
        s.messages[13].error.as_deref(),
        Some(
            format!(
                "{}: row 27: message msg_7a1c0e2f40030009: EOF while parsing a value at line 1 column 38",
                db.display()
            )
            .as_str()
        ),
        "the error names the file, the row and the message"
    );
}

#[test]
fn the_raw_view_is_the_stored_message_and_its_parts() {
    let path = fixture("opencode");
    let (catalog, id) = (sources::open(&path).unwrap(), WORKER);
    let raw = catalog.sources[0]
        .raw(id, 2)
        .unwrap()
        .expect("a stored message");
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        (
            v["id"].as_str(),
            v["data"]["role"].as_str(),
            v["parts"].as_array().map(Vec::len)
        ),
        (Some("msg_7a1c0e2f40010002"), Some("assistant"), Some(10)),
        "a tool result's raw view is its answer's row with all its parts"
    );
}

#[test]
fn a_truncated_tool_output_is_a_spill_file_found_in_the_data_folder() {
    use palimpsest_core::analysis::review::ReviewOptions;
    use palimpsest_core::analysis::{SpillKind, SpillStatus, review_spills};
    let s = load(&fixture("opencode"), CHILD);
    let r = review_spills(&s, &ReviewOptions::default());
    let got: Vec<_> = r
        .spills
        .iter()
        .map(|e| {
            (
                e.message_index,
                e.kind,
                e.status,
                e.size_bytes,
                e.omitted_bytes,
                e.resolved
                    .as_deref()
                    .map(|p| p.ends_with("/opencode/tool-output/tool_9a1c0e2f4002Gq7ZfXk2Lm")),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![(
            Some(2),
            SpillKind::OpenCodeToolOutput,
            SpillStatus::Present,
            Some(121_758),
            Some(70_586),
            Some(true)
        )],
        "the explore agent's grep kept 50 KB and named the whole, saved in tool-output/ of the \
         data folder, by the recording machine's path"
    );
}

#[test]
fn a_pruned_output_is_listed_with_the_spills_kept_in_the_session() {
    use palimpsest_core::analysis::review::ReviewOptions;
    use palimpsest_core::analysis::{SpillKind, SpillStatus, review_spills};
    let s = load(&fixture("opencode"), WORKER);
    let r = review_spills(&s, &ReviewOptions::default());
    let got: Vec<_> = r
        .spills
        .iter()
        .map(|e| {
            (
                e.message_index,
                e.call_index,
                e.tool.as_deref(),
                e.kind,
                e.status,
                e.size_bytes,
                e.path.is_none(),
                e.head.as_str(),
            )
        })
        .collect();
    let stub = "[Old tool result content cleared]";
    assert_eq!(
        got,
        [
            (
                Some(20),
                Some(19),
                Some("read"),
                SpillKind::Pruned,
                SpillStatus::Stored,
                Some(80),
                true,
                stub
            ),
            (
                Some(24),
                Some(23),
                Some("bash"),
                SpillKind::Pruned,
                SpillStatus::Stored,
                Some(24 - 4),
                true,
                stub
            ),
        ],
        "each output the prune cleared, at the message keeping it whole, the model's stub as \
         what it saw; no file to open"
    );
    assert_eq!((r.stored, r.present, r.not_saved), (2, 0, 0));
}
