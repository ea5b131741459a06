//! A Crush database, opened read-only (`sources::sqlite`) and checked for Crush's tables, and
//! its sessions made into the model's messages. A message's `parts` are a JSON list of
//! `{type, data}`: `text`, `reasoning`, `tool_call` (its `input` a JSON string), `tool_result`
//! (in a `tool` message), `finish`. A summarised session points at its summary
//! (`sessions.summary_message_id`, an assistant message, `is_summary_message` in newer builds):
//! the model then sees that summary, as a user message, and what follows it; Crush keeps no
//! verbatim tail. Every summary message is a cut.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::model::{
    CompactionRecord, Message, MessageKind, Part, RecordedUsage, Role, Session, SessionMeta,
    SourceFormat,
};

/// A checked Crush database.
pub struct Db {
    path: PathBuf,
    conn: Connection,
    /// Newer builds mark every summary (`messages.is_summary_message`).
    marks_summaries: bool,
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::Sqlite {
        path: path.to_owned(),
        source: e,
    }
}

/// Crush writes seconds; a value past year 5138 in seconds is milliseconds already.
fn ms(t: i64) -> i64 {
    if t < 100_000_000_000 { t * 1000 } else { t }
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
        .query_map([], |r| r.get(0))?
        .collect()
}

impl Db {
    /// Open `path` and check it is Crush's: `sessions` with `summary_message_id`, `messages`
    /// with `parts`, and the migration tool's `goose_db_version`.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = crate::sources::sqlite::open(path)?;
        let e = sql(path);
        let sessions = columns(&conn, "sessions").map_err(&e)?;
        let messages = columns(&conn, "messages").map_err(&e)?;
        let versions = columns(&conn, "goose_db_version").map_err(&e)?;
        let has = |c: &[String], k: &str| c.iter().any(|x| x == k);
        if !(has(&sessions, "summary_message_id")
            && has(&messages, "parts")
            && !versions.is_empty())
        {
            return Err(Error::format(
                path,
                "not a Crush database: no sessions.summary_message_id, messages.parts and goose_db_version",
            ));
        }
        Ok(Db {
            path: path.to_owned(),
            marks_summaries: has(&messages, "is_summary_message"),
            conn,
        })
    }

    /// The sessions (one when `only` names it), most recently updated first.
    pub fn list(&self, only: Option<&str>) -> Result<Vec<SessionMeta>> {
        let e = sql(&self.path);
        let summaries = if self.marks_summaries {
            "(SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.is_summary_message = 1)"
        } else {
            "(s.summary_message_id IS NOT NULL)"
        };
        let mut q = self
            .conn
            .prepare(&format!(
                "SELECT s.id, s.parent_session_id, s.title, s.created_at, s.updated_at, s.prompt_tokens,
                   s.completion_tokens, (SELECT count(*) FROM messages m WHERE m.session_id = s.id),
                   {summaries},
                   (SELECT model FROM messages m WHERE m.session_id = s.id AND m.model IS NOT NULL
                      ORDER BY m.created_at DESC, m.rowid DESC LIMIT 1)
                 FROM sessions s WHERE ?1 IS NULL OR s.id = ?1 ORDER BY s.updated_at DESC, s.id"
            ))
            .map_err(&e)?;
        let rows = q
            .query_map(params![only], |r| {
                let (prompt, completion): (i64, i64) = (r.get(5)?, r.get(6)?);
                Ok(SessionMeta {
                    id: r.get(0)?,
                    format: SourceFormat::Crush,
                    path: self.path.display().to_string(),
                    name: r.get(2)?,
                    working_dir: self.project(),
                    created: Some(ms(r.get(3)?)),
                    updated: Some(ms(r.get(4)?)),
                    model: r.get(9)?,
                    context_limit: None,
                    usage: Some(RecordedUsage {
                        accumulated_total_tokens: Some((prompt + completion).max(0) as u64),
                        ..RecordedUsage::default()
                    }),
                    message_count: r.get::<_, i64>(7)? as usize,
                    compaction_count: r.get::<_, i64>(8)? as usize,
                    parent_id: r.get(1)?,
                })
            })
            .map_err(&e)?;
        rows.collect::<rusqlite::Result<_>>().map_err(&e)
    }

    /// The project the data folder belongs to: the folder holding `.crush`.
    fn project(&self) -> Option<String> {
        let data = self.path.parent()?;
        (data.file_name()? == ".crush")
            .then(|| data.parent().map(|p| p.display().to_string()))
            .flatten()
    }

    /// The stored row of message `id`, for the raw view.
    pub fn raw(&self, id: &str) -> Result<Option<String>> {
        let row: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT role, parts FROM messages WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok();
        Ok(row.map(|(role, parts)| {
            let parts: Value = serde_json::from_str(&parts).unwrap_or(Value::String(parts));
            serde_json::to_string_pretty(&json!({"id": id, "role": role, "parts": parts}))
                .unwrap_or_default()
        }))
    }

    /// Session `meta`'s messages and cuts.
    pub fn session(&self, mut meta: SessionMeta) -> Result<Session> {
        let e = sql(&self.path);
        let summary: Option<String> = self
            .conn
            .query_row(
                "SELECT summary_message_id FROM sessions WHERE id = ?1",
                params![meta.id],
                |r| r.get(0),
            )
            .map_err(&e)?;
        let flag = if self.marks_summaries {
            "is_summary_message"
        } else {
            "0"
        };
        let mut q = self
            .conn
            .prepare(&format!(
                "SELECT id, rowid, role, parts, model, created_at, {flag} FROM messages
                 WHERE session_id = ?1 ORDER BY created_at, rowid"
            ))
            .map_err(&e)?;
        let mut messages: Vec<Message> = Vec::new();
        let rows = q
            .query_map(params![meta.id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })
            .map_err(&e)?;
        for row in rows {
            let (id, rowid, role, parts, model, created, marked) = row.map_err(&e)?;
            let index = messages.len();
            let mut m = match serde_json::from_str::<Value>(&parts) {
                Ok(v) => message(index, &role, &v),
                Err(err) => Message::unreadable(
                    index,
                    "parts",
                    parts.clone(),
                    format!("{}: row {rowid}: message {id}: {err}", self.path.display()),
                ),
            };
            if marked == 1 || summary.as_deref() == Some(id.as_str()) {
                // The model gets a summary as a user message.
                m.role = Role::User;
                m.kind = MessageKind::Summary;
                m.set_detail("stored_role", json!(role));
            }
            if let Some(model) = model {
                m.set_detail("model", json!(model));
            }
            m.id = Some(id);
            m.created = Some(ms(created));
            messages.push(m);
        }
        let compactions: Vec<CompactionRecord> = messages
            .iter()
            .filter(|m| m.kind == MessageKind::Summary)
            .map(|m| CompactionRecord {
                cut_index: m.index,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index: Some(m.index),
                kept: Vec::new(),
                raw: None,
                applied_index: None,
                archived: None,
            })
            .collect();
        // The model sees the summary the session points at and what follows it.
        if let Some(at) = messages
            .iter()
            .position(|m| m.id.as_deref() == summary.as_deref() && summary.is_some())
        {
            for m in &mut messages[..at] {
                m.agent_visible = false;
            }
        }
        meta.message_count = messages.len();
        meta.compaction_count = compactions.len();
        Ok(Session {
            meta,
            messages: crate::model::shared(messages),
            compactions,
        })
    }
}

/// One stored message's parts as the model's message.
fn message(index: usize, role: &str, parts: &Value) -> Message {
    let role = match role {
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        "system" => Role::System,
        _ => Role::User,
    };
    let mut m = Message::new(index, role, Vec::new());
    for p in parts.as_array().into_iter().flatten() {
        let d = &p["data"];
        match p["type"].as_str() {
            Some("text") => m.parts.push(Part::Text {
                text: d["text"].as_str().unwrap_or_default().to_owned(),
            }),
            Some("reasoning") => m.parts.push(Part::Thinking {
                text: d["thinking"].as_str().unwrap_or_default().to_owned(),
                redacted: false,
            }),
            Some("tool_call") => {
                // The input is the arguments' JSON text; one that does not parse stays text.
                let input = d["input"].as_str().unwrap_or("{}");
                let args = serde_json::from_str(input).unwrap_or_else(|_| json!(input));
                m.parts.push(Part::ToolCall {
                    id: d["id"].as_str().unwrap_or_default().to_owned(),
                    name: d["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: args.into(),
                });
            }
            Some("tool_result") => {
                let text = d["content"].as_str().unwrap_or_default();
                m.parts.push(Part::ToolResult {
                    call_id: d["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                    text: text.to_owned().into(),
                    is_error: d["is_error"].as_bool().unwrap_or(false),
                    raw: crate::sources::lazy::result_raw(p, text).into(),
                })
            }
            // How the answer ended: bookkeeping, kept in the details.
            Some("finish") => m.set_detail("finish", d.clone()),
            other => m.parts.push(Part::Other {
                original_type: other.unwrap_or("unknown").to_owned(),
                raw: p.clone(),
            }),
        }
    }
    m
}
