//! The Tokens view as the window receives it (`views::tokens::shown`), on the real
//! auto-compacted Claude Code transcript with its recorded usage priced: every request's line
//! is the report's, the two long lists stay in the app, and the rest is the report as it is.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::views::tokens::{TokenReport, shown};

#[test]
fn the_window_gets_every_request_line_and_not_the_lists() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let session = api::load_session(&file, None).unwrap();
    let never = std::sync::atomic::AtomicBool::new(false);
    let opts = api::TokenOptions::default();
    let report = api::token_report(&session, &opts, &mut |_| {}, &never).unwrap();
    let cost = report.cost.as_ref().expect("the transcript recorded usage");
    assert!(
        report.per_request.len() > 100 && cost.per_request.len() > 100,
        "a long real session: {} requests, {} priced",
        report.per_request.len(),
        cost.per_request.len()
    );
    let view = shown(report.clone());
    let lines: Vec<_> = view
        .requests
        .iter()
        .map(|l| (l.request, l.message_index, l.total, l.recorded))
        .collect();
    let whole: Vec<_> = report
        .per_request
        .iter()
        .map(|r| (r.request, r.message_index, r.total, r.recorded))
        .collect();
    assert_eq!(
        lines, whole,
        "each request's line is the report's, in order"
    );
    assert_eq!(
        view.priced_requests,
        cost.per_request.len(),
        "the window says how many requests were priced"
    );
    assert!(
        view.report.per_request.is_empty()
            && view
                .report
                .cost
                .as_ref()
                .is_some_and(|c| c.per_request.is_empty()),
        "the two long lists stay in the app"
    );
    let mut back: TokenReport = view.report.clone();
    back.per_request = report.per_request.clone();
    if let Some(c) = back.cost.as_mut() {
        c.per_request = cost.per_request.clone();
    }
    assert_eq!(back, report, "everything else is the report as it is");
    let sizes = [
        serde_json::to_string(&report).unwrap().len(),
        serde_json::to_string(&view).unwrap().len(),
    ];
    assert!(
        sizes[1] * 3 < sizes[0],
        "the window parses under a third of the report's JSON: {sizes:?}"
    );
}
