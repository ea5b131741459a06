//! goose `sessions.db`: open it read-only, find which columns this schema version has, list
//! sessions cheaply and load one session's rows in goose's order.
//!
//! Every schema from 0 to 16 (and later ones that only add columns) is read by detecting
//! columns, never by trusting `schema_version`. The file is never created, migrated or written:
//! it is opened with `SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`, in place so goose's WAL is
//! seen. Turning rows into messages is `content`'s job; kinds and compactions are `kinds`'.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OpenFlags, params};
use serde_json::Value;

use super::{content, kinds};
use crate::error::{Error, Result};
use crate::model::{Part, RecordedUsage, Session, SessionMeta, SourceFormat};

/// How long a read waits for goose's writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The columns this database has (schema detection by column, not by version).
#[derive(Debug, Clone)]
pub struct Schema {
    sessions: HashSet<String>,
    messages: HashSet<String>,
    ledger: bool,
}

impl Schema {
    fn session_col(&self, name: &str) -> String {
        if self.sessions.contains(name) {
            format!("s.{name}")
        } else {
            "NULL".into()
        }
    }

    fn message_col<'a>(&self, name: &'a str) -> &'a str {
        if self.messages.contains(name) {
            name
        } else {
            "NULL"
        }
    }

    /// goose's read order (HEAD, ≥ 2026-02-24): `created_timestamp, id`, compared as stored.
    fn order_by(&self) -> &'static str {
        if self.messages.contains("created_timestamp") {
            "created_timestamp, id"
        } else {
            "id"
        }
    }
}

/// Percent-encode a path for an SQLite `file:` URI.
fn uri_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len() + 8);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Check the file is a non-empty SQLite database; returns whether its header says WAL mode.
fn check_header(path: &Path) -> Result<bool> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.len() == 0 {
        return Err(Error::format(
            path,
            "is empty (0 bytes): not a goose sessions.db",
        ));
    }
    let mut head = [0u8; 20];
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let n = f.read(&mut head).map_err(|e| Error::io(path, e))?;
    if n < 20 || !head.starts_with(b"SQLite format 3\0") {
        return Err(Error::format(
            path,
            "not a SQLite database (no SQLite header), so not a goose sessions.db",
        ));
    }
    Ok(head[18] == 2 && head[19] == 2)
}

/// Open read-only. A WAL database with no `-wal` file is fully checkpointed: it is opened
/// `immutable` so SQLite does not create `-wal`/`-shm` files in goose's folder. With a `-wal`
/// present (goose running, or it crashed) it is opened normally, read-only, so the
/// un-checkpointed rows are seen.
pub fn connect(path: &Path) -> Result<Connection> {
    let wal = check_header(path)?;
    let mut wal_file = path.as_os_str().to_owned();
    wal_file.push("-wal");
    let immutable = wal && !Path::new(&wal_file).exists();
    let uri = format!(
        "file:{}?mode=ro{}",
        uri_path(path),
        if immutable { "&immutable=1" } else { "" }
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let sql = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let conn = Connection::open_with_flags(&uri, flags).map_err(sql)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    conn.pragma_update(None, "query_only", "ON").map_err(sql)?;
    Ok(conn)
}

fn columns(conn: &Connection, path: &Path, table: &str) -> Result<HashSet<String>> {
    let sql = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut st = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(sql)?;
    let names = st
        .query_map([table], |r| r.get::<_, String>(0))
        .map_err(sql)?
        .collect::<rusqlite::Result<HashSet<String>>>()
        .map_err(sql)?;
    Ok(names)
}

/// Find the goose tables and columns; a SQLite file without them is not goose's.
pub fn schema(conn: &Connection, path: &Path) -> Result<Schema> {
    let sessions = columns(conn, path, "sessions")?;
    let messages = columns(conn, path, "messages")?;
    let missing: Vec<&str> = [
        ("sessions", "id", &sessions),
        ("messages", "session_id", &messages),
        ("messages", "role", &messages),
        ("messages", "content_json", &messages),
    ]
    .iter()
    .filter(|(_, c, cols)| !cols.contains(*c))
    .map(|(t, c, _)| if *t == "sessions" { "sessions.id" } else { c })
    .collect();
    if sessions.is_empty() || messages.is_empty() || !missing.is_empty() {
        let what = if sessions.is_empty() && messages.is_empty() {
            "it has no `sessions` and `messages` tables".to_owned()
        } else {
            format!("it lacks {}", missing.join(", "))
        };
        return Err(Error::format(
            path,
            format!("SQLite database but not a goose sessions.db: {what}"),
        ));
    }
    let ledger = !columns(conn, path, "usage_ledger")?.is_empty();
    Ok(Schema {
        sessions,
        messages,
        ledger,
    })
}

/// A timestamp column (SQLite text `YYYY-MM-DD HH:MM:SS` UTC, RFC 3339, or a number) in Unix ms.
fn timestamp_ms(v: &Sql) -> Option<i64> {
    match v {
        Sql::Integer(i) => Some(content::created_ms(*i)),
        Sql::Real(f) => Some(content::created_ms(*f as i64)),
        Sql::Text(t) => {
            let t = t.trim();
            if let Ok(d) = chrono::DateTime::parse_from_rfc3339(t) {
                return Some(d.timestamp_millis());
            }
            ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
                .iter()
                .find_map(|f| chrono::NaiveDateTime::parse_from_str(t, f).ok())
                .map(|d| d.and_utc().timestamp_millis())
        }
        _ => None,
    }
}

fn tokens(v: &Sql) -> Option<u64> {
    match v {
        Sql::Integer(i) => u64::try_from(*i).ok(),
        _ => None,
    }
}

fn text(v: &Sql) -> Option<String> {
    match v {
        Sql::Text(t) => Some(t.clone()),
        _ => None,
    }
}

/// The session columns a listing reads, in this order.
const META_COLUMNS: [&str; 13] = [
    "name",
    "description",
    "working_dir",
    "created_at",
    "updated_at",
    "model_config_json",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "accumulated_total_tokens",
    "parent_session_id",
];

fn meta_from_row(path: &Path, id: String, v: &[Sql]) -> SessionMeta {
    let name = text(&v[0]).filter(|s| !s.trim().is_empty());
    // Legacy descriptions were whitespace-collapsed by goose's importer; do the same.
    let description = text(&v[1])
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty());
    let model_config: Option<Value> = text(&v[5]).and_then(|j| serde_json::from_str(&j).ok());
    let usage = RecordedUsage {
        total_tokens: tokens(&v[6]),
        input_tokens: tokens(&v[7]),
        output_tokens: tokens(&v[8]),
        cache_read_tokens: tokens(&v[9]),
        cache_write_tokens: tokens(&v[10]),
        accumulated_total_tokens: tokens(&v[11]),
    };
    SessionMeta {
        name: name.or(description).unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::Goose,
        path: path.display().to_string(),
        working_dir: text(&v[2]).filter(|s| !s.is_empty()),
        created: timestamp_ms(&v[3]),
        updated: timestamp_ms(&v[4]),
        model: model_config
            .as_ref()
            .and_then(|c| c.get("model_name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        context_limit: model_config
            .as_ref()
            .and_then(|c| c.get("context_limit"))
            .and_then(Value::as_u64),
        usage: (usage != RecordedUsage::default()).then_some(usage),
        message_count: 0,
        compaction_count: 0,
        parent_id: text(&v[12]).filter(|s| !s.is_empty()),
    }
}

fn grouped_counts(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> rusqlite::Result<HashMap<String, i64>> {
    let mut st = conn.prepare(sql)?;
    st.query_map(args, |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
        .collect()
}

/// List sessions (all, or the one with `only` id) without reading any message content beyond
/// assistant rows that may hold a continuation text.
pub fn list(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    only: Option<&str>,
) -> Result<Vec<SessionMeta>> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let cols: Vec<String> = META_COLUMNS.iter().map(|c| schema.session_col(c)).collect();
    let filter = if only.is_some() {
        " WHERE s.id = ?1"
    } else {
        ""
    };
    let query = format!("SELECT s.id, {} FROM sessions s{filter}", cols.join(", "));
    let mut st = conn.prepare(&query).map_err(sql_err)?;
    let read = |r: &rusqlite::Row| -> rusqlite::Result<(String, Vec<Sql>)> {
        let id: Sql = r.get(0)?;
        let id = match id {
            Sql::Text(t) => t,
            Sql::Integer(i) => i.to_string(),
            other => format!("{other:?}"),
        };
        let vals = (1..=META_COLUMNS.len())
            .map(|i| r.get::<_, Sql>(i))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((id, vals))
    };
    let rows: Vec<(String, Vec<Sql>)> = match only {
        Some(id) => st.query_map([id], read),
        None => st.query_map([], read),
    }
    .map_err(sql_err)?
    .collect::<rusqlite::Result<_>>()
    .map_err(sql_err)?;

    // One grouped pass each over the session_id index, not one query per session.
    let (where_count, where_cont) = match only {
        Some(_) => ("WHERE session_id = ?1 ", "AND session_id = ?3 "),
        None => ("", ""),
    };
    let count_sql =
        format!("SELECT session_id, COUNT(*) FROM messages {where_count}GROUP BY session_id");
    // role is stored before content_json, so user rows (where the large tool results live)
    // are rejected without reading their content.
    let cont_sql = format!(
        "SELECT session_id, COUNT(*) FROM messages WHERE role = 'assistant' \
         AND (instr(content_json, ?1) > 0 OR instr(content_json, ?2) > 0) {where_cont}\
         GROUP BY session_id"
    );
    let [p1, p2] = kinds::CONTINUATION_PREFIXES;
    let (counts, conts) = match only {
        Some(id) => (
            grouped_counts(conn, &count_sql, [id]),
            grouped_counts(conn, &cont_sql, params![p1, p2, id]),
        ),
        None => (
            grouped_counts(conn, &count_sql, []),
            grouped_counts(conn, &cont_sql, params![p1, p2]),
        ),
    };
    let (counts, conts) = (counts.map_err(sql_err)?, conts.map_err(sql_err)?);
    let ledger = if schema.ledger {
        grouped_counts(
            conn,
            "SELECT session_id, SUM(total_tokens) FROM usage_ledger \
             WHERE total_tokens IS NOT NULL GROUP BY session_id",
            [],
        )
        .map_err(sql_err)?
    } else {
        HashMap::new()
    };

    Ok(rows
        .into_iter()
        .map(|(id, vals)| {
            let mut m = meta_from_row(path, id, &vals);
            m.message_count = counts.get(&m.id).copied().unwrap_or(0) as usize;
            m.compaction_count = conts.get(&m.id).copied().unwrap_or(0) as usize;
            if let Some(&sum) = ledger.get(&m.id) {
                let usage = m.usage.get_or_insert_with(RecordedUsage::default);
                if usage.accumulated_total_tokens.is_none() {
                    usage.accumulated_total_tokens = u64::try_from(sum).ok();
                }
            }
            m
        })
        .collect())
}

/// A stored text column as a string, whatever SQLite type it was stored with.
fn lossy(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
    }
}

/// One stored row of `messages`, as stored.
struct Row {
    rowid: i64,
    message_id: Option<String>,
    role: String,
    content: Option<String>,
    created: Option<i64>,
    metadata: Option<String>,
}

fn row_query(schema: &Schema, tail: &str) -> String {
    format!(
        "SELECT id, {}, role, content_json, {}, {} FROM messages WHERE session_id = ?1 ORDER BY {}{tail}",
        schema.message_col("message_id"),
        schema.message_col("created_timestamp"),
        schema.message_col("metadata_json"),
        schema.order_by(),
    )
}

fn read_row(r: &rusqlite::Row) -> rusqlite::Result<Row> {
    Ok(Row {
        rowid: r.get(0)?,
        message_id: lossy(r.get_ref(1)?),
        role: lossy(r.get_ref(2)?).unwrap_or_default(),
        content: lossy(r.get_ref(3)?),
        created: r.get::<_, Option<i64>>(4).ok().flatten(),
        metadata: lossy(r.get_ref(5)?),
    })
}

fn to_message(path: &Path, index: usize, row: Row) -> crate::model::Message {
    let row_error = |message: String| {
        Error::Row {
            path: path.to_owned(),
            row: row.rowid,
            message,
        }
        .to_string()
    };
    let meta: Option<Value> = row
        .metadata
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok());
    let raw = row.content.unwrap_or_default();
    let parsed = serde_json::from_str::<Value>(&raw);
    let mut m = match &parsed {
        Ok(v) => content::message(index, &row.role, v, meta.as_ref(), row.created),
        Err(_) => content::message(
            index,
            &row.role,
            &Value::Array(vec![]),
            meta.as_ref(),
            row.created,
        ),
    };
    m.id = row.message_id;
    match parsed {
        Err(e) => {
            m.error = Some(row_error(format!("content_json is not valid JSON: {e}")));
            m.parts = vec![Part::Other {
                original_type: "content_json".into(),
                raw: Value::String(raw),
            }];
        }
        Ok(v) if !v.is_array() => {
            m.error = Some(row_error("content_json is not a JSON array".into()));
        }
        Ok(_) if content::role(&row.role).is_none() => {
            m.error = Some(row_error(format!(
                "role `{}` is not one goose writes (goose skips such rows)",
                row.role
            )));
        }
        Ok(_) => {}
    }
    m
}

/// Load one whole session.
pub fn load(conn: &Connection, schema: &Schema, path: &Path, id: &str) -> Result<Session> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut meta =
        list(conn, schema, path, Some(id))?
            .pop()
            .ok_or_else(|| Error::NoSuchSession {
                path: path.to_owned(),
                id: id.to_owned(),
            })?;
    let mut st = conn.prepare(&row_query(schema, "")).map_err(sql_err)?;
    let rows = st.query_map([id], read_row).map_err(sql_err)?;
    let mut messages = Vec::new();
    for (index, row) in rows.enumerate() {
        messages.push(to_message(path, index, row.map_err(sql_err)?));
    }
    let compactions = kinds::classify(&mut messages);
    meta.message_count = messages.len();
    meta.compaction_count = compactions.len();
    Ok(Session {
        meta,
        messages,
        compactions,
    })
}

/// The stored row behind message `index` of session `id`: its columns as stored, with
/// `content_json` and `metadata_json` left as the strings they are in the database.
pub fn raw(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    id: &str,
    index: usize,
) -> Result<Option<String>> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut st = conn
        .prepare(&row_query(schema, " LIMIT 1 OFFSET ?2"))
        .map_err(sql_err)?;
    let mut rows = st
        .query_map(params![id, index as i64], read_row)
        .map_err(sql_err)?;
    let Some(row) = rows.next() else {
        return Ok(None);
    };
    let row = row.map_err(sql_err)?;
    let out = serde_json::json!({
        "row": row.rowid,
        "message_id": row.message_id,
        "role": row.role,
        "created_timestamp": row.created,
        "content_json": row.content,
        "metadata_json": row.metadata,
    });
    Ok(Some(serde_json::to_string_pretty(&out).unwrap_or_default()))
}

/// A goose database at `path`, checked: it opens read-only and has goose's tables.
#[derive(Debug, Clone)]
pub struct GooseDb {
    /// The `sessions.db` file.
    pub path: PathBuf,
}

impl GooseDb {
    /// Open and check the schema once, so a bad file is reported when it is found.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = connect(path)?;
        schema(&conn, path)?;
        Ok(Self {
            path: path.to_owned(),
        })
    }

    /// A fresh connection and schema; each call sees goose's latest writes.
    pub fn connect(&self) -> Result<(Connection, Schema)> {
        let conn = connect(&self.path)?;
        let schema = schema(&conn, &self.path)?;
        Ok((conn, schema))
    }
}
