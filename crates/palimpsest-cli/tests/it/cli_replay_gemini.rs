//! `replay --policy gemini` and `sweep --policy gemini` on the Gemini CLI and Qwen Code
//! fixtures: the one-shot compression keeps the last user turn; run forward at a window the
//! history outgrows, the replay cuts where each harness recorded its cut (#7, the user turn
//! "also log each attempt"), with the recorded summary; the sweep's rows are the kept
//! percentages, and a percentage that keeps nothing or everything is refused.

use crate::common;
use common::{run, run_json};
use serde_json::json;

fn gemini() -> String {
    let chats = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/gemini/tmp/5d0c3f4ea1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c/chats"
    );
    format!("{chats}/session-2026-10-06T09-00-3c7e9a1b.jsonl")
}

fn qwen() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/qwen/projects/-work-shop/chats/7a1c2e3f-5b6d-4e8f-9a0b-1c2d3e000001.jsonl"
    )
    .to_owned()
}

/// `(at, cut, kept, recorded summary)` of each simulated compaction.
fn cuts(v: &serde_json::Value) -> Vec<(u64, u64, serde_json::Value, bool)> {
    v["compactions"]
        .as_array()
        .expect("compactions")
        .iter()
        .map(|c| {
            (
                c["at_index"].as_u64().unwrap(),
                c["cut_index"].as_u64().unwrap(),
                c["kept_tail"].clone(),
                c["recorded_summary"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_gemini_session_compressed_once_keeps_its_last_user_turn_after_the_summary_and_the_ack() {
    let f = gemini();
    let v = run_json(&["replay", &f, "--policy", "gemini", "--json"]);
    let visible: Vec<(String, String, Option<u64>)> = v["visible"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["kind"].as_str().unwrap().to_owned(),
                m["source_index"].as_u64(),
            )
        })
        .collect();
    let own = |r: &str, k: &str, i: Option<u64>| (r.to_owned(), k.to_owned(), i);
    assert_eq!(
        (v["note"]["text"].as_str(), v["cut_index"].as_u64(), visible),
        (
            Some("Gemini CLI's own rules: this is a Gemini CLI session."),
            Some(14),
            vec![
                own("user", "summary", None),
                own("assistant", "continuation", None),
                own("user", "ordinary", Some(14)),
                own("assistant", "ordinary", Some(15)),
                own("tool", "ordinary", Some(16)),
                own("assistant", "ordinary", Some(17)),
            ]
        ),
        "the model now holds the recorded summary, its ack and one turn (#14–#17); the last \
         30 % starts at that turn's user message"
    );
}

#[test]
fn run_forward_the_gemini_policy_cuts_where_gemini_and_qwen_cut() {
    let v = run_json(&[
        "replay",
        &gemini(),
        "--policy",
        "gemini",
        "--simulate",
        "--context-window",
        "300",
        "--json",
    ]);
    assert_eq!(
        (v["totals"]["compactions"].as_u64(), cuts(&v)),
        (Some(1), vec![(12, 7, json!([7, 8, 12]), true)]),
        "the prompt of request #8 (189 tokens) passed half of 300: before #13 the history up \
         to #8 is compressed at #7, as the recording's own cut, with its summary; #12 was \
         being sent"
    );
    let q = run_json(&[
        "replay",
        &qwen(),
        "--policy",
        "gemini",
        "--simulate",
        "--context-window",
        "250",
        "--json",
    ]);
    assert_eq!(
        cuts(&q),
        vec![(13, 7, json!([7, 8, 13]), true)],
        "Qwen Code's threshold is 0.7: 176 tokens at #8 pass 175, and the cut is Qwen's own \
         first one, at #7"
    );
    let note = run_json(&["replay", &qwen(), "--policy", "gemini", "--json"]);
    assert_eq!(
        note["note"]["text"].as_str(),
        Some("Qwen Code's own rules: this is a Qwen Code session.")
    );
}

#[test]
fn gemini_sweeps_the_kept_percentage_and_refuses_one_that_keeps_nothing() {
    let f = gemini();
    let grid = run_json(&[
        "sweep",
        &f,
        "--policy",
        "gemini",
        "--context-window",
        "300",
        "--preserve-percent",
        "10,30,70",
        "--metric",
        "compactions",
        "--json",
    ]);
    assert_eq!(
        (grid["rows"].clone(), grid["values"].clone()),
        (
            json!({"axis": "preserve-percent", "values": [10, 30, 70]}),
            json!([[1.0], [1.0], [1.0]])
        ),
        "the history before #13 has two user messages (#0, #7): every percentage splits at #7"
    );
    let out = run(&[
        "sweep",
        &f,
        "--policy",
        "gemini",
        "--preserve-percent",
        "0,30",
    ]);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim().to_owned()
        ),
        (
            Some(2),
            "palimpsest: --preserve-percent 0: each value keeps between 1 and 99 % of the history"
                .to_owned()
        )
    );
}
