//! Codex workers for the live alerts: rollouts appended line by line as Codex CLI writes them
//! (`session_meta`, `response_item` calls and outputs, `token_count` events, a local
//! `compacted`). `REREAD` cats `app.py` three times after a compaction took it away; `HEALTHY`
//! reads it once, patches it and passes its tests.
//! Raising the alerts is `palimpsest-core::watch`'s; timing them is the benchmark's.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{APP_PY, SUMMARY};
use crate::codex::{call, head, line, msg, output, tokens, ts, turn, user_event};

/// Re-reads `app.py` after a compaction.
pub const REREAD: &str = "019d0a1e-0000-7000-8000-00000000c001";
/// Never turns bad.
pub const HEALTHY: &str = "019d0a1e-0000-7000-8000-00000000c002";
/// The line of `REREAD` that makes it stuck (the third re-read's output).
pub const REREAD_TIP: usize = 22;

/// `<dir>/sessions/2026/02/24/rollout-…-<id>.jsonl`: where Codex would keep session `id`.
pub fn path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!(
        "sessions/2026/02/24/rollout-2026-02-24T09-00-00-{id}.jsonl"
    ))
}

fn exec(v: &mut Vec<Value>, s: u32, id: &str, cmd: &str, out: &str, context: u64) {
    v.push(call(&ts(9, 1, s), id, cmd));
    let out = json!({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.1}});
    v.push(output(&ts(9, 1, s), id, &out.to_string()));
    v.push(tokens(&ts(9, 1, s), context, context * 2));
}

/// The lines of session `id`, a worker that re-reads (`REREAD`'s) or not (`HEALTHY`'s), in
/// the order it writes them.
pub fn lines(id: &str, rereads: bool) -> Vec<Value> {
    let ask = "Fix the double coupon in app.py";
    let mut v = head(id, 9);
    v.push(user_event(&ts(9, 1, 0), ask));
    v.push(msg(&ts(9, 1, 0), "user", ask));
    exec(&mut v, 1, "call_1", "cat app.py", APP_PY, 150_000);
    exec(
        &mut v,
        2,
        "call_2",
        "pytest -q",
        "F\nFAILED test_app.py::test_coupon - assert 80 == 90\n1 failed in 0.05s",
        160_000,
    );
    v.push(turn(&ts(9, 1, 3)));
    v.push(line(
        &ts(9, 1, 4),
        "compacted",
        json!({ "message": SUMMARY, "replacement_history": null }),
    ));
    v.push(line(
        &ts(9, 1, 4),
        "event_msg",
        json!({ "type": "context_compacted" }),
    ));
    if rereads {
        for k in 0..3 {
            exec(
                &mut v,
                5 + k,
                &format!("call_{}", 3 + k),
                "cat app.py",
                APP_PY,
                21_000,
            );
        }
        v.push(msg(
            &ts(9, 1, 9),
            "assistant",
            "Reading it once more to be sure.",
        ));
    } else {
        exec(&mut v, 5, "call_3", "cat app.py", APP_PY, 21_000);
        exec(
            &mut v,
            6,
            "call_4",
            "sed -i 's/apply_coupon(t, coupon) - coupon/apply_coupon(t, coupon)/' app.py",
            "",
            22_000,
        );
        exec(
            &mut v,
            7,
            "call_5",
            "pytest -q",
            "..\n2 passed in 0.04s",
            23_000,
        );
        v.push(msg(
            &ts(9, 1, 8),
            "assistant",
            "Fixed: the coupon is applied once.",
        ));
    }
    v
}
