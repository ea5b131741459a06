//! The live writer behind `palimpsest-writer`: writes a goose WAL `sessions.db` and a
//! Claude-style JSONL the way the agents do, step by step, for watch tests and latency
//! benchmarks. Stored content and times are fixed (deterministic files); the caller gets a
//! callback after each commit to time when it became visible.
//! Watching the files is `palimpsest-core::watch`'s; measuring is the tests' and benches'.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::goose::write::{DDL_16, MODEL_CONFIG, sqlite_time};

/// What to write and how fast.
#[derive(Debug, Clone)]
pub struct Opts {
    /// The goose database to create (must not exist).
    pub goose: Option<PathBuf>,
    /// The Claude-style JSONL to create.
    pub claude: Option<PathBuf>,
    /// Messages per second.
    pub rate: f64,
    /// User turns (each: ask, two tool calls, two results).
    pub turns: usize,
    /// Compact before this turn (0 = never).
    pub compact_after: usize,
}

/// A committed write, reported to the caller as it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Message `seq` of the script was committed to `file` ("goose" or "claude").
    Message {
        /// "goose" or "claude".
        file: &'static str,
        /// 0-based position in the script.
        seq: usize,
    },
    /// A compaction was committed.
    Compaction {
        /// "goose" or "claude".
        file: &'static str,
    },
}

/// Run the script, calling `on` after each commit.
pub fn run(o: &Opts, mut on: impl FnMut(Written)) -> Result<()> {
    let mut goose = o.goose.as_deref().map(Goose::create).transpose()?;
    let mut claude = match &o.claude {
        Some(p) => Some(Claude {
            file: std::fs::File::create(p)?,
            last: None,
            n: 0,
        }),
        None => None,
    };
    let gap = Duration::from_secs_f64(1.0 / o.rate.max(0.01));
    let mut seq = 0usize;
    for (t, turn) in script(o.turns).iter().enumerate() {
        if t == o.compact_after && t > 0 {
            if let Some(g) = goose.as_mut() {
                g.compact(t)?;
                on(Written::Compaction { file: "goose" });
            }
            if let Some(c) = claude.as_mut() {
                c.compact(gap / 4)?;
                on(Written::Compaction { file: "claude" });
            }
            std::thread::sleep(gap);
        }
        for step in turn {
            if let Some(g) = goose.as_mut() {
                g.append(step)?;
                on(Written::Message { file: "goose", seq });
            }
            if let Some(c) = claude.as_mut() {
                c.step(step, gap / 4)?;
                on(Written::Message {
                    file: "claude",
                    seq,
                });
            }
            seq += 1;
            std::thread::sleep(gap);
        }
    }
    if let Some(g) = goose {
        // Fold the WAL back so the finished file is comparable byte for byte.
        g.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    }
    Ok(())
}

/// A message of the scripted run: role, goose content, and whether the turn ends here.
#[derive(Clone)]
pub struct Step {
    /// `user` or `assistant`.
    pub role: &'static str,
    /// goose content array.
    pub content: Value,
}

/// The scripted conversation: per turn a user ask, then two tool calls with their results.
pub fn script(turns: usize) -> Vec<Vec<Step>> {
    (0..turns)
        .map(|t| {
            let ask = format!("turn {t}: add a retry to fetch_rows in store.py");
            let mut steps = vec![Step { role: "user", content: json!([{"type": "text", "text": ask}]) }];
            for (k, cmd) in ["cat store.py", "pytest -q"].iter().enumerate() {
                let id = format!("call_{t}_{k}");
                steps.push(Step {
                    role: "assistant",
                    content: json!([{"type": "toolRequest", "id": id, "toolCall": {"status": "success",
                        "value": {"name": "shell", "arguments": {"cmd": cmd}}}}]),
                });
                steps.push(Step {
                    role: "user",
                    content: json!([{"type": "toolResponse", "id": id, "toolResult": {"status": "success",
                        "value": {"content": [{"type": "text", "text": format!("output of {cmd} in turn {t}")}]}}}]),
                });
            }
            steps
        })
        .collect()
}

/// Fixed clock for stored times, so the files are identical run to run.
const EPOCH: i64 = 1_780_000_000;

/// One goose session written as goose writes it, into a WAL `sessions.db` other writers and
/// readers may share (each worker its own connection, as each goose process has).
pub struct Goose {
    conn: Connection,
    id: String,
    rows: Vec<(Step, bool, bool, i64)>,
}

impl Goose {
    /// Create the database at `path` (schema 16, WAL) holding session `live-1`.
    fn create(path: &std::path::Path) -> Result<Self> {
        create_db(path)?;
        Goose::open(path, "live-1", "live writer")
    }

    /// Begin session `id` in the goose database at `path` (made by [`create_db`]).
    pub fn open(path: &std::path::Path, id: &str, name: &str) -> Result<Self> {
        let conn = Connection::open(path)?;
        // Readers may hold the WAL open: wait for them rather than leave a checkpoint half done.
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir, created_at, updated_at, provider_name, model_config_json) \
             VALUES (?1, ?2, '/work/live', ?3, ?3, 'openai', ?4)",
            params![id, name, sqlite_time(EPOCH), MODEL_CONFIG],
        )?;
        Ok(Goose {
            conn,
            id: id.to_owned(),
            rows: Vec::new(),
        })
    }

    fn insert(&self, seq: usize, s: &Step, user: bool, agent: bool, created: i64) -> Result<()> {
        self.conn.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, metadata_json) \
             VALUES (?1, ?7, ?2, ?3, ?4, ?5, ?6)",
            params![
                // `live-1` keeps the ids its files always had.
                if self.id == "live-1" { format!("msg_live_{seq}") } else { format!("msg_{}_{seq}", self.id) },
                s.role,
                s.content.to_string(),
                created,
                sqlite_time(EPOCH + seq as i64),
                json!({"userVisible": user, "agentVisible": agent}).to_string(),
                self.id
            ],
        )?;
        self.conn.execute(
            "UPDATE sessions SET updated_at = ?1 WHERE id = ?2",
            params![sqlite_time(EPOCH + seq as i64), self.id],
        )?;
        Ok(())
    }

    /// Commit one message, visible to both.
    pub fn append(&mut self, s: &Step) -> Result<()> {
        // goose clamps `created` to the session's newest so a row never sorts before existing ones.
        let newest = self.rows.last().map_or(EPOCH, |r| r.3 + 1);
        let created = newest.max(EPOCH + self.rows.len() as i64);
        self.insert(self.rows.len(), s, true, true, created)?;
        self.rows.push((s.clone(), true, true, created));
        Ok(())
    }

    /// goose's `compact_messages` + `replace_conversation`: one transaction that deletes every
    /// row and re-inserts the originals agent-invisible, then summary, continuation and the
    /// preserved copy of the last text-only user message.
    fn compact(&mut self, n: usize) -> Result<()> {
        self.compact_with(n, &format!("summary {n}: store.py was read, pytest failed"))
    }

    /// A compaction whose summary is `summary`; `n` only orders its time after the rows.
    pub fn compact_with(&mut self, n: usize, summary: &str) -> Result<()> {
        let preserved =
            self.rows.iter().rev().find(|(s, _, agent, _)| {
                *agent && s.role == "user" && s.content[0]["type"] == "text"
            });
        let preserved_text = preserved.map(|(s, ..)| s.content[0]["text"].clone());
        for r in &mut self.rows {
            r.2 = false;
        }
        let now = EPOCH + 10_000 + n as i64;
        self.rows.push((
            Step {
                role: "user",
                content: json!([{"type": "text", "text": summary}]),
            },
            false,
            true,
            now,
        ));
        self.rows.push((
            Step {
                role: "assistant",
                content: json!([{"type": "text", "text": TOOL_LOOP}]),
            },
            false,
            true,
            now,
        ));
        if let Some(text) = preserved_text {
            self.rows.push((
                Step {
                    role: "user",
                    content: json!([{"type": "text", "text": text}]),
                },
                true,
                true,
                now,
            ));
        }
        let tx = self.conn.unchecked_transaction()?;
        tx.execute("DELETE FROM messages WHERE session_id = ?1", [&self.id])?;
        for (i, (s, user, agent, created)) in self.rows.iter().enumerate() {
            self.insert(i, s, *user, *agent, *created)?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// Create an empty goose database at `path` (schema 16) in WAL mode, as goose leaves it.
pub fn create_db(path: &std::path::Path) -> Result<()> {
    let conn = Connection::open(path)?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
    conn.execute_batch(DDL_16)?;
    conn.execute(
        "INSERT INTO schema_version (version, applied_at) VALUES (16, ?1)",
        [sqlite_time(EPOCH)],
    )?;
    Ok(())
}

const TOOL_LOOP: &str = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";

struct Claude {
    file: std::fs::File,
    last: Option<String>,
    n: usize,
}

impl Claude {
    fn line(&mut self, mut v: Value, pause: Duration) -> Result<()> {
        let uuid = format!("00000000-0000-4000-8000-{:012}", self.n);
        v["uuid"] = json!(uuid);
        v["sessionId"] = json!("11111111-2222-4333-8444-555555555555");
        v["timestamp"] = json!(format!(
            "2026-06-01T00:{:02}:{:02}.000Z",
            self.n / 60 % 60,
            self.n % 60
        ));
        if v.get("parentUuid").is_none() {
            v["parentUuid"] = json!(self.last);
        }
        let text = format!("{v}\n");
        let (a, b) = text.split_at(text.len() / 2);
        // Two writes with a pause between: a reader must wait for the rest of the line.
        self.file.write_all(a.as_bytes())?;
        self.file.flush()?;
        std::thread::sleep(pause);
        self.file.write_all(b.as_bytes())?;
        self.file.flush()?;
        self.last = Some(uuid);
        self.n += 1;
        Ok(())
    }

    fn step(&mut self, s: &Step, pause: Duration) -> Result<()> {
        let c = &s.content[0];
        let message = match c["type"].as_str() {
            Some("toolRequest") => {
                json!({"id": format!("msg_{}", self.n), "role": "assistant", "content": [{"type": "tool_use",
                "id": c["id"], "name": "Bash", "input": {"command": c["toolCall"]["value"]["arguments"]["cmd"]}}]})
            }
            Some("toolResponse") => {
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": c["id"],
                "content": c["toolResult"]["value"]["content"][0]["text"]}]})
            }
            _ => json!({"role": "user", "content": c["text"]}),
        };
        self.line(json!({"type": if s.role == "assistant" { "assistant" } else { "user" }, "message": message}), pause)
    }

    fn compact(&mut self, pause: Duration) -> Result<()> {
        let logical = self.last.clone();
        self.line(
            json!({"parentUuid": null, "logicalParentUuid": logical, "type": "system", "subtype": "compact_boundary",
                "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150000}}),
            pause,
        )?;
        self.line(
            json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": {"role": "user",
                "content": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation."}}),
            pause,
        )
    }
}
