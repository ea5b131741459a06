//! Edit diffs and Markdown on the real sessions of `fixtures/real`: Claude Code `Edit` calls
//! and Codex `shell ["apply_patch", …]` calls come out as the diffs Python's `difflib` (for
//! old → new strings) and a count of the patch's own `+`/`-` lines give; a message and a cut
//! copied as Markdown hold what the window shows.

use std::path::{Path, PathBuf};

use palimpsest_core::analysis::edits::{EditDiff, EditOp};
use palimpsest_core::api;
use palimpsest_core::model::{Part, Session};
use palimpsest_core::rpc::MarkdownOf;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real")
        .join(rel)
}

const CLAUDE: &str = "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

fn codex() -> PathBuf {
    let dir = data("codex");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("the Codex rollout of fixtures/real")
}

/// The message holding tool call `call_id`, and its edits.
fn edits_of_call(s: &Session, call_id: &str) -> (usize, Vec<EditDiff>) {
    let m = s
        .messages
        .iter()
        .find(|m| {
            m.parts
                .iter()
                .any(|p| matches!(p, Part::ToolCall { id, .. } if id == call_id))
        })
        .unwrap_or_else(|| panic!("call {call_id} is in the session"));
    let d = api::message_detail(Path::new("x"), s, m.index, false).unwrap();
    (m.index, d.edits)
}

fn summary(d: &[EditDiff]) -> Vec<(String, EditOp, u32, u32, usize)> {
    d.iter()
        .map(|e| {
            let name = e.path.rsplit('/').next().unwrap_or("").to_owned();
            (name, e.op, e.added, e.removed, e.hunks.len())
        })
        .collect()
}

#[test]
fn claude_edits_match_difflib() {
    let s = api::load_session(&data(CLAUDE), None).unwrap();
    // Three parallel Edit calls in one message (transcript lines 103, 107, 108). Expected
    // numbers: difflib.unified_diff(old.splitlines(), new.splitlines(), n=3), lines +/- and @@.
    let (index, d) = edits_of_call(&s, "toolu_01JPL5vAoTHHbKA7AEixmzrt");
    assert_eq!(index, 23, "the message the window shows as #23");
    assert_eq!(
        summary(&d),
        [
            ("annotation.ex".to_owned(), EditOp::Edit, 23, 5, 3),
            ("message.ex".to_owned(), EditOp::Edit, 2, 0, 1),
            ("transcripts.ex".to_owned(), EditOp::Edit, 1, 0, 1),
        ],
        "each Edit's added/removed lines and hunks as difflib counts them"
    );
    assert_eq!(
        d.iter().map(|e| e.part).collect::<Vec<_>>(),
        [1, 2, 3],
        "each diff names its tool call's part (after the text part)"
    );
}

#[test]
fn codex_apply_patch_through_shell_matches_the_patch() {
    let s = api::load_session(&codex(), None).unwrap();
    // Rollout line 78: one Update File, 104 `+` and 37 `-` lines in two @@ sections.
    let (_, d) = edits_of_call(&s, "call_VZ9LNUf43itfsvoP1qsNHJuc");
    assert_eq!(
        summary(&d),
        [("constitution.md".to_owned(), EditOp::Edit, 104, 37, 2)],
        "the patch's own line counts"
    );
    // Line 92: four @@ sections, 5 added and 4 removed.
    let (_, d) = edits_of_call(&s, "call_YKjUCHwfg8nItFwC9IU9Yc5J");
    assert_eq!(
        summary(&d),
        [("tasks-template.md".to_owned(), EditOp::Edit, 5, 4, 4)],
        "every section of the patch is a hunk"
    );
}

#[test]
fn a_message_and_a_cut_as_markdown() {
    let s = api::load_session(&data(CLAUDE), None).unwrap();
    let md = api::markdown(&s, MarkdownOf::Message(23), None).unwrap();
    assert!(
        md.starts_with("### #23 · assistant · 2026-02-11 20:37:32 UTC\n\n_hidden from the model; the user sees it_\n"),
        "heading with index, role, time, then both visibility marks: {}",
        &md[..200.min(md.len())]
    );
    assert_eq!(
        md.matches("```diff\n--- ").count(),
        3,
        "each Edit is a diff block, not a JSON wall"
    );
    assert!(
        md.contains("\n+        :session_id,\n"),
        "the added lines carry their sign"
    );

    let cut = api::markdown(&s, MarkdownOf::Cut(0), None).unwrap();
    assert!(
        cut.starts_with("## Cut 1 · auto · at #229\n\nContext 167094 (recorded) → 33960 (recorded) tokens, 229 → 1 messages.\n"),
        "the cut's heading and recorded tokens: {}",
        &cut[..200.min(cut.len())]
    );
    assert_eq!(
        cut.lines().filter(|l| l.starts_with("- #")).count(),
        229,
        "one line per dropped message"
    );
    let summary = api::markdown(&s, MarkdownOf::Summary(0), None).unwrap();
    let text = s.messages[230].parts.iter().find_map(|p| match p {
        Part::Text { text } => Some(text.trim_end()),
        _ => None,
    });
    assert!(
        summary.contains(text.unwrap()),
        "the summary's text, whole, as the model receives it"
    );
    assert_eq!(
        api::markdown(&s, MarkdownOf::Cut(1), None)
            .unwrap_err()
            .to_string(),
        "session `258c7280-ae70-4798-800f-63464d01a85d` has no cut 2 (it holds 1)",
        "a cut the session does not hold is named"
    );
}
