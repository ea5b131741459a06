//! The app's cut view and request stepper data (`views::cuts`) on the committed
//! fixtures: three columns, what became of each file the dropped messages carried, and the
//! pairing findings of one request with both providers' texts.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::compaction::{Api, FindingKind};
use palimpsest_core::views::cuts::CutFileFate;

fn fixture(p: &str) -> PathBuf {
    PathBuf::from(format!("{}/../../fixtures/{p}", env!("CARGO_MANIFEST_DIR")))
}

const CODEX: &str = "codex/sessions";
const UNANSWERED: &str = "019c8f0a-0000-7000-8000-00000000a003";

#[test]
fn goose_compacted_cut_has_three_columns_and_store_py_only_in_prose() {
    let s = api::load_session(&fixture("goose/sessions.db"), Some("goose-compacted")).unwrap();
    let v = api::session_cuts(&s, None);
    assert_eq!(v.cuts.len(), 1, "one auto compaction");
    let c = &v.cuts[0];
    assert_eq!(
        c.dropped,
        vec![0, 1, 2, 3, 4],
        "the five originals were dropped"
    );
    assert_eq!(
        c.kept,
        vec![7],
        "goose keeps no tail: only the preserved ask is verbatim"
    );
    let summary = c.summary_text.as_deref().expect("goose writes a summary");
    assert!(
        summary.starts_with("<analysis>") && summary.contains("store.py"),
        "the summary column holds message 5's text: {summary}"
    );
    assert_eq!(
        v.carriers.iter().map(|c| c.index).collect::<Vec<_>>(),
        vec![2, 9],
        "both `cat store.py` results carried the file"
    );
    assert_eq!(c.files.len(), 1, "one file crossed the cut: {:?}", c.files);
    let f = &c.files[0];
    assert_eq!(
        (f.path.as_str(), f.fate),
        ("store.py", CutFileFate::OnlyInSummary),
        "its only carrier (#2) was dropped and the summary names it"
    );
    assert_eq!(
        (
            f.dropped_carriers.clone(),
            f.kept_carriers.clone(),
            f.reread_at
        ),
        (vec![2], vec![], Some(9)),
        "dropped #2, nothing kept, read again at #9 right after the cut"
    );
    assert_eq!(
        f.sentence, "store.py: dropped verbatim, only in the summary; read again at #9",
        "the fate in words"
    );
    assert_eq!(
        v.lint
            .iter()
            .map(|l| (l.api, l.findings.len()))
            .collect::<Vec<_>>(),
        vec![(Api::Openai, 0), (Api::Anthropic, 0)],
        "upstream goose leaves no pairing problem under either API"
    );
}

#[test]
fn goose_stuck_second_cut_loses_the_spill_files_outright() {
    let s = api::load_session(&fixture("goose-stuck/sessions.db"), None).unwrap();
    let v = api::session_cuts(&s, None);
    let cuts: Vec<usize> = v.cuts.iter().map(|c| c.anatomy.cut_index).collect();
    assert_eq!(cuts, vec![11, 28], "two goose compactions");
    let second = &v.cuts[1];
    assert_eq!(
        second.dropped,
        (11..=27).collect::<Vec<_>>(),
        "everything since cut 1"
    );
    let fates: Vec<(&str, CutFileFate, Option<usize>)> = second
        .files
        .iter()
        .map(|f| (super_name(&f.path), f.fate, f.reread_at))
        .collect();
    assert_eq!(
        fates,
        vec![
            ("store.py", CutFileFate::OnlyInSummary, Some(32)),
            ("test_store.py", CutFileFate::OnlyInSummary, None),
            (
                "mcp_response_20260301_101500.000001_a1.txt",
                CutFileFate::Lost,
                None
            ),
            (
                "mcp_response_20260301_101500.000002_a2.txt",
                CutFileFate::Lost,
                None
            ),
        ],
        "the summary names the sources but not the spill paths (fixtures/README: the spill paths are lost)"
    );
    assert!(
        second.files[2]
            .sentence
            .ends_with("not named in the summary: gone"),
        "a lost file says so: {}",
        second.files[2].sentence
    );
}

fn super_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

#[test]
fn codex_replacement_history_is_the_kept_column() {
    let s = api::load_session(
        &fixture(CODEX),
        Some("019c8f0a-0000-7000-8000-00000000a001"),
    )
    .unwrap();
    let v = api::session_cuts(&s, None);
    assert_eq!(v.cuts.len(), 1, "one remote compaction");
    assert_eq!(
        v.cuts[0].dropped,
        (0..8).collect::<Vec<_>>(),
        "the items before `compacted`"
    );
    assert_eq!(
        v.cuts[0].kept,
        vec![8, 9, 10],
        "the replacement history the model sees verbatim"
    );
    assert!(
        v.cuts[0].files.is_empty(),
        "no file was read: {:?}",
        v.cuts[0].files
    );
}

#[test]
fn request_view_of_the_unanswered_call_carries_both_providers_texts() {
    let s = api::load_session(&fixture(CODEX), Some(UNANSWERED)).unwrap();
    let v = api::session_cuts(&s, None);
    let f = &v.lint[0].findings;
    assert_eq!(f.len(), 1, "one finding under OpenAI's rules");
    assert_eq!(
        (
            f[0].kind,
            f[0].message_index,
            f[0].first_request,
            f[0].last_request
        ),
        (FindingKind::UnansweredCall, 3, Some(2), Some(4)),
        "call_u1 at #3 is open from request 2 to the next one (4)"
    );
    let first = api::request_view(&s, 1, None).unwrap();
    assert!(
        first.findings.is_empty(),
        "request 1 precedes the call: {:?}",
        first.findings
    );
    let next = api::request_view(&s, 4, None).unwrap();
    assert_eq!(
        (next.request, next.requests, next.answer_index),
        (4, 4, None),
        "4 is the next request"
    );
    assert_eq!(
        next.rows.iter().map(|r| r.index).collect::<Vec<_>>(),
        (0..=8).collect::<Vec<_>>(),
        "no compaction: the next request sends every message"
    );
    let texts: Vec<(Api, Option<&str>)> = next
        .findings
        .iter()
        .map(|f| (f.api, f.error_text.as_deref()))
        .collect();
    assert_eq!(
        texts,
        vec![
            (
                Api::Openai,
                Some(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_u1"
                )
            ),
            (
                Api::Anthropic,
                Some(
                    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_u1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
                )
            ),
        ],
        "the exact 400 texts, OpenAI then Anthropic"
    );
    let err = api::request_view(&s, 5, None).unwrap_err().to_string();
    assert!(
        err.contains("requests 1 to 4") && err.contains("no request 5"),
        "past the next request, the error names the range: {err}"
    );
}
