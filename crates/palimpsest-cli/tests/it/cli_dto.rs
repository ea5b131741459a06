//! `--json` prints what the window receives: `replay`'s rows and tokens are the Replay panel's,
//! `compactions`' cut view is the one the cut commands take apart, and `tokens` adds the
//! window's per-request lines, with `--charts` writing the four charts the Tokens tab draws.
//! Each is compared with the api function the app's command calls, on the six-cut fixture.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use serde_json::Value;

fn six_cuts() -> PathBuf {
    crate::common::repo()
        .join("fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl")
}

/// `palimpsest ARGS` with an empty cache of its own: nothing counted before, so the CLI and
/// the api both count with the estimate the app uses before a session is counted.
fn json(args: &[&str]) -> Value {
    let home = tempfile::tempdir().unwrap();
    let (out, err, code) = crate::common::run_in(home.path(), args);
    assert_eq!(code, Some(0), "{args:?}: {}", String::from_utf8_lossy(&err));
    serde_json::from_slice(&out).expect("JSON out")
}

fn as_value<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

#[test]
fn replay_json_holds_the_replay_panel_rows_and_tokens() {
    let file = six_cuts();
    let out = json(&[
        "replay",
        file.to_str().unwrap(),
        "--policy",
        "goose",
        "--keep-tail",
        "3",
        "--json",
    ]);
    let session = api::load_session(&file, None).unwrap();
    let opts = ReplayOptions {
        policy: PolicyName::Goose,
        keep_tail: 3,
        ..ReplayOptions::default()
    };
    let panel = api::replay_panel(&session, &opts, None);
    assert!(!panel.rows.is_empty(), "the replay keeps a context");
    assert_eq!(
        out["rows"],
        as_value(&panel.rows),
        "the window's rows, row for row"
    );
    assert_eq!(
        out["tokens"],
        as_value(&panel.tokens),
        "the window's token total"
    );
    assert_eq!(
        out["cut_index"],
        as_value(&panel.cut_index),
        "one replay, the same cut"
    );
    assert!(out["visible"].is_array(), "the earlier keys stay: visible");
    assert!(
        out["index_space"].is_string(),
        "the earlier keys stay: index_space"
    );
}

#[test]
fn compactions_json_holds_the_whole_cut_view() {
    let file = six_cuts();
    let out = json(&[
        "compactions",
        file.to_str().unwrap(),
        "--json",
        "--no-index",
    ]);
    let session = api::load_session(&file, None).unwrap();
    let cuts = api::session_cuts(&session, None);
    assert_eq!(cuts.cuts.len(), 6, "the fixture's six cuts");
    assert_eq!(
        out["cuts"],
        as_value(&cuts.cuts),
        "every cut whole, as an opened cut shows it"
    );
    assert_eq!(out["lint"], as_value(&cuts.lint), "both rule sets' lint");
    assert_eq!(
        out["profile"],
        as_value(&cuts.profile),
        "the summary profile"
    );
    assert_eq!(
        out["carriers"],
        as_value(&cuts.carriers),
        "every file carrier"
    );
    assert_eq!(
        out["request_list"],
        as_value(&cuts.requests),
        "every request"
    );
    assert_eq!(
        out["requests"],
        as_value(&cuts.requests.len()),
        "`requests` stays the count it always was"
    );
    let anatomy: Vec<&_> = cuts.cuts.iter().map(|c| &c.anatomy).collect();
    assert_eq!(
        out["compactions"],
        as_value(&anatomy),
        "`compactions` as before"
    );
}

#[test]
fn tokens_json_has_the_window_lines_and_charts_are_the_window_charts() {
    let file = six_cuts();
    let dir = tempfile::tempdir().unwrap();
    let charts = dir.path().join("charts");
    let out = json(&[
        "tokens",
        file.to_str().unwrap(),
        "--json",
        "--charts",
        charts.to_str().unwrap(),
    ]);
    let report: palimpsest_core::views::tokens::TokenReport =
        serde_json::from_value(out.clone()).expect("the JSON is the whole report");
    let view = palimpsest_core::views::tokens::shown(report.clone());
    assert!(
        !view.requests.is_empty(),
        "the fixture has answered requests"
    );
    assert_eq!(
        out["requests"],
        as_value(&view.requests),
        "the window's request lines"
    );
    assert_eq!(
        out["priced_requests"],
        as_value(&view.priced_requests),
        "how many requests the cost priced, as the window says"
    );
    let drawn = api::token_charts(&report, palimpsest_core::charts::ThemeName::Light).unwrap();
    for (name, svg) in [
        ("final_context.svg", &drawn.final_context),
        ("processed.svg", &drawn.processed),
        ("per_request.svg", &drawn.per_request),
        ("top_tools.svg", &drawn.top_tools),
    ] {
        let written = std::fs::read_to_string(charts.join(name)).unwrap();
        assert!(written.starts_with("<svg"), "{name} is an SVG");
        assert_eq!(&written, svg, "{name} is the chart the Tokens tab draws");
    }
}
