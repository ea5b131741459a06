//! coworker (OpenWorker) fixtures under `fixtures/coworker/`: a state folder (`state/`:
//! `coworker.db` + `conversations/`), the spill folders of its scratch base (`scratch/`) and a
//! headless `--out` folder (`headless/`). The sessions themselves are in [`content`].
//! This crate only writes fixtures; reading them is `palimpsest-core`'s coworker reader.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::Value;

pub mod content;
pub mod pyjson;

use content::*;

/// The `sessions` table as DS-store creates it (coworker-format.md §1).
const DDL: &str =
    "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, workspace TEXT, model TEXT, mode TEXT,
  title TEXT, agent TEXT DEFAULT 'code', n_msgs INTEGER DEFAULT 0, messages TEXT,
  extra_roots TEXT, pinned INTEGER DEFAULT 0, archived INTEGER DEFAULT 0,
  origin TEXT, origin_label TEXT, auto_title TEXT, renamed INTEGER DEFAULT 0,
  updated_at TEXT DEFAULT CURRENT_TIMESTAMP, grants TEXT, compaction TEXT, team TEXT,
  bindings TEXT, actor TEXT, usage TEXT, spawn TEXT);
CREATE TABLE workspaces (path TEXT PRIMARY KEY, last_used TEXT DEFAULT CURRENT_TIMESTAMP);";

/// Write everything under `<out>/coworker/`, replacing what is there.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("coworker");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let state = root.join("state");
    let conv = state.join("conversations");
    std::fs::create_dir_all(&conv).with_context(|| format!("create {}", conv.display()))?;
    write(
        &conv.join(format!("{MAIN_ID}.jsonl")),
        &lines(&main_session()),
    )?;
    write(
        &conv.join(format!("{OLD_ID}.jsonl")),
        &lines(&old_session()),
    )?;
    // A bad middle line is reported; the unfinished last line is still being written.
    let damaged = lines(&[
        serde_json::json!({"role": "system", "content": "You are coworker."}),
        serde_json::json!({"role": "user", "content": "Check disk usage.", "ts": 1788117000.0}),
    ]) + "{\"role\": \"assistant\", \"content\": \"Checking\n"
        + &lines(&[
            serde_json::json!({"role": "assistant", "content": "Disk is 41% full.", "ts": 1788117010.0}),
        ])
        + "{\"role\": \"user\", \"content\": \"and mem";
    write(&conv.join(format!("{DAMAGED_ID}.jsonl")), &damaged)?;
    write_db(&state.join("coworker.db"))?;

    let spills = root.join("scratch").join(MAIN_ID).join("tool-output");
    std::fs::create_dir_all(&spills).with_context(|| format!("create {}", spills.display()))?;
    // 0001-read_file.txt is present; 0002-run_shell-output.txt is deliberately missing.
    write(&spills.join("0001-read_file.txt"), &sales_csv())?;
    write(
        &spills.join("compacted-transcript-upto-0007.md"),
        &transcript(&main_session(), 7),
    )?;
    write(
        &spills.join("compacted-transcript-upto-0010.md"),
        &transcript(&main_session(), 10),
    )?;

    let headless = root.join("headless");
    std::fs::create_dir_all(headless.join("tool-output"))?;
    write(
        &headless.join("messages.json"),
        &(pyjson::dumps(&Value::Array(headless_session())) + "\n"),
    )?;
    write(
        &headless.join("tool-output").join("0001-run_shell.txt"),
        &headless_spill(),
    )?;
    write(
        &headless.join("events.jsonl"),
        &lines(&[
            serde_json::json!({"type": "turn_started", "ts": 1788117000.0}),
            serde_json::json!({"type": "turn_finished", "ts": 1788117010.0}),
        ]),
    )?;
    write(
        &headless.join("summary.json"),
        &(pyjson::dumps(
            &serde_json::json!({"session_id": "run-7", "model": "openai:gpt-5", "status": "completed"}),
        ) + "\n"),
    )?;
    Ok(())
}

fn write(p: &Path, text: &str) -> Result<()> {
    std::fs::write(p, text).with_context(|| format!("write {}", p.display()))
}

/// One `json.dumps` line per message, as `ConversationStore.save` appends them.
fn lines(msgs: &[Value]) -> String {
    msgs.iter().map(|m| pyjson::dumps(m) + "\n").collect()
}

fn write_db(path: &Path) -> Result<()> {
    let conn = Connection::open(path).with_context(|| format!("create {}", path.display()))?;
    conn.execute_batch(DDL)?;
    let [_, _, latest] = main_records();
    let usage = serde_json::json!({"openai:gpt-5": {"input": 40868, "output": 1539, "cache_read": 40200, "cache_write": 0, "turns": 9}});
    let insert = "INSERT INTO sessions (session_id, workspace, model, mode, title, n_msgs, messages, auto_title, renamed, updated_at, compaction, usage) VALUES (?1, ?2, ?3, 'code', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
    conn.execute(
        insert,
        params![
            MAIN_ID,
            "/work/sales",
            "openai:gpt-5",
            "first title",
            20,
            None::<String>,
            "Monthly sales report",
            0,
            "2026-08-31 10:04:10",
            pyjson::dumps(&latest),
            pyjson::dumps(&usage)
        ],
    )?;
    conn.execute(
        insert,
        params![
            OLD_ID,
            "/work/tests",
            "anthropic:claude-sonnet-4-5",
            None::<String>,
            8,
            None::<String>,
            None::<String>,
            0,
            "2026-08-30 10:01:10",
            pyjson::dumps(&old_column()),
            None::<String>
        ],
    )?;
    conn.execute(
        insert,
        params![
            INLINE_ID,
            "/work/scratch",
            "openai:gpt-5",
            "Pinned: scratch",
            2,
            pyjson::dumps(&Value::Array(inline_session())),
            None::<String>,
            1,
            "2026-08-28 10:00:00",
            "{}",
            None::<String>
        ],
    )?;
    Ok(())
}

/// `render_transcript(messages, upto)`, enough to make the linked files real.
fn transcript(msgs: &[Value], upto: usize) -> String {
    let mut out = format!(
        "# Compacted transcript\n\nMessages 0 to {} of this session, verbatim, written when they were summarised into the compacted history block.\n",
        upto - 1
    );
    for (i, m) in msgs.iter().enumerate().take(upto) {
        let role = m["role"].as_str().unwrap_or_default();
        match role {
            "system" => continue,
            "notice" => out.push_str(&format!(
                "\n## [{i}] notice: {}\n\n{}\n",
                m["kind"].as_str().unwrap_or_default(),
                m["text"].as_str().unwrap_or_default()
            )),
            _ => {
                out.push_str(&format!(
                    "\n## [{i}] {role}\n\n{}\n",
                    m["content"].as_str().unwrap_or_default()
                ));
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    out.push_str(&format!(
                        "\ntool call: {}\n```\n{}\n```\n",
                        c["function"]["name"].as_str().unwrap_or_default(),
                        c["function"]["arguments"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
    }
    out
}
