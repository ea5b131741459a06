//! `palimpsest replay --policy coworker` on the coworker fixtures: compacting once and running
//! the session forward at a 10 000-token window (exact cut, kept messages and block), and
//! `--verify` (no difference on the sessions as written, exit 1 and the field on a tampered copy).

use crate::common;

use common::{json_of, run};
use serde_json::{Value, json};

const MAIN: &str = "a1b2c3d4e5f6";

fn state() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/coworker/state").to_owned()
}

fn replay(dir: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["replay", dir, "--session", MAIN, "--policy", "coworker"];
    args.extend_from_slice(extra);
    run(&args)
}

/// On a session compacted three times already, the cut is where coworker's `pick_boundary`
/// puts it over the canonical list, the notices with their records included in the sizes, and
/// refused at or before the latest boundary (11). The expected cuts are what the harness's
/// rules give over these stored lines (canonical 18, 15, 15, none), in timeline indices.
#[test]
fn coworker_one_shot_on_a_compacted_session_cuts_where_the_harness_does() {
    for (window, cut, kept) in [
        ("2000", 21, json!([21, 22])),
        ("4000", 18, json!([18, 19, 21, 22])),
        ("16000", 18, json!([18, 19, 21, 22])),
        ("20000", 23, json!([])),
    ] {
        let args = ["--context-window", window, "--json"];
        let v = json_of(replay(&state(), &args), &args);
        assert_eq!(
            (&v["cut_index"], &v["kept_tail"]),
            (&json!(cut), &kept),
            "at a {window}-token window"
        );
    }
}

#[test]
fn coworker_one_shot_cuts_after_the_latest_record_and_writes_the_block() {
    let args = ["--context-window", "10000", "--json"];
    let v = json_of(replay(&state(), &args), &args);
    // Trigger 8 000, keep 2 000 tokens: the not-saved chart log (#15) is too big to keep, so
    // the first user message whose suffix fits is #18; notice #20 is never sent.
    assert_eq!(v["cut_index"], 18, "cut at 'Now write the README.'");
    assert_eq!(
        v["kept_tail"],
        json!([18, 19, 21, 22]),
        "kept verbatim, notice left out"
    );
    assert_eq!(v["orphans"], 0, "no result loses its call");
    let visible = v["visible"].as_array().unwrap();
    let sources: Vec<&Value> = visible.iter().map(|m| &m["source_index"]).collect();
    assert_eq!(
        sources,
        vec![
            &json!(0),
            &Value::Null,
            &json!(18),
            &json!(19),
            &json!(21),
            &json!(22)
        ],
        "system, the new block, then the kept tail"
    );
    assert_eq!(visible[1]["kind"], "summary", "the block is a summary");
    let block = visible[1]["parts"][0]["text"].as_str().unwrap();
    assert!(
        block.contains(
            "## Working state (extracted mechanically from tool records)\nRecent shell commands:\n- python chart.py\nTools used in the summarized span: run_shell"
        ),
        "the span since the trim (stored 11..15) ran one shell command whose capped text has no status: {block}"
    );
    assert!(
        block.contains(
            "## User messages in the compacted span (verbatim, chronological)\n- Build the report generator: read data/sales.csv and write out/report.md with monthly totals.\n- Use ISO week numbers, not calendar weeks.\n- Also add a chart of the monthly totals.\n\n"
        ),
        "the trim's three messages carried over, none repeated: {block}"
    );
    assert!(
        block.contains("tool-output/compacted-transcript-upto-0015.md"),
        "the transcript is named by the stored line (15), not the timeline index (18)"
    );
}

#[test]
fn coworker_simulation_fires_where_the_session_really_compacted() {
    let args = ["--context-window", "10000", "--simulate", "--json"];
    let v = json_of(replay(&state(), &args), &args);
    assert_eq!(v["totals"]["requests"], 8, "one request per assistant run");
    assert_eq!(
        v["totals"]["compactions"], 1,
        "one compaction at this window"
    );
    let c = &v["compactions"][0];
    assert_eq!(
        (&c["request"], &c["cut_index"], &c["kept_tail"]),
        (&json!(3), &json!(8), &json!([8])),
        "before the fourth request, cut at U2 (#8) keeping it"
    );
    assert_eq!(
        c["recorded_summary"], true,
        "stored boundary 7 is where the session compacted: its summary is reused"
    );
    assert_eq!(
        c["user_messages"],
        json!([1, 0]),
        "the pinned first message, none omitted (as recorded)"
    );
}

#[test]
fn verify_finds_no_difference_in_the_sessions_as_written() {
    // The harness ran at the default window here: given, so no note about an assumed one.
    let out = replay(&state(), &["--verify", "--context-window", "128000"]);
    assert_eq!(out.status.code(), Some(0), "all equal: exit 0");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "#7 boundary 7 (span 0..7): as derived\n#11 boundary 10 (span 7..10): as derived\n#13 boundary 11 (span 10..11, trim): as derived\n-> 0 of 3 recorded compactions differ from coworker's rules (user-message budget 8192 tokens)\n",
        "one line per record and the count"
    );
    let args = ["--verify", "--json"];
    let v = json_of(replay(&state(), &args), &args);
    assert_eq!(v["all_equal"], true, "JSON agrees");
    let old = run(&[
        "replay",
        &state(),
        "--session",
        "0ld5e55i0n01",
        "--policy",
        "coworker",
        "--verify",
        "--context-window",
        "128000",
    ]);
    assert_eq!(
        old.status.code(),
        Some(0),
        "the column-only session checks out"
    );
    assert!(
        String::from_utf8_lossy(&old.stdout)
            .starts_with("#3 boundary 3 (span 0..3, legacy rules): as derived\n"),
        "legacy record checked with the legacy rules"
    );
}

#[test]
fn verify_reports_a_tampered_omitted_count_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("conversations");
    std::fs::create_dir_all(&conv).unwrap();
    let src = std::path::Path::new(&state()).to_owned();
    std::fs::copy(src.join("coworker.db"), tmp.path().join("coworker.db")).unwrap();
    let file = format!("{MAIN}.jsonl");
    let text = std::fs::read_to_string(src.join("conversations").join(&file)).unwrap();
    // Line 18 is the trim's notice: claim two messages were omitted.
    let edited = text.replacen(
        "\"user_messages_dropped\": 0, \"created_at\": 1788116230.0",
        "\"user_messages_dropped\": 2, \"created_at\": 1788116230.0",
        1,
    );
    assert_ne!(edited, text, "the trim record was edited");
    std::fs::write(conv.join(&file), edited).unwrap();
    let dir = tmp.path().to_string_lossy().into_owned();

    let out = replay(&dir, &["--verify"]);
    assert_eq!(out.status.code(), Some(1), "a difference: exit 1");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "#13 boundary 11 (span 10..11, trim): DIFFERS\n  user_messages_dropped: recorded 2\n  user_messages_dropped: derived  0\n  block differs at line 25, column 3:\n    recorded: - (2 older user messages omitted here — their intent is covered by the summary above)\n    derived:  - Use ISO week numbers, not calendar weeks.\n"
        ),
        "the field, both values and the first differing block line: {text}"
    );
    assert!(
        text.ends_with("-> 1 of 3 recorded compactions differ from coworker's rules (user-message budget 8192 tokens)\n"),
        "the count: {text}"
    );
    let out = replay(&dir, &["--verify", "--json"]);
    assert_eq!(out.status.code(), Some(1), "exit 1 with --json too");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let differing: Vec<(&Value, &Value)> = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["fields"].as_array().unwrap().iter().map(move |f| (c, f)))
        .filter(|(_, f)| f["equal"] == false)
        .map(|(c, f)| (&c["cut_index"], &f["name"]))
        .collect();
    assert_eq!(
        differing,
        vec![(&json!(13), &json!("user_messages_dropped"))],
        "exactly that field of exactly that record"
    );
}

#[test]
fn verify_is_for_the_coworker_policy_only() {
    let out = run(&[
        "replay",
        &state(),
        "--session",
        MAIN,
        "--policy",
        "goose",
        "--verify",
    ]);
    assert_eq!(out.status.code(), Some(2), "usage error");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--verify checks coworker compaction records: use --policy coworker"),
        "says which policy to use"
    );
}

#[test]
fn verify_says_which_window_it_assumed_and_refuses_legacy() {
    let out = replay(&state(), &["--verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "user-message budget 8192 tokens, from a 128000-token window (the default): pass \
             --context-window if the harness ran with another"
        ),
        "without the window the budget's source is said first: {text}"
    );
    let args = ["--verify", "--context-window", "200000", "--json"];
    let v = json_of(replay(&state(), &args), &args);
    assert_eq!(
        (
            v["window"].as_u64(),
            v["window_from"].as_str(),
            v["user_budget"].as_u64()
        ),
        (Some(200_000), Some("given"), Some(12_800)),
        "a given window is used and said so (200k → budget 12 800)"
    );
    assert!(
        v["index_space"].as_str().unwrap().starts_with(
            "cut_index: stored message index; boundary_index, span_start: coworker's canonical list"
        ),
        "the JSON says which numbering each index uses"
    );
    let args = ["--context-window", "10000", "--json"];
    let one = json_of(replay(&state(), &args), &args);
    assert_eq!(
        one["index_space"], "message: every index is the stored message index `show` prints",
        "so does the one-shot replay"
    );
    let text = String::from_utf8_lossy(
        &replay(&state(), &["--verify", "--context-window", "128000"]).stdout,
    )
    .into_owned();
    assert!(
        !text.contains("pass --context-window"),
        "no note once the window is given: {text}"
    );
    let out = replay(&state(), &["--verify", "--legacy"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--legacy with --verify is refused"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("drop --legacy"),
        "and says why: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
