//! coworker sizes a message as its engine holds it: the stored dict with its sidecar keys, and a
//! notice with the record it carries (`len(json.dumps(msg))`, coworker-format.md §4). The reader
//! records those lengths, so a compact-once replay without the stored lines picks the boundary
//! the harness picks; sized by the rebuilt chat shape it picks another.

use palimpsest_core::model::Session;
use palimpsest_core::replay::coworker as cw;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions, replay_once};
use palimpsest_fixtures::coworker::pyjson;
use serde_json::{Value, json};

const T0: f64 = 1_788_200_000.0;

/// A worker written the way coworker writes it: sidecars on every message (`ts`, `source`,
/// `usage`, `timing`, `reasoning`, `_display`), and after turn 8 a `compacted` notice whose
/// record holds a 6 000-character summary.
fn lines() -> Vec<Value> {
    let mut v = vec![json!({"role": "system", "content": "You are coworker. Work in /w."})];
    for t in 0..14 {
        let ts = T0 + 60.0 * f64::from(t);
        v.push(json!({"role": "user", "content": format!("Step {t}: check module_{t}.py"), "ts": ts,
            "source": {"kind": "gui", "client": "desktop"}, "_display": format!("/check module_{t}.py")}));
        v.push(json!({"role": "assistant", "content": "", "ts": ts + 2.0,
            "usage": {"model": "openai:m", "input": 3000 + t * 100, "output": 90, "cache_read": 0, "cache_write": 0},
            "finish_reason": "tool_calls", "reasoning": "Read the module before changing it. ".repeat(8),
            "timing": {"model_started": ts + 1.0, "model_ms": 900.0},
            "tool_calls": [{"id": format!("call_{t}"), "type": "function",
                "function": {"name": "read_file", "arguments": pyjson::dumps(&json!({"path": format!("module_{t}.py")}))}}]}));
        v.push(json!({"role": "tool", "tool_call_id": format!("call_{t}"), "content": "def f():\n    return 1\n".repeat(6),
            "ts": ts + 2.5, "timing": {"waited_started": 0, "waited_ms": 0, "tool_started": ts + 2.1, "tool_ms": 4.0},
            "_display": {"hidden_by_filters": 0, "approval_origin": "reviewer", "approval_grant": "once"}}));
        v.push(json!({"role": "assistant", "content": format!("module_{t}.py is fine."), "ts": ts + 4.0,
            "usage": {"model": "openai:m", "input": 3200 + t * 100, "output": 12, "cache_read": 0, "cache_write": 0},
            "finish_reason": "stop", "timing": {"model_started": ts + 3.0, "model_ms": 700.0}}));
        if t == 8 {
            v.push(json!({"role": "notice", "kind": "compacted", "ts": ts + 5.0,
                "text": "Context compacted — earlier turns were summarized",
                "compaction": {"boundary_index": 9, "summary_text": "Checked modules 0 to 1. ".repeat(250),
                    "working_state": "", "user_messages": ["Step 0: check module_0.py"], "user_messages_dropped": 0,
                    "created_at": ts + 5.0, "model_used": "openai:m", "trimmed": false, "transcript_path": ""}}));
        }
    }
    v
}

fn load() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    // A state folder named as coworker names it, holding the conversation.
    let state = dir.path().join("coworker");
    let conv = state.join("conversations");
    std::fs::create_dir_all(&conv).unwrap();
    let text: String = lines().iter().map(|l| pyjson::dumps(l) + "\n").collect();
    std::fs::write(conv.join("5a1e5c0a1e5c.jsonl"), text).unwrap();
    let s = palimpsest_core::api::load_session(&state, Some("5a1e5c0a1e5c"))
        .expect("the session loads");
    assert_eq!(
        s.meta.format,
        palimpsest_core::model::SourceFormat::Coworker,
        "read by the coworker reader"
    );
    (dir, s)
}

fn options() -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::Coworker,
        context_window: Some(4_400),
        ..ReplayOptions::default()
    }
}

fn cut(s: &Session, raw: Option<&[Option<Value>]>) -> usize {
    replay_once(
        s,
        &options(),
        raw,
        &palimpsest_core::tokens::counter::CharEstimate,
    )
    .requested_cut_index
}

#[test]
fn the_boundary_is_picked_on_the_stored_sizes_without_the_lines() {
    let (_dir, s) = load();
    // The stored line behind each message (the blocks the reader inserts have none).
    let stored = lines();
    let canon = cw::canonical_indices(&s.messages);
    let raw: Vec<Option<Value>> = s
        .messages
        .iter()
        .zip(&canon)
        .map(|(m, &c)| (!cw::is_rebuilt_block(m)).then(|| stored[c].clone()))
        .collect();
    let exact = cut(&s, Some(&raw));
    assert_eq!(
        exact, 51,
        "the harness keeps the suffix from the user turn at 51: what follows fits 880 tokens \
         (a quarter of the 3 520 trigger) as the engine sizes it"
    );
    assert_eq!(
        cut(&s, None),
        exact,
        "the reader's recorded sizes give the boundary the stored lines give"
    );
    let mut rebuilt = s.clone();
    for m in rebuilt.messages.iter_mut().map(std::sync::Arc::make_mut) {
        if let Some(d) = &mut m.details {
            d.edit(|v| v.as_object_mut().map(|o| o.remove("stored_len")));
        }
    }
    assert_eq!(
        cut(&rebuilt, None),
        30,
        "sized by the rebuilt chat shape (no sidecars, no notice record) the boundary moves back \
         to 30, keeping five turns more than the harness would: the difference this fixes"
    );
    let first = &s.messages[1];
    let want = pyjson::dumps(&lines()[1]).len() as u64;
    assert_eq!(
        first.details.as_ref().unwrap().value()["stored_len"][0],
        want,
        "the stored length is len(json.dumps(line)), sidecars included"
    );
}
