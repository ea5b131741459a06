//! `palimpsest tune`: the fleet built for it (`palimpsest_fixtures::tune`) tuned over K, as
//! the table with its front, knee and the sessions that gain; `--json` as the view the window
//! receives; a naive slice's orphans listed and never recommended; the real transcripts tuned
//! with their price; a bad grid refused with what is wrong.

use serde_json::Value;

use crate::common::{json_of, run};

fn fleet() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    palimpsest_fixtures::tune::write(dir.path()).unwrap();
    let path = dir.path().to_str().unwrap().to_owned();
    (dir, path)
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "palimpsest {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn tune_prints_each_k_with_the_front_the_knee_and_the_sessions_that_gain() {
    let (_dir, path) = fleet();
    let text = stdout(&["tune", &path, "--grid", "K=0..5"]).replace(&path, "FLEET");
    assert_eq!(
        text,
        "4 sessions, 4 re-reads after a compaction recorded; 6 settings of goose
   setting                        spared tokens carried        ≈ $ compactions  storms    over  orphans
*  K=0                                 0         130818          -           5       1       0        0
*  K=1                                 1         131083          -           5       1       0        0
   K=2                                 1         152155          -           5       1       0        0
◆  K=3                                 3         152253          -           5       1       0        0
   K=4                                 3         152253          -           5       1       0        0
*  K=5                                 4         152406          -           5       1       0        0
* on the Pareto front of re-reads spared against tokens carried; ◆ its knee

recommended: K=3 — spares 3 of 4 re-reads after a compaction (79 tokens re-read)
  2 re-reads spared in tune-twice (log each job in app.py), first app.py at message 6 · FLEET/sessions.db
  1 re-read spared in tune-k3 (retry in fetch_rows), first store.py at message 8 · FLEET/sessions.db
"
    );
}

#[test]
fn tune_json_carries_every_session_cell_by_cell() {
    let (_dir, path) = fleet();
    let args = ["tune", &path, "--grid", "K=2,3", "cap=0,30000", "--json"];
    let v: Value = json_of(run(&args), &args);
    let t = &v["tune"];
    let labels: Vec<&str> = t["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["K=2 cap=0", "K=2 cap=30000", "K=3 cap=0", "K=3 cap=30000"]
    );
    assert_eq!(
        t["settings"][2]["setting"],
        serde_json::json!({"keep_tail": 3, "tool_result_cap": 0})
    );
    assert_eq!(t["knee"], 2);
    assert_eq!(t["front"], serde_json::json!([0, 2]));
    let k3 = &t["sessions"][0];
    assert_eq!(k3["session_id"], "tune-k3");
    assert_eq!(k3["format"], "goose");
    let spared: Vec<usize> = k3["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["avoided"].as_array().unwrap().len())
        .collect();
    assert_eq!(spared, [0, 0, 1, 1]);
    assert_eq!(
        k3["cells"][2]["avoided"],
        serde_json::json!([{"path": "store.py", "call_index": 8, "previous_index": 1, "tokens": 23}])
    );
    assert_eq!(v["problems"], serde_json::json!([]));
}

#[test]
fn a_naive_tune_lists_each_orphan_and_recommends_none() {
    let (_dir, path) = fleet();
    let text = stdout(&["tune", &path, "--grid", "K=3", "--naive"]);
    let tail: Vec<&str> = text.lines().skip(5).collect();
    assert_eq!(
        tail,
        [
            "no recommendation: every setting leaves a tool result without its call",
            "orphans at K=3: 4 tool result(s) left without their call",
            "  tune-k3 at the compactions after message [4]",
            "  tune-k5 at the compactions after message [6]",
            "  tune-twice at the compactions after message [2, 9]",
        ]
    );
}

#[test]
fn the_real_transcripts_are_tuned_with_their_recorded_price() {
    let real = crate::common::repo().join("fixtures/real");
    let args = ["tune", real.to_str().unwrap(), "--grid", "K=0,8", "--json"];
    let v = json_of(run(&args), &args);
    let t = &v["tune"];
    assert_eq!(t["sessions"].as_array().unwrap().len(), 10);
    assert_eq!(t["recorded"], 0);
    let row = |k: usize| {
        let s = &t["settings"][k];
        (
            s["compactions"].as_u64().unwrap(),
            s["orphans"].as_u64().unwrap(),
            s["tokens_carried"].as_u64().unwrap(),
            (s["usd"].as_f64().unwrap() * 100.0).round() as u64,
        )
    };
    // Keeping eight messages at each of the two compactions carries 2 % more for 12 cents.
    assert_eq!(row(0), (2, 0, 16_060_270, 1_977));
    assert_eq!(row(1), (2, 0, 16_383_475, 1_989));
}

#[test]
fn a_bad_grid_is_refused_with_what_is_wrong() {
    let (_dir, path) = fleet();
    for (grid, error) in [
        (
            "Q=1",
            "palimpsest: --grid Q: not a knob (K, cap, trigger, budget, preserve)\n",
        ),
        ("K=3..1", "palimpsest: --grid K=3..1: empty range 3..1\n"),
        (
            "preserve=0,50",
            "palimpsest: --grid preserve=0,50: each value keeps between 1 and 99 % of the history\n",
        ),
    ] {
        let out = run(&["tune", &path, "--grid", grid]);
        assert_eq!(out.status.code(), Some(2), "{grid}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error);
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn replay_at_recorded_opens_a_tuned_setting_with_the_read_in_its_kept_tail() {
    let (_dir, path) = fleet();
    let kept = |k: &str, extra: &[&str]| {
        let mut args = vec![
            "replay",
            &path,
            "--session",
            "tune-k3",
            "--policy",
            "goose",
            "--keep-tail",
            k,
            "--simulate",
            "--json",
        ];
        args.extend_from_slice(extra);
        let v = json_of(run(&args), &args);
        v["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["at_index"].clone(), c["kept_tail"].clone()))
            .collect::<Vec<_>>()
    };
    // The fork's K keeps the read of store.py (message 1) and its result; K = 2 does not.
    assert_eq!(
        kept("3", &["--at-recorded"]),
        [(4.into(), serde_json::json!([1, 2, 3, 4]))]
    );
    assert_eq!(
        kept("2", &["--at-recorded"]),
        [(4.into(), serde_json::json!([3, 4]))]
    );
    // Without it, a session this far below its window never compacts.
    assert!(kept("3", &[]).is_empty());
}

#[test]
fn a_fleet_report_with_tune_lays_out_the_table_and_links_each_gain_to_its_session() {
    let (_dir, path) = fleet();
    let html = stdout(&["report", &path, "--tune", "--grid", "K=2,3"]);
    let at = html
        .find("<section id=\"tuning\">")
        .expect("a tuning section");
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    assert!(section.contains(
        "<tr><td>◆</td><td>K=3</td><td>3</td><td>152253</td><td>-</td><td>5</td><td>1</td>\
         <td>0</td><td>0</td></tr>"
    ));
    assert!(section.contains("<p>Recommended: <b>K=3</b> — spares 3 of 4 re-reads"));
    // Each gaining session links to its own section of the page.
    let links: Vec<&str> = section
        .split("<a href=\"#")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(links.len(), 2, "{section}");
    for l in &links {
        assert!(html.contains(&format!("<section id=\"{l}\">")), "{l}");
    }
    assert!(links[1].ends_with("tune-k3"), "{links:?}");
    // The grid is for the tuning only.
    let out = run(&["report", &path, "--grid", "K=3"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tune_counts_only_the_sessions_its_filters_keep_and_offers_every_value() {
    let (_dir, path) = fleet();
    // The fleet's sessions were last written 2026-03-01 21:21 to 2026-03-02 00:28 UTC.
    let first = |args: &[&str]| stdout(args).lines().next().unwrap().to_owned();
    assert_eq!(
        first(&["tune", &path, "--grid", "K=0..5", "--until", "2026-03-02"]),
        "3 of 4 sessions (filtered), 4 re-reads after a compaction recorded; 6 settings of goose"
    );
    assert_eq!(
        first(&["tune", &path, "--grid", "K=0..5", "--since", "2026-03-02"]),
        "1 of 4 sessions (filtered), 0 re-reads after a compaction recorded; 6 settings of goose"
    );
    assert_eq!(
        first(&[
            "tune",
            &path,
            "--harness",
            "claude-code",
            "--project",
            "/home/dev/store"
        ]),
        "0 of 4 sessions (filtered), 0 re-reads after a compaction recorded; 9 settings of goose"
    );
    let args = [
        "tune",
        &path,
        "--grid",
        "K=3",
        "--model",
        "qwen3.6-27b",
        "--harness",
        "goose",
        "--json",
    ];
    let v: Value = json_of(run(&args), &args);
    assert_eq!(
        v["facets"],
        serde_json::json!({
            "sessions": 4, "formats": ["goose"], "models": ["qwen3.6-27b"],
            "projects": ["/home/dev/store"], "first": 1772400090000_i64, "last": 1772411300000_i64,
        })
    );
    assert_eq!(v["tune"]["settings"][0]["avoided"], 3);
    let bad = run(&["tune", &path, "--since", "March"]);
    assert!(!bad.status.success());
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr).trim(),
        "palimpsest: not a day (YYYY-MM-DD): March"
    );
}
