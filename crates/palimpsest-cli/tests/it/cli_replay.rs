//! `palimpsest replay` and `palimpsest sweep` on the goose fixtures: the JSON contract (exact
//! keys), the seed's cases end to end, the simulation's shape and the heatmap file.

use crate::common;
use assert_cmd::Command;
use common::run_json;
use serde_json::Value;

fn db() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/goose/sessions.db"
    )
    .to_owned()
}

#[test]
fn replay_json_has_the_contract_keys_and_the_walked_tail() {
    let db = db();
    let v = run_json(&[
        "replay",
        &db,
        "--session",
        "seed-five",
        "--policy",
        "goose",
        "--keep-tail",
        "3",
        "--json",
    ]);
    for key in [
        "visible",
        "cut_index",
        "kept_tail",
        "preserved_appended",
        "orphans",
    ] {
        assert!(v.get(key).is_some(), "replay JSON has `{key}`: {v}");
    }
    let visible = v["visible"].as_array().unwrap();
    assert_eq!(
        visible.len(),
        7,
        "K=3 on seed-five: seven agent-visible messages"
    );
    for m in visible {
        for key in ["role", "kind", "source_index", "parts"] {
            assert!(
                m.get(key).is_some(),
                "each visible message has `{key}`: {m}"
            );
        }
    }
    let sources: Vec<Value> = visible.iter().map(|m| m["source_index"].clone()).collect();
    assert_eq!(
        sources,
        vec![
            Value::Null,
            Value::Null,
            1.into(),
            2.into(),
            3.into(),
            4.into(),
            Value::Null
        ],
        "new messages have a null source_index; the tail keeps its stored indices"
    );
    assert_eq!(v["cut_index"], 1, "the cut walked back to message 1");
    assert_eq!(
        v["kept_tail"],
        serde_json::json!([1, 2, 3, 4]),
        "ask for three, get four"
    );
    assert_eq!(
        v["preserved_appended"], true,
        "the ask sat in the summarised head"
    );
    assert_eq!(v["orphans"], 0, "no orphan after the walk");
}

#[test]
fn naive_replay_reports_the_orphan() {
    let db = db();
    let v = run_json(&[
        "replay",
        &db,
        "--session",
        "seed-five",
        "--policy",
        "goose",
        "--keep-tail",
        "3",
        "--naive",
        "--json",
    ]);
    assert_eq!(v["orphans"], 1, "the naive tail opens on the cat response");
    assert_eq!(
        v["kept_tail"],
        serde_json::json!([2, 3, 4]),
        "naive keeps exactly the last three"
    );
}

#[test]
fn replay_text_ends_with_the_count() {
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args([
            "replay",
            &db(),
            "--session",
            "seed-dup",
            "--policy",
            "goose",
            "--keep-tail",
            "3",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "replay succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("-> 5 agent-visible messages")
            && text.contains("preserved copy not appended"),
        "seed-dup K=3 keeps five and skips the copy: {text}"
    );
}

/// `replay --simulate` of seed-dup at K=3 with `extra` settings; `json` adds `--json`.
fn simulate_seed_dup(extra: &[&str], json: bool) -> std::process::Output {
    let db = db();
    let mut args = vec![
        "replay",
        db.as_str(),
        "--session",
        "seed-dup",
        "--policy",
        "goose",
        "--keep-tail",
        "3",
        "--simulate",
    ];
    args.extend_from_slice(extra);
    if json {
        args.push("--json");
    }
    common::run(&args)
}

#[test]
fn simulate_reports_requests_compactions_and_totals() {
    let extra = [
        "--context-window",
        "85",
        "--threshold",
        "0.5",
        "--summary-tokens",
        "5",
    ];
    let v = common::json_of(simulate_seed_dup(&extra, true), &extra);
    for key in ["requests", "compactions", "totals"] {
        assert!(v.get(key).is_some(), "simulation JSON has `{key}`: {v}");
    }
    assert_eq!(
        v["requests"].as_array().unwrap().len(),
        2,
        "two assistant turns, two requests"
    );
    let cuts = v["compactions"].as_array().unwrap();
    assert_eq!(cuts.len(), 1, "the second ask crosses 0.5 × 85 tokens: {v}");
    assert_eq!(
        (&cuts[0]["at_index"], &cuts[0]["recovery"]),
        (&Value::from(3), &Value::from(false)),
        "goose compacts when the user turn arrives, at its threshold check"
    );
    assert_eq!(
        (&v["totals"]["orphans"], &v["totals"]["gave_up"]),
        (&Value::from(0), &Value::from(0)),
        "the walk leaves no orphan, and every request fits after the cut"
    );
    let files = cuts[0]["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "store.py is the one file read: {files:?}");
    assert_eq!(files[0]["path"], "store.py", "read by `cat store.py`");
}

#[test]
fn simulate_says_when_goose_would_give_up() {
    // The default 2 000-token summary does not fit a 40-token window: the next request is over
    // the limit, goose compacts again inside the loop, the retry still does not fit.
    let extra = ["--context-window", "40"];
    let v = common::json_of(simulate_seed_dup(&extra, true), &extra);
    let recovery: Vec<&Value> = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["recovery"])
        .collect();
    assert_eq!(
        (recovery, &v["totals"]["gave_up"]),
        (
            vec![&Value::from(false), &Value::from(true)],
            &Value::from(1)
        ),
        "the turn's compaction, then the in-loop recovery, then goose gives up: {v}"
    );
    let text = simulate_seed_dup(&extra, false);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("1 of the compactions fired inside a tool loop")
            && text.contains("1 requests still over the context limit after compacting"),
        "the text says it too: {text}"
    );
}

#[test]
fn sweep_prints_a_grid_and_writes_the_heatmap() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("sweep.svg");
    let db = db();
    let v = run_json(&[
        "sweep",
        &db,
        "--session",
        "seed-dup",
        "--policy",
        "goose",
        "--keep-tail",
        "0..3",
        "--tool-result-cap",
        "0,10000",
        "--metric",
        "compactions",
        "--context-window",
        "85",
        "--threshold",
        "0.5",
        "--summary-tokens",
        "5",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let values = v["values"].as_array().unwrap();
    assert_eq!(values.len(), 4, "one row per K in 0..3");
    assert!(
        values.iter().all(|r| r.as_array().unwrap().len() == 2),
        "one column per cap"
    );
    assert!(
        values.iter().flatten_rows().all(|c| c == 1.0),
        "each setting compacts once (what it keeps fits the window): {v}"
    );
    let text = std::fs::read_to_string(&svg).expect("the heatmap was written");
    assert!(
        text.starts_with("<svg") && text.matches("<rect").count() == 9,
        "background and 8 cells"
    );
}

trait FlattenRows<'a> {
    fn flatten_rows(self) -> Box<dyn Iterator<Item = f64> + 'a>;
}

impl<'a, I: Iterator<Item = &'a Value> + 'a> FlattenRows<'a> for I {
    fn flatten_rows(self) -> Box<dyn Iterator<Item = f64> + 'a> {
        Box::new(self.flat_map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap_or(-1.0))
        }))
    }
}

#[test]
fn sweep_rejects_a_trigger_cap_for_goose() {
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args([
            "sweep",
            &db(),
            "--session",
            "seed-five",
            "--policy",
            "goose",
            "--trigger-cap",
            "1000",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error exits 2");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--trigger-cap applies to --policy coworker"),
        "the error says which policy the flag is for"
    );
}
