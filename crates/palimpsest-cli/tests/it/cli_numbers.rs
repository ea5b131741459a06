//! Issue 45 through the command line: a search finds words in a tool result a microcompact
//! cleared (and says it was cleared), and `index FILE` run twice adds a transcript's subagent
//! runs once.

use crate::common;

use std::path::{Path, PathBuf};

use common::{json_of, run_env};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn search_finds_the_text_of_a_cleared_result_and_marks_it() {
    // See: issue 45. The six-cut fixture's microcompact cleared the Read of cart2.py (message
    // 16): the model sees `[Old tool result content cleared]`, the transcript keeps the file.
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let dir = fixtures().join("claude");
    let d = dir.to_str().unwrap();
    let hits = json_of(
        run_env(&["search", "cart2_17", d, "--json"], &env),
        &["search"],
    );
    let got: Vec<(u64, &str, &str, bool)> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["index"].as_u64().unwrap(),
                h["part"].as_str().unwrap(),
                h["tool"].as_str().unwrap(),
                h["cleared"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [(16, "tool_result", "Read", true)],
        "one hit, in the cleared Read result, marked cleared"
    );
    let placeholder = run_env(
        &["search", "Old tool result content cleared", d, "--json"],
        &env,
    );
    assert_eq!(
        (
            placeholder.status.code(),
            String::from_utf8_lossy(&placeholder.stdout).trim()
        ),
        (Some(1), "[]"),
        "the placeholder is not what a cleared result is searched by"
    );
    let text = run_env(&["search", "cart2_17", d], &env);
    assert!(
        String::from_utf8_lossy(&text.stdout)
            .lines()
            .next()
            .unwrap()
            .ends_with("tool_result (Read) [cleared: the model no longer sees it]"),
        "the text form says so too: {}",
        String::from_utf8_lossy(&text.stdout)
    );
}

#[test]
fn indexing_one_transcript_twice_adds_its_subagent_runs_once() {
    // See: issue 45. `index FILE` listed the file's subagent runs each time and added them
    // again ("added": 8 every call).
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let f = fixtures().join("real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let f = f.to_str().unwrap();
    let first = json_of(run_env(&["index", f, "--json"], &env), &["index"]);
    let again = json_of(run_env(&["index", f, "--json"], &env), &["index"]);
    let counts = |v: &Value| {
        (
            v["sessions"].as_u64().unwrap(),
            v["added"].as_u64().unwrap(),
            v["updated"].as_u64().unwrap(),
            v["unchanged"].as_u64().unwrap(),
            v["removed"].as_u64().unwrap(),
        )
    };
    assert_eq!(
        (counts(&first), counts(&again)),
        ((3, 3, 0, 0, 0), (3, 0, 0, 3, 0)),
        "the transcript and its two runs are added once, then found unchanged"
    );
}

#[test]
fn a_resumed_transcript_is_billed_once_in_the_fleet() {
    // See: issue 45. Two files sharing all their request ids were each billed in full in the
    // fleet's total. The copy is the real transcript under a new session id, as Claude Code
    // writes a resumed conversation into a new file.
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("-home-dev-x");
    std::fs::create_dir_all(&project).unwrap();
    let real = fixtures().join("real/claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
    std::fs::copy(
        &real,
        project.join("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"),
    )
    .unwrap();
    let resumed = "11111111-2222-4333-8444-555555555555";
    let copy: String = std::fs::read_to_string(&real)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v.get("sessionId").is_some() {
                v["sessionId"] = resumed.into();
            }
            format!("{v}\n")
        })
        .collect();
    std::fs::write(project.join(format!("{resumed}.jsonl")), copy).unwrap();
    let p = project.to_str().unwrap();
    for args in [
        vec!["diagnose", p, "--json"],
        vec!["diagnose", p, "--no-index", "--json"],
    ] {
        let f = json_of(run_env(&args, &env), &args);
        let rows: Vec<f64> = f["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["cost_usd"].as_f64().unwrap())
            .collect();
        assert_eq!(
            rows,
            [5.31621585, 5.31621585],
            "{args:?}: each file's own cost"
        );
        assert_eq!(
            (
                f["totals"]["cost_usd"].as_f64(),
                f["totals"]["shared"]["requests"].as_u64(),
                f["totals"]["shared"]["usd"].as_f64()
            ),
            (Some(5.31621585), Some(217), Some(5.31621585)),
            "{args:?}: the 217 requests the copy holds are billed once"
        );
    }
}
