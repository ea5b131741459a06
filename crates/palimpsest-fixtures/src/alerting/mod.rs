//! A fleet of Claude Code workers for the live alerts (`watch --alerts`): each transcript turns
//! stuck one way at a known line, one stays healthy. Written line by line by the tests and the
//! latency benchmark as if the workers were running; made on demand, not committed (the
//! bundled fixtures' counts stay as they are). goose and Codex workers, turning stuck by
//! re-reading after a compaction, are in [`goose`] and [`codex`].
//!
//! | session | turns bad by | at |
//! |---|---|---|
//! | `REREAD` | `app.py` re-read three times, after a compaction | the third re-read |
//! | `STORM` | two compactions one request apart | the second |
//! | `FREED` | a compaction whose next request still carries 93 % | that request |
//! | `TOO_LONG` | *Prompt is too long* after a compaction | the error |
//! | `FAILING` | `npm test` failing unchanged three times | the third |
//! | `REPEATED` | the same `make lint` with the same answer three times | the third |
//! | `IDLE` | a compaction, then nothing | (the watcher's clock) |
//! | `COSTLY` | six requests of 180 000 cache-written tokens | past a $10 budget |
//! | `HEALTHY` | nothing: one re-read after a compaction, then work | — |

use std::path::{Path, PathBuf};

pub mod codex;
pub mod goose;

use anyhow::Result;
use serde_json::{Value, json};

use crate::claude::Transcript;

/// Re-reads a file a compaction took away.
pub const REREAD: &str = "a1e70000-0000-4000-8000-000000000001";
/// Compacts twice in a row.
pub const STORM: &str = "a1e70000-0000-4000-8000-000000000002";
/// Compacts and frees little.
pub const FREED: &str = "a1e70000-0000-4000-8000-000000000003";
/// Is refused as too long after a compaction.
pub const TOO_LONG: &str = "a1e70000-0000-4000-8000-000000000004";
/// Fails the same call three times.
pub const FAILING: &str = "a1e70000-0000-4000-8000-000000000005";
/// Makes the same call with the same answer three times.
pub const REPEATED: &str = "a1e70000-0000-4000-8000-000000000006";
/// Compacts, then stops.
pub const IDLE: &str = "a1e70000-0000-4000-8000-000000000007";
/// Costs more than $10.
pub const COSTLY: &str = "a1e70000-0000-4000-8000-000000000008";
/// Never turns bad.
pub const HEALTHY: &str = "a1e70000-0000-4000-8000-000000000009";

/// Every session, in the order above.
pub const ALL: [&str; 9] = [
    REREAD, STORM, FREED, TOO_LONG, FAILING, REPEATED, IDLE, COSTLY, HEALTHY,
];

/// A usable summary (over 400 characters), so no alert is about the summary itself.
pub(crate) const SUMMARY: &str = "1. Primary Request and Intent: make the checkout total apply the coupon once.\n\
2. Key Technical Concepts: cart totals, coupons, pytest.\n\
3. Files and Code Sections: app.py holds total() and apply_coupon(); test_app.py holds test_coupon.\n\
4. Errors and fixes: test_coupon fails, the coupon is subtracted twice.\n\
5. Pending Tasks: remove the second subtraction in total().\n\
6. Current Work: reading app.py to find where total() subtracts the coupon.\n\
7. Next Step: edit total() and run pytest -q.";

pub(crate) const APP_PY: &str = "def apply_coupon(total, coupon):\n    return total - coupon\n\n\ndef total(cart, coupon):\n    t = sum(i.price for i in cart)\n    return apply_coupon(t, coupon) - coupon\n";

fn read_app(t: &mut Transcript, context: u64) {
    t.tool(
        "Read",
        json!({"file_path": "/w/shop/app.py"}),
        APP_PY,
        context,
    );
}

/// Each worker's task: the session's name in a listing.
fn ask(id: &str) -> &'static str {
    match id {
        REREAD => "Fix the double coupon in app.py",
        STORM => "Find why checkout totals drift",
        FREED => "Refactor the cart totals",
        TOO_LONG => "Port the coupon tests to pytest",
        FAILING => "Make the test suite pass",
        REPEATED => "Clean up the lint warnings",
        IDLE => "Document the checkout flow",
        COSTLY => "Rewrite the pricing module",
        _ => "Apply the coupon once at checkout",
    }
}

fn opening(t: &mut Transcript, id: &str) {
    t.user(&format!(
        "{}: the coupon is applied twice at checkout.",
        ask(id)
    ));
    read_app(t, 18_000);
    t.tool(
        "Bash",
        json!({"command": "pytest -q"}),
        "F\nFAILED test_app.py::test_coupon - assert 80 == 90\n1 failed in 0.05s",
        19_000,
    );
}

/// Each session's lines, in the order the worker writes them.
pub fn transcripts() -> Vec<(&'static str, Vec<Value>)> {
    ALL.iter().map(|id| (*id, lines(id))).collect()
}

fn lines(id: &str) -> Vec<Value> {
    let mut t = Transcript::new(id);
    opening(&mut t, id);
    match id {
        REREAD => {
            t.compact("auto", 160_000, SUMMARY);
            t.user("Continue.");
            for context in [21_000, 22_000, 23_000] {
                read_app(&mut t, context);
            }
            t.say("Reading it once more to be sure.", 24_000);
        }
        STORM => {
            t.compact("auto", 160_000, SUMMARY);
            read_app(&mut t, 30_000);
            t.compact("auto", 158_000, SUMMARY);
            t.say("Picking up from the summary.", 31_000);
        }
        FREED => {
            t.compact("auto", 160_000, SUMMARY);
            t.say("Continuing from the summary.", 149_000);
        }
        TOO_LONG => {
            t.compact("auto", 160_000, SUMMARY);
            t.say("Continuing from the summary.", 40_000);
            t.api_error("Prompt is too long: 204112 tokens > 200000 maximum");
        }
        FAILING => {
            for context in [20_000, 21_000, 22_000] {
                t.tool_error(
                    "Bash",
                    json!({"command": "npm test"}),
                    "npm ERR! Missing script: \"test\"",
                    context,
                );
            }
            t.say("The test script is missing.", 23_000);
        }
        REPEATED => {
            for context in [20_000, 21_000, 22_000] {
                t.tool(
                    "Bash",
                    json!({"command": "make lint"}),
                    "app.py:7: E501 line too long",
                    context,
                );
            }
        }
        IDLE => {
            t.compact("auto", 160_000, SUMMARY);
        }
        COSTLY => {
            // Each request writes 180 000 tokens to the cache: about $3.40 at Opus rates.
            for k in 0..6 {
                t.streamed(
                    "claude-opus-4-6",
                    &[json!({"type": "text", "text": format!("Step {k} of the rewrite.")})],
                    [10, 0, 180_000],
                    &[400],
                );
            }
        }
        HEALTHY => {
            t.compact("auto", 160_000, SUMMARY);
            t.user("Continue.");
            read_app(&mut t, 21_000);
            t.tool(
                "Edit",
                json!({"file_path": "/w/shop/app.py", "old_string": "apply_coupon(t, coupon) - coupon",
                    "new_string": "apply_coupon(t, coupon)"}),
                "The file has been updated.",
                22_000,
            );
            t.tool(
                "Bash",
                json!({"command": "pytest -q"}),
                "..\n2 passed in 0.04s",
                23_000,
            );
            t.say("Fixed: the coupon is applied once.", 24_000);
        }
        _ => unreachable!("one of ALL"),
    }
    t.lines
}

/// `<dir>/<id>.jsonl` of session `id`.
pub fn path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.jsonl"))
}

/// Write every transcript whole into `dir` (for `palimpsest-fixtures --alerting DIR`).
pub fn write(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    transcripts()
        .into_iter()
        .map(|(id, lines)| {
            let p = path(dir, id);
            crate::claude::write_lines(&p, &lines)?;
            Ok(p)
        })
        .collect()
}
