//! A coworker trim that is not the latest compaction: it writes no summary message, but the
//! block it rebuilt was what the model was sent from its notice until the next compaction, so
//! `context --request N` between the two holds it.

use palimpsest_core::api;
use palimpsest_fixtures::coworker::pyjson;
use serde_json::{Value, json};

const T0: f64 = 1_788_300_000.0;

fn state(boundary: usize, trimmed: bool, summary: &str, at: f64) -> Value {
    json!({"boundary_index": boundary, "summary_text": summary, "working_state": "",
        "user_messages": ["Tidy the build."], "user_messages_dropped": 0, "created_at": at,
        "model_used": if trimmed { "" } else { "openai:m" }, "trimmed": trimmed, "transcript_path": ""})
}

fn lines() -> Vec<Value> {
    let turn = |k: usize| {
        let ts = T0 + 100.0 * k as f64;
        vec![
            json!({"role": "user", "content": format!("Step {k}."), "ts": ts}),
            json!({"role": "assistant", "content": format!("Done step {k}."), "ts": ts + 5.0,
                "usage": {"model": "openai:m", "input": 1000, "output": 10, "cache_read": 0, "cache_write": 0}}),
        ]
    };
    let mut v = vec![json!({"role": "system", "content": "You are coworker."})];
    v.extend(turn(0));
    v.extend(turn(1));
    // The summarizer failed twice: the oldest turn is trimmed (boundary 3, no summary).
    v.push(json!({"role": "notice", "kind": "compacted", "ts": T0 + 150.0,
        "text": "Context trimmed — oldest turns dropped (summary unavailable)",
        "compaction": state(3, true, "(Older turns were trimmed to fit the context window; no summary is available for them. Re-read files and re-run commands if earlier results are needed.)", T0 + 150.0)}));
    v.extend(turn(2));
    v.extend(turn(3));
    v.push(json!({"role": "notice", "kind": "compacted", "ts": T0 + 350.0,
        "text": "Context compacted — earlier turns were summarized",
        "compaction": state(8, false, &"Primary request: tidy the build. ".repeat(20), T0 + 350.0)}));
    v.extend(turn(4));
    v
}

#[test]
fn the_block_of_an_earlier_trim_is_in_the_requests_it_was_sent_with() {
    let dir = tempfile::tempdir().unwrap();
    let conv = dir.path().join("coworker/conversations");
    std::fs::create_dir_all(&conv).unwrap();
    let text: String = lines().iter().map(|l| pyjson::dumps(l) + "\n").collect();
    std::fs::write(conv.join("7a1f00000001.jsonl"), text).unwrap();
    let s = api::load_session(&dir.path().join("coworker"), Some("7a1f00000001")).unwrap();
    let trim = s.compactions[0].cut_index;
    assert!(
        s.compactions[0].summary_index.is_none(),
        "the trim writes no summary message"
    );
    // Request 3 is answered by "Done step 2.", after the trim's notice and before the
    // compaction's.
    let ctx = api::request_context(&s, 3, None).unwrap();
    assert!(
        ctx.indices.contains(&trim),
        "the trim's block (#{trim}) was sent with request 3; got {:?}",
        ctx.indices
    );
    let last = api::request_context(&s, 5, None).unwrap();
    assert!(
        !last.indices.contains(&trim),
        "after the next compaction it is gone; got {:?}",
        last.indices
    );
}
