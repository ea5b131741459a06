//! goose workers for the live alerts: sessions of one WAL `sessions.db`, each written by its
//! own connection as each goose process writes it (`live::Goose`: a message per commit, a
//! compaction as goose's one-transaction rewrite). `REREAD` cats `app.py` three times after a
//! compaction took it away; `HEALTHY` reads it once, edits it and passes its tests.
//! Raising the alerts is `palimpsest-core::watch`'s; timing them is the benchmark's.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Value, json};

use super::{APP_PY, SUMMARY};
use crate::live::{Goose, Step};

/// Re-reads `app.py` after a compaction.
pub const REREAD: &str = "20261207_1";
/// Never turns bad.
pub const HEALTHY: &str = "20261207_2";
/// The step of `REREAD` whose commit makes it stuck (the third re-read's result).
pub const REREAD_TIP: usize = 11;

/// One commit of a goose worker.
#[derive(Clone)]
pub enum Write {
    /// A message.
    Message(Step),
    /// A compaction with this summary.
    Compact(&'static str),
}

/// The database the workers share, in `dir`.
pub fn db(dir: &Path) -> PathBuf {
    dir.join("sessions.db")
}

fn shell(id: &str, cmd: &str, out: &str) -> [Write; 2] {
    [
        Write::Message(Step {
            role: "assistant",
            content: json!([{"type": "toolRequest", "id": id, "toolCall": {"status": "success",
                "value": {"name": "developer__shell", "arguments": {"command": cmd}}}}]),
        }),
        Write::Message(Step {
            role: "user",
            content: json!([{"type": "toolResponse", "id": id, "toolResult": {"status": "success",
                "value": [{"type": "text", "text": out}]}}]),
        }),
    ]
}

fn text(role: &'static str, text: &str) -> Write {
    Write::Message(Step {
        role,
        content: Value::Array(vec![json!({"type": "text", "text": text})]),
    })
}

/// The commits of a worker that re-reads (`REREAD`'s) or not (`HEALTHY`'s), in order; any
/// session id may write them.
pub fn writes(rereads: bool) -> Vec<Write> {
    let mut w = vec![text("user", "Fix the double coupon in app.py")];
    w.extend(shell("call_1", "cat app.py", APP_PY));
    w.extend(shell(
        "call_2",
        "pytest -q",
        "F\nFAILED test_app.py::test_coupon - assert 80 == 90\n1 failed in 0.05s",
    ));
    w.push(Write::Compact(SUMMARY));
    match rereads {
        true => {
            for k in 3..6 {
                w.extend(shell(&format!("call_{k}"), "cat app.py", APP_PY));
            }
            w.push(text("assistant", "Reading it once more to be sure."));
        }
        false => {
            w.extend(shell("call_3", "cat app.py", APP_PY));
            w.extend(shell(
                "call_4",
                "sed -i 's/apply_coupon(t, coupon) - coupon/apply_coupon(t, coupon)/' app.py",
                "",
            ));
            w.extend(shell("call_5", "pytest -q", "..\n2 passed in 0.04s"));
            w.push(text("assistant", "Fixed: the coupon is applied once."));
        }
    }
    w
}

/// A worker writing session `id` into the database at `db` (made by `live::create_db`).
pub struct Worker(Goose);

impl Worker {
    /// Begin session `id`.
    pub fn open(db: &Path, id: &str) -> Result<Self> {
        Ok(Worker(Goose::open(
            db,
            id,
            "Fix the double coupon in app.py",
        )?))
    }

    /// Commit `w`, the `k`-th write.
    pub fn write(&mut self, k: usize, w: &Write) -> Result<()> {
        match w {
            Write::Message(s) => self.0.append(s),
            Write::Compact(summary) => self.0.compact_with(k, summary),
        }
    }
}
