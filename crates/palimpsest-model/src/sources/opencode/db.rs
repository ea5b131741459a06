//! OpenCode's (and Kilo Code's) SQLite store, opened read-only (`sources::sqlite`): the
//! `session`, `message` and `part` tables, each message and part a JSON `data` column. Listing
//! reads session rows and message rows (small: a message's content lives in its parts), never a
//! part; loading reads one session's messages and parts in stored order. What the JSON means is
//! `build`'s.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{RecordedUsage, SessionMeta, SourceFormat};

/// One stored message and its parts, as read.
pub struct Row {
    /// The message id (`msg_…`).
    pub id: String,
    /// Where it is stored, for errors: the database and its `rowid` (`opencode.db: row 27`),
    /// or its JSON file (`tree`).
    pub place: String,
    /// `time_created`, Unix ms.
    pub created: i64,
    /// The `data` text.
    pub data: String,
    /// Its parts in stored order: `(part id, data text)`.
    pub parts: Vec<(String, String)>,
}

/// What a listing reads of one session: its row and its message counts.
struct Listed {
    id: String,
    parent: Option<String>,
    dir: String,
    title: String,
    created: i64,
    updated: i64,
    /// Stored messages.
    messages: i64,
    /// Of them, summaries.
    summaries: i64,
}

/// A database of OpenCode's schema.
#[derive(Debug, Clone)]
pub struct Db {
    /// The file.
    pub path: PathBuf,
    /// OpenCode's or Kilo Code's (by the file's name).
    pub format: SourceFormat,
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::Sqlite {
        path: path.to_owned(),
        source: e,
    }
}

impl Db {
    /// Open `path` and check it has OpenCode's tables; the format is Kilo Code's for a
    /// `kilo.db`.
    pub fn open(path: &Path) -> Result<Self> {
        let db = Db {
            path: path.to_owned(),
            format: if path.file_name().is_some_and(|n| n == "kilo.db") {
                SourceFormat::Kilo
            } else {
                SourceFormat::OpenCode
            },
        };
        db.connect()?;
        Ok(db)
    }

    /// A fresh read-only connection (each sees the harness's latest commits), checked.
    pub fn connect(&self) -> Result<Connection> {
        let conn = crate::sources::sqlite::open(&self.path)?;
        for (table, columns) in [
            (
                "session",
                &[
                    "id",
                    "parent_id",
                    "directory",
                    "title",
                    "time_created",
                    "time_updated",
                ][..],
            ),
            ("message", &["id", "session_id", "time_created", "data"][..]),
            ("part", &["id", "message_id", "data"][..]),
        ] {
            let have: Vec<String> = conn
                .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
                .map_err(sql(&self.path))?;
            if let Some(missing) = columns.iter().find(|c| !have.iter().any(|h| h == *c)) {
                return Err(Error::format(
                    &self.path,
                    format!("not an OpenCode database: table `{table}` has no `{missing}` column"),
                ));
            }
        }
        Ok(conn)
    }

    /// The sessions (one when `only` names it), most recently updated first: session rows,
    /// message counts, and the latest answer's model and usage.
    pub fn list(&self, only: Option<&str>) -> Result<Vec<SessionMeta>> {
        let conn = self.connect()?;
        let e = sql(&self.path);
        let mut q = conn
            .prepare(
                "SELECT s.id, s.parent_id, s.directory, s.title, s.time_created, s.time_updated,
                   (SELECT count(*) FROM message m WHERE m.session_id = s.id),
                   (SELECT count(*) FROM message m WHERE m.session_id = s.id
                      AND m.data LIKE '%\"summary\":true%')
                 FROM session s WHERE ?1 IS NULL OR s.id = ?1
                 ORDER BY s.time_updated DESC, s.id",
            )
            .map_err(&e)?;
        let rows: Vec<Listed> = q
            .query_map(params![only], |r| {
                Ok(Listed {
                    id: r.get(0)?,
                    parent: r.get(1)?,
                    dir: r.get(2)?,
                    title: r.get(3)?,
                    created: r.get(4)?,
                    updated: r.get(5)?,
                    messages: r.get(6)?,
                    summaries: r.get(7)?,
                })
            })
            .map_err(&e)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&e)?;
        let mut latest = conn
            .prepare(
                "SELECT data FROM message WHERE session_id = ?1 AND data LIKE '%\"role\":\"assistant\"%'
                   AND data NOT LIKE '%\"summary\":true%'
                 ORDER BY time_created DESC, id DESC",
            )
            .map_err(&e)?;
        let mut out = Vec::with_capacity(rows.len());
        for Listed {
            id,
            parent,
            dir,
            title,
            created,
            updated,
            messages,
            summaries,
        } in rows
        {
            // The latest answer that reads (a row cut short is skipped), fetched lazily.
            let last: Option<Value> = latest
                .query_map(params![id], |r| r.get::<_, String>(0))
                .map_err(&e)?
                .find_map(|d| d.ok().and_then(|d| serde_json::from_str(&d).ok()));
            out.push(SessionMeta {
                name: if title.trim().is_empty() {
                    id.clone()
                } else {
                    title
                },
                id,
                format: self.format,
                path: self.path.display().to_string(),
                working_dir: Some(dir).filter(|d| !d.is_empty()),
                created: Some(created),
                updated: Some(updated),
                model: last.as_ref().and_then(model_of),
                context_limit: None,
                usage: last.as_ref().and_then(recorded_usage),
                message_count: messages as usize,
                compaction_count: summaries as usize,
                parent_id: parent,
            });
        }
        Ok(out)
    }

    /// Session `id`'s messages with their parts, in stored order (time, then id).
    pub fn rows(&self, id: &str) -> Result<Vec<Row>> {
        let conn = self.connect()?;
        let e = sql(&self.path);
        let mut rows: Vec<Row> = conn
            .prepare(
                "SELECT id, rowid, time_created, data FROM message WHERE session_id = ?1
                 ORDER BY time_created, id",
            )
            .map_err(&e)?
            .query_map(params![id], |r| {
                Ok(Row {
                    id: r.get(0)?,
                    place: format!("{}: row {}", self.path.display(), r.get::<_, i64>(1)?),
                    created: r.get(2)?,
                    data: r.get(3)?,
                    parts: Vec::new(),
                })
            })
            .map_err(&e)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&e)?;
        let at: std::collections::HashMap<String, usize> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        let mut q = conn
            .prepare("SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id")
            .map_err(&e)?;
        let parts = q
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(&e)?;
        for p in parts {
            let (message, part, data) = p.map_err(&e)?;
            if let Some(&i) = at.get(&message) {
                rows[i].parts.push((part, data));
            }
        }
        Ok(rows)
    }

    /// The stored rows of message `message` of session `id`, as one JSON value (the raw view).
    pub fn raw(&self, id: &str, message: &str) -> Result<Option<String>> {
        Ok(raw(self.rows(id)?, message))
    }
}

/// Message `message` of `rows` and its parts, as one JSON value (the raw view).
pub fn raw(rows: Vec<Row>, message: &str) -> Option<String> {
    let row = rows.into_iter().find(|r| r.id == message)?;
    let parse = |t: &str| serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_owned()));
    let parts: Vec<Value> = row.parts.iter().map(|(_, d)| parse(d)).collect();
    let v = serde_json::json!({"id": row.id, "data": parse(&row.data), "parts": parts});
    serde_json::to_string_pretty(&v).ok()
}

/// The model an answer names (`modelID`).
pub fn model_of(answer: &Value) -> Option<String> {
    answer
        .get("modelID")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
}

/// The usage an answer recorded (`tokens`: fresh input, output, reasoning, cache reads and
/// writes).
pub fn recorded_usage(answer: &Value) -> Option<RecordedUsage> {
    let t = answer.get("tokens")?;
    let n = |v: &Value| v.as_u64();
    let input = n(&t["input"]);
    let read = n(&t["cache"]["read"]);
    let write = n(&t["cache"]["write"]);
    let output = match (n(&t["output"]), n(&t["reasoning"])) {
        (Some(o), r) => Some(o + r.unwrap_or(0)),
        (None, r) => r,
    };
    Some(RecordedUsage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: None,
        cache_read_tokens: read,
        cache_write_tokens: write,
        accumulated_total_tokens: None,
        context_tokens: input.map(|i| i + read.unwrap_or(0) + write.unwrap_or(0)),
    })
}
