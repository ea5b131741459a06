//! Claude Code's view edits without a compact boundary, read exactly: content replacements swap
//! tool results for stubs, context-collapse commits replace one span by its summary, a reset
//! undoes the collapses in force, and a commit whose span is not in the file says so. On the
//! `views` fixture (fixtures/README.md) and on transcripts written line by line.

use std::path::PathBuf;

use palimpsest_core::compaction::Eras;
use palimpsest_core::model::{Part, Session, Trigger};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::claude::Transcript;
use palimpsest_fixtures::claude_views::{VIEWS_ID, VIEWS_PROJECT};
use serde_json::{Value, json};

fn views_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../fixtures/claude/projects/{VIEWS_PROJECT}/{VIEWS_ID}.jsonl"
    ))
}

fn views() -> Session {
    api::load_session(&views_path(), None).expect("the views fixture loads")
}

fn result_text(s: &Session, index: usize) -> (String, Value) {
    s.messages[index]
        .parts
        .iter()
        .find_map(|p| match p {
            Part::ToolResult { text, raw, .. } => Some((text.text().into_owned(), raw.value())),
            _ => None,
        })
        .expect("a tool result")
}

/// The stored indices of what the model sees next.
fn seen(s: &Session) -> Vec<usize> {
    s.messages
        .iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect()
}

#[test]
fn every_view_edit_is_a_cut_of_its_kind() {
    let s = views();
    type Span = Option<(usize, usize)>;
    let cuts: Vec<(usize, Option<Trigger>, Span)> = s
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.trigger, c.archived))
        .collect();
    assert_eq!(
        cuts,
        vec![
            (5, Some(Trigger::Replacement), None),
            (12, Some(Trigger::Collapse), Some((7, 11))),
            (17, Some(Trigger::Replacement), None),
            (26, Some(Trigger::Collapse), Some((20, 25))),
            (28, Some(Trigger::Auto), None),
            (36, Some(Trigger::Collapse), Some((32, 35))),
        ],
        "two replacements and three collapses at their records, the compaction at its boundary; \
         each collapse archives the span its first/last uuids name"
    );
    let json = serde_json::to_value(&s.compactions[0]).unwrap();
    assert_eq!(
        json["trigger"], "replacement",
        "compactions --json names a replacement so"
    );
    assert_eq!(
        serde_json::to_value(&s.compactions[1]).unwrap()["trigger"],
        "collapse",
        "and a collapse so"
    );
}

#[test]
fn the_model_sees_the_last_summary_and_the_collapse_after_it() {
    let s = views();
    let seen = seen(&s);
    assert_eq!(
        seen,
        vec![29, 31, 36, 37],
        "after the compaction: its summary, the user's turn, collapse 3's summary in place of \
         the span it archived (32-35), and the last answer"
    );
    let d = s.messages[33].details.as_ref().unwrap().value();
    assert_eq!(
        d["collapsed"], "3",
        "an archived message names its collapse"
    );
    assert_eq!(
        s.messages[36].text(),
        "<collapsed id=\"3\">Compared the page URLs of both builds: identical (1 500 pages).</collapsed>",
        "the summary row holds summaryContent as the model receives it"
    );
    assert!(
        !s.messages[36].user_visible,
        "the user's transcript shows the span, not the summary"
    );
}

#[test]
fn a_request_after_a_commit_sees_its_summary_instead_of_its_span() {
    let s = views();
    let eras = Eras::new(&s);
    // Message 11 answered the last request of span 1; message 13 the first after commit 1.
    assert_eq!(
        eras.context_at(11),
        vec![0, 1, 2, 3, 4, 6, 7, 8, 9, 10],
        "before the commit the span (7-10) was in the context, and no summary yet"
    );
    assert_eq!(
        eras.context_at(13),
        vec![0, 1, 2, 3, 4, 6, 12],
        "after it: everything outside the span, then collapse 1's summary"
    );
    assert_eq!(
        eras.context_at(27),
        vec![0, 1, 2, 3, 4, 6, 12, 13, 14, 15, 16, 18, 19, 26],
        "before the compaction: both collapse summaries, neither span"
    );
}

#[test]
fn a_replacement_swaps_the_result_for_its_stub_and_keeps_the_original() {
    let s = views();
    let (text, raw) = result_text(&s, 4);
    assert!(
        text.starts_with("<persisted-output>\nOutput too large (89.4KB). Full output saved to: "),
        "the model receives the stub; got {:?}",
        &text[..60.min(text.len())]
    );
    let stored = raw["content"].as_str().unwrap_or("");
    assert_eq!(
        stored.lines().count(),
        1500,
        "the stored result, all 1 500 lines of the build log, is kept for the inspector"
    );
    assert_eq!(
        s.messages[4].details.as_ref().unwrap().value()["replaced"],
        json!(["toolu_0003"]),
        "the message names the call whose result was replaced"
    );
    // The second record names its block by message uuid and block index.
    let (grep_text, _) = result_text(&s, 16);
    assert!(
        grep_text.starts_with("<persisted-output>"),
        "a block named by messageUuid + blockIndex is replaced too"
    );
    let raw17 = s.compactions[2].raw.as_ref().unwrap();
    assert_eq!(
        raw17["replacements"][0]["toolUseId"], "toolu_0013",
        "the record gets the call id of the block it names, so the cut lists that result"
    );
}

#[test]
fn the_listing_counts_what_the_load_finds() {
    let catalog = sources::open(&views_path()).unwrap();
    let (metas, problems) = catalog.list();
    assert!(problems.is_empty(), "the fixture lists without problems");
    let s = views();
    assert_eq!(
        (metas[0].message_count, metas[0].compaction_count),
        (s.messages.len(), 6),
        "listing without parsing counts the rows and the six cuts the load finds"
    );
    assert_eq!(
        s.messages.len(),
        38,
        "38 rows: messages, the two replacement notices, three summaries and the reset"
    );
}

fn load_lines(lines: &[Value]) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("11111111-2222-4333-8444-555555555555.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    api::load_session(&path, None).unwrap()
}

#[test]
fn a_reset_brings_the_span_back_and_takes_the_summary_away() {
    let mut t = Transcript::new("s");
    t.user("Tidy the imports.");
    let first = t.next_uuid();
    t.tool("Read", json!({"file_path": "/a.py"}), "import os\n", 1_000);
    let last = t.last_uuid();
    t.record(
        json!({"type": "marble-origami-commit", "sessionId": "s", "collapseId": "9",
        "summaryUuid": "u9", "summaryContent": "<collapsed id=\"9\">Read a.py.</collapsed>",
        "summary": "Read a.py.", "firstArchivedUuid": first, "lastArchivedUuid": last}),
    );
    t.say("Done reading.", 1_200);
    t.record(json!({"type": "marble-origami-reset", "sessionId": "s", "reason": "rewind"}));
    t.say("Back to the imports.", 1_300);
    let s = load_lines(&t.lines);
    let seen = seen(&s);
    assert_eq!(
        seen,
        vec![0, 1, 2, 4, 6],
        "the reset undid the collapse: the call and result (1, 2) are back, the summary (3) \
         and the reset row (5) are not in the model's view"
    );
    assert_eq!(
        s.messages[3].details.as_ref().unwrap().value()["collapse_reset"],
        5,
        "the summary row says which reset ended it"
    );
}

#[test]
fn a_commit_whose_span_is_not_in_the_file_drops_nothing_and_says_so() {
    let mut t = Transcript::new("s");
    t.user("Go on.");
    t.say("Going on.", 1_000);
    t.record(
        json!({"type": "marble-origami-commit", "sessionId": "s", "collapseId": "4",
        "summaryUuid": "u4", "summaryContent": "<collapsed id=\"4\">Earlier work.</collapsed>",
        "summary": "Earlier work.", "firstArchivedUuid": "gone-1", "lastArchivedUuid": "gone-2"}),
    );
    let s = load_lines(&t.lines);
    assert!(
        s.messages[..2].iter().all(|m| m.agent_visible),
        "nothing is taken from view"
    );
    assert_eq!(
        s.messages[2].error.as_deref(),
        Some(
            "line 3: marble-origami-commit \"4\": the archived span (gone-1 … gone-2) is not in this \
             file, so nothing is taken from view"
        ),
        "the row names its line, its collapse and the uuids it could not find"
    );
    assert_eq!(s.compactions[0].archived, None, "the cut archives no span");
}

#[test]
fn partial_cuts_are_no_compaction_thrash() {
    let s = views();
    let d = palimpsest_core::analysis::diagnose(&s, &palimpsest_core::analysis::Options::default());
    assert!(
        d.thrash.is_empty(),
        "a collapse or replacement frees part of the context by design: no thrash; got {:?}",
        d.thrash
    );
    let usable: Vec<(usize, bool)> = d
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.usable))
        .collect();
    assert_eq!(
        usable,
        vec![
            (5, false),
            (12, true),
            (17, false),
            (26, true),
            (28, true),
            (36, true)
        ],
        "replacements write no summary; the collapses' one-line summaries are not judged as \
         compaction summaries"
    );
    assert_ne!(
        d.severity,
        palimpsest_core::analysis::Severity::Stuck,
        "nothing here is stuck; verdict: {}",
        d.verdict
    );
}
