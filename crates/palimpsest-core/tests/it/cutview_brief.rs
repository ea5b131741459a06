//! What the window takes of the cut view when a session opens (`CutsBrief`: every cut without
//! its summary's text and its files' fates) and what it asks for when a cut is opened
//! (`SessionCuts::cut`), on the six-cut fixture.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::views::cuts::{CutsBrief, SessionCuts};

const SIX_CUTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl"
);

fn six_cuts() -> SessionCuts {
    let session = api::load_session(Path::new(SIX_CUTS), None).expect("the fixture loads");
    api::session_cuts(&session, None)
}

#[test]
fn a_brief_is_every_cut_without_its_summary_and_files() {
    let whole = six_cuts();
    let brief = CutsBrief::from(&whole);
    assert_eq!(
        brief.cuts.len(),
        6,
        "all six cuts are in the brief, so the ribbon draws them all"
    );
    for (b, w) in brief.cuts.iter().zip(&whole.cuts) {
        assert_eq!(
            (&b.anatomy, &b.dropped, &b.kept, &b.cleared),
            (&w.anatomy, &w.dropped, &w.kept, &w.cleared),
            "a cut's shape is the whole view's"
        );
        assert_eq!(
            (b.tokens_saved_recorded, b.tokens_saved_counted),
            (w.tokens_saved_recorded, w.tokens_saved_counted),
            "a microcompact's savings are the whole view's"
        );
    }
    assert_eq!(
        (
            &brief.requests,
            &brief.carriers,
            &brief.lint,
            &brief.profile
        ),
        (
            &whole.requests,
            &whole.carriers,
            &whole.lint,
            &whole.profile
        ),
        "the requests, carriers, lint and profile are the whole view's"
    );
    let json = serde_json::to_string(&brief).expect("serialises");
    let summary = whole.cuts.iter().find_map(|c| c.summary_text.as_deref());
    let summary = summary.expect("the fixture's cuts have summaries");
    assert!(
        !json.contains("summary_text") && !json.contains(&summary[..60]),
        "the brief carries no summary text: the opened cut asks for it"
    );
    assert!(
        whole.cuts.iter().any(|c| !c.files.is_empty()) && !json.contains("\"files\""),
        "the brief carries no file fates either, though the fixture's cuts have some"
    );
    let whole_json = serde_json::to_string(&whole).expect("serialises");
    assert!(
        json.len() < whole_json.len(),
        "the brief is smaller than the whole view ({} against {} bytes)",
        json.len(),
        whole_json.len()
    );
}

#[test]
fn an_opened_cut_is_the_whole_views_and_past_the_last_an_error_says_how_many() {
    let whole = six_cuts();
    assert_eq!(
        whole.cut("six", 2).expect("the fixture has a third cut"),
        whole.cuts[2],
        "cut 3 (ordinal 2) is the third of the whole view"
    );
    assert_eq!(
        whole
            .cut("six", 6)
            .expect_err("there is no seventh cut")
            .to_string(),
        "session `six` has no cut 7 (it holds 6)",
        "past the sixth cut, the error names the session and what it holds"
    );
}
