//! `palimpsest replay` says which policy it applies and why its preserved ask is the one it is:
//! on the six-cut Claude Code fixture goose's rule preserves the sixth cut's summary (user-role
//! text), `--skip-summaries` is the marked variant; a goose session is goose's own. And
//! `show --rows --index` answers from the index only while the file is as indexed.

use crate::common;
use common::{run_env, run_json};

const SIX_CUTS: &str = "6c075000-0000-4000-8000-00000000c006";

fn fixtures() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures").to_owned()
}

#[test]
fn a_claude_session_replayed_under_goose_says_so_and_names_the_summary_it_preserves() {
    let f = fixtures();
    let base = [
        "replay",
        &f,
        "--session",
        SIX_CUTS,
        "--policy",
        "goose",
        "--json",
    ];
    let v = run_json(&base);
    let note = &v["note"];
    assert_eq!(
        (
            note["policy"].as_str(),
            note["native"].as_bool(),
            note["preserved_index"].as_u64(),
            note["preserved_is_summary"].as_bool(),
            note["variant"].as_bool()
        ),
        (
            Some("goose"),
            Some(false),
            Some(81),
            Some(true),
            Some(false)
        ),
        "goose's rule preserves message 81, the sixth cut's summary, of a session goose never ran"
    );
    assert!(
        note["text"].as_str().unwrap().starts_with(
            "Replayed under goose's rules (the policy chosen here): a Claude Code session"
        ),
        "the text says whose rules apply: {note}"
    );
    assert_eq!(
        v["visible"].as_array().unwrap().len(),
        3,
        "summary, continuation and the preserved copy of that summary"
    );
    let mut skip = base.to_vec();
    skip.push("--skip-summaries");
    let w = run_json(&skip);
    assert_eq!(
        (
            w["note"]["preserved_index"].as_u64(),
            w["note"]["variant"].as_bool(),
            w["visible"].as_array().unwrap().len()
        ),
        (None, Some(true), 2),
        "skipping summaries, no other user text is still seen: nothing preserved, no copy"
    );
}

#[test]
fn a_goose_session_is_replayed_under_its_own_rules() {
    let db = format!("{}/goose/sessions.db", fixtures());
    let v = run_json(&[
        "replay",
        &db,
        "--session",
        "seed-five",
        "--policy",
        "goose",
        "--json",
    ]);
    assert_eq!(
        (
            v["note"]["native"].as_bool(),
            v["note"]["preserved_index"].as_u64()
        ),
        (Some(true), Some(0)),
        "seed-five is goose's own; its only ask (message 0) is what goose preserves"
    );
}

#[test]
fn rows_come_from_the_index_only_while_the_file_is_as_indexed() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("s.jsonl");
    let src = format!(
        "{}/claude/projects/-home-dev-shop/{SIX_CUTS}.jsonl",
        fixtures()
    );
    std::fs::copy(&src, &file).unwrap();
    let cache = t.path().join("cache");
    let env = [("XDG_CACHE_HOME", cache.to_str().unwrap())];
    let f = file.to_str().unwrap();
    let rows = |extra: &[&str]| {
        let mut args = vec!["show", f, "--rows", "--json"];
        args.extend_from_slice(extra);
        let out = run_env(&args, &env);
        assert!(out.status.success(), "show --rows {extra:?} failed");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let before = rows(&["--index"]);
    assert_eq!(
        before["from_index"], false,
        "nothing indexed yet: read from the file"
    );
    assert!(
        run_env(&["index", f], &env).status.success(),
        "index the file"
    );
    let indexed = rows(&["--index"]);
    let file_rows = rows(&[]);
    assert_eq!(
        indexed["from_index"], true,
        "indexed and unchanged: from the index"
    );
    assert_eq!(
        indexed["rows"].as_array().unwrap().len(),
        file_rows["rows"].as_array().unwrap().len(),
        "as many rows as the file gives"
    );
    let mut more = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut more, b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"one more\"},\"uuid\":\"x1\",\"sessionId\":\"s\"}\n").unwrap();
    drop(more);
    assert_eq!(
        rows(&["--index"])["from_index"],
        false,
        "the file grew: the index's rows are old, the file is read"
    );
}

#[test]
fn an_opencode_session_replays_under_its_own_policy_and_sweeps_its_tail_turns() {
    let db = format!("{}/opencode", fixtures());
    let worker = "ses_7a1c0e2f4001worker";
    let v = run_json(&[
        "replay",
        &db,
        "--session",
        worker,
        "--policy",
        "opencode",
        "--json",
    ]);
    assert_eq!(
        (
            v["note"]["policy"].as_str(),
            v["note"]["native"].as_bool(),
            v["note"]["text"].as_str(),
            v["cut_index"].as_u64(),
            v["kept_tail"].clone(),
            v["orphans"].as_u64(),
        ),
        (
            Some("opencode"),
            Some(true),
            Some("OpenCode's own rules: this is an OpenCode session."),
            Some(32),
            serde_json::json!([32, 33, 34, 35]),
            Some(0),
        ),
        "the model's view now (after the manual /compact) holds one user turn: it is kept, \
         the rest summarised"
    );
    let none = run_json(&[
        "replay",
        &db,
        "--session",
        worker,
        "--policy",
        "opencode",
        "--tail-turns",
        "0",
        "--json",
    ]);
    assert_eq!(
        none["kept_tail"],
        serde_json::json!([]),
        "--tail-turns 0 keeps nothing"
    );
    let grid = run_json(&[
        "sweep",
        &db,
        "--session",
        worker,
        "--policy",
        "opencode",
        "--keep-tail",
        "0..2",
        "--context-window",
        "24000",
        "--metric",
        "compactions",
        "--json",
    ]);
    assert_eq!(
        (grid["rows"].clone(), grid["values"].clone()),
        (
            serde_json::json!({"axis": "keep-tail", "values": [0, 1, 2]}),
            serde_json::json!([[1.0], [1.0], [1.0]])
        ),
        "OpenCode's rows are the user turns kept; at a 24 000-token window it compacts once"
    );
}
