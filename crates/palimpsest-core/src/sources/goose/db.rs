//! goose `sessions.db`: open it read-only, find which columns this schema version has, list
//! sessions cheaply and load one session's rows in goose's order.
//!
//! Every schema from 0 to 16 (and later ones that only add columns) is read by detecting
//! columns, never by trusting `schema_version`. The file is never created, migrated or written:
//! it is opened with `SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`, in place so goose's WAL is
//! seen. Listing is `listing`'s, loading rows `rows`', turning rows into messages `content`'s
//! and compactions `kinds`'.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

/// How long a read waits for goose's writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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
