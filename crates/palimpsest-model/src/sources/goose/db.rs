//! goose `sessions.db`: open it read-only, find which columns this schema version has, list
//! sessions cheaply and load one session's rows in goose's order.
//!
//! Every schema from 0 to 17 (and later ones that only add columns) is read by detecting
//! columns, never by trusting `schema_version`. The file is never created, migrated or written:
//! it is opened through [`crate::sources::sqlite`], which reads goose's WAL without creating or
//! changing a file in goose's folder. Listing is `listing`'s, loading rows `rows`', turning rows into messages `content`'s
//! and compactions `kinds`'.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result};

/// The columns this database has (schema detection by column, not by version).
#[derive(Debug, Clone)]
pub struct Schema {
    pub(super) sessions: HashSet<String>,
    pub(super) messages: HashSet<String>,
    pub(super) ledger: bool,
}

impl Schema {
    pub(super) fn session_col(&self, name: &str) -> String {
        if self.sessions.contains(name) {
            format!("s.{name}")
        } else {
            "NULL".into()
        }
    }

    pub(super) fn message_col<'a>(&self, name: &'a str) -> &'a str {
        if self.messages.contains(name) {
            name
        } else {
            "NULL"
        }
    }

    /// goose's read order (HEAD, ≥ 2026-02-24): `created_timestamp, id`, compared as stored.
    pub(super) fn order_by(&self) -> &'static str {
        if self.messages.contains("created_timestamp") {
            "created_timestamp, id"
        } else {
            "id"
        }
    }
}

/// Check the file is a non-empty SQLite database.
fn check_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.len() == 0 {
        return Err(Error::format(
            path,
            "is empty (0 bytes): not a goose sessions.db",
        ));
    }
    let mut head = [0u8; 20];
    let mut f = crate::sources::open_file(path)?;
    let n = f.read(&mut head).map_err(|e| Error::io(path, e))?;
    if n < 20 || !head.starts_with(b"SQLite format 3\0") {
        return Err(Error::format(
            path,
            "not a SQLite database (no SQLite header), so not a goose sessions.db",
        ));
    }
    Ok(())
}

/// Open read-only without writing to goose's folder ([`crate::sources::sqlite`]), so
/// un-checkpointed rows in a `-wal` are seen too.
pub fn connect(path: &Path) -> Result<Connection> {
    check_header(path)?;
    crate::sources::sqlite::open(path)
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
