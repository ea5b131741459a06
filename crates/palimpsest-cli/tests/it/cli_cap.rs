//! `palimpsest cap`: the text coworker's tool-result cap makes of each result it changes, on a
//! message log whose tool result is a JSON object of 6 000 `x\n` lines (the case upstream's
//! shrink-to-fit step exists for) and one that fits.

use crate::common;

use common::{run, run_json};
use serde_json::json;

#[test]
fn cap_prints_each_changed_result_within_the_cap() {
    let t = tempfile::tempdir().unwrap();
    let big = serde_json::to_string(&json!({"output": "x\n".repeat(6000)})).unwrap();
    let log = json!([
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_shell", "arguments": "{\"command\": \"gen\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "run_shell", "arguments": "{\"command\": \"ls\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": big},
        {"role": "tool", "tool_call_id": "c2", "content": "a.txt"}
    ]);
    let file = t.path().join("log.json");
    std::fs::write(&file, serde_json::to_string(&log).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let v = run_json(&["cap", f, "--json"]);
    let changed = v.as_array().expect("an array");
    assert_eq!(changed.len(), 1, "only the big result changes");
    assert_eq!(changed[0]["call_id"], "c1", "the result of c1");
    assert_eq!(
        (
            changed[0]["bytes_before"].as_u64(),
            changed[0]["bytes_after"].as_u64()
        ),
        (Some(18_014), Some(7_751)),
        "measured as json.dumps writes it, and ending within the cap as upstream's _fit does"
    );
    let text = changed[0]["text"].as_str().unwrap();
    assert_eq!(
        text.matches("bytes omitted here").count(),
        1,
        "one marker, not a second cut"
    );
    let out = run(&["cap", f, "--tool-result-cap", "0"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "a cap of 0 is off: no tool result changes",
        "a cap of 0 is off: nothing changes"
    );
}
