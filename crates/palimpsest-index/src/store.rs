//! The index database: its schema, and writing and deleting one session's rows.
//!
//! One SQLite file in the user's cache dir, WAL, never in an agent's folder. It is a cache:
//! [`SCHEMA_VERSION`] is kept in `PRAGMA user_version` and a file of another version is
//! emptied and built again, under a write lock (see `crate::cachedb`). Parts live in an FTS5 table with the trigram tokenizer (substring
//! search, any language) and no positions (`detail = none`: a third faster to build, less than
//! half the size; `search` checks every candidate anyway); a session's parts have rowids `session_rowid << 24 | n`, so one
//! session's parts are deleted by a rowid range (FTS5 has no index on other columns).
//! What goes in the rows is `rows`'; when to write them is `super`'s.

use std::path::Path;

use rusqlite::{Connection, params};

use super::rows::Prepared;
use crate::error::{Error, Result};

/// Bump when the schema or what a row means changes: older files are rebuilt (13: each
/// session's cut view is kept; 14: each message's span of requests in the model's context;
/// 15: the spill files each session names; 16: a Claude message's kept `toolUseResult` is at
/// most 1 KiB, so bodies kept whole are the reader's as it is; 19: an Aider log lists a
/// session per `/clear`, and Copilot's checkpoints and OpenCode's truncated outputs are spill
/// files each session names; 20: summary losses in rows of their own, not in the diagnosis;
/// 21: each message's piece counts; 22: OpenCode's pruned outputs among the spills a session
/// names, Cline's XML calls as calls, older Copilot and OpenCode stores read; 23: `tune` cells).
pub const SCHEMA_VERSION: i64 = 23;

/// Parts per session the rowid scheme leaves room for.
pub const PART_BITS: u32 = 24;

const SCHEMA: &str = "
CREATE TABLE sessions(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    session_id TEXT NOT NULL,
    stamp TEXT NOT NULL,
    size INTEGER NOT NULL,
    format TEXT NOT NULL,
    title TEXT NOT NULL,
    updated INTEGER,
    messages INTEGER NOT NULL,
    compactions INTEGER NOT NULL,
    severity TEXT NOT NULL,
    cost_usd REAL,
    parent_id TEXT,
    meta_json TEXT NOT NULL,
    row_json TEXT NOT NULL,
    usage_json TEXT NOT NULL,
    compactions_json TEXT NOT NULL,
    UNIQUE(file, session_id)
);
CREATE INDEX sessions_updated ON sessions(updated);
CREATE TABLE messages(
    session INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    role TEXT NOT NULL,
    kind TEXT NOT NULL,
    agent_visible INTEGER NOT NULL,
    user_visible INTEGER NOT NULL,
    chars INTEGER NOT NULL,
    est_tokens INTEGER NOT NULL,
    tokens INTEGER,
    tools TEXT NOT NULL,
    is_error INTEGER NOT NULL,
    paths TEXT NOT NULL,
    line INTEGER,
    offset INTEGER,
    records TEXT NOT NULL,
    body_json TEXT,
    row_json TEXT NOT NULL,
    seen_from INTEGER,
    seen_until INTEGER,
    pieces TEXT,
    PRIMARY KEY(session, idx)
) WITHOUT ROWID;
CREATE TABLE diagnoses(
    session INTEGER PRIMARY KEY,
    -- zstd-compressed JSON
    json BLOB NOT NULL
);
CREATE TABLE token_reports(
    session INTEGER PRIMARY KEY,
    -- zstd-compressed JSON
    json BLOB NOT NULL
);
CREATE TABLE cut_views(
    session INTEGER PRIMARY KEY,
    -- zstd-compressed JSON
    json BLOB NOT NULL
);
CREATE TABLE spill_refs(
    session INTEGER PRIMARY KEY,
    -- zstd-compressed JSON
    json BLOB NOT NULL
);
CREATE TABLE roots(
    path TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    problems TEXT NOT NULL
);
CREATE TABLE failures(
    file TEXT NOT NULL,
    session_id TEXT NOT NULL,
    stamp TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY(file, session_id)
);
CREATE VIRTUAL TABLE parts USING fts5(
    text, idx UNINDEXED, part UNINDEXED, role UNINDEXED, tool UNINDEXED, cleared UNINDEXED,
    tokenize = 'trigram', detail = none, columnsize = 0
);
";

/// Open (creating, or rebuilding when its version differs) the index at `path`. A damaged
/// file (SQLite finds it is not a sound database, or an index of this version lacks a table)
/// is set aside as `<name>.damaged` and a new one built; the notice says so.
pub fn open(path: &Path) -> Result<(Connection, Option<String>)> {
    match open_sound(path) {
        Ok(conn) => Ok((conn, None)),
        Err(Opening::Damaged(why)) => {
            let to = crate::cachedb::set_aside(path).map_err(|e| Error::io(path, e))?;
            let conn = open_sound(path).map_err(|o| match o {
                Opening::Failed(e) => e,
                Opening::Damaged(why) => Error::format(path, format!("index database: {why}")),
            })?;
            let notice = format!(
                "the index {} was damaged ({why}): it was set aside as {} and is built again",
                path.display(),
                to.display()
            );
            Ok((conn, Some(notice)))
        }
        Err(Opening::Failed(e)) => Err(e),
    }
}

/// Why an index file did not open.
enum Opening {
    /// It is not a sound index: the words say how.
    Damaged(String),
    /// Anything else (a folder that cannot be made, a lock held too long, a full disk).
    Failed(Error),
}

fn open_sound(path: &Path) -> std::result::Result<Connection, Opening> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Opening::Failed(Error::io(dir, e)))?;
    }
    let sql = |e: rusqlite::Error| {
        if crate::cachedb::is_damage(&e) {
            Opening::Damaged(e.to_string())
        } else {
            Opening::Failed(Error::format(
                path,
                format!("index database: {}", crate::cachedb::explain(path, &e)),
            ))
        }
    };
    // Two runs (a CLI and the app, or the window's threads) may open or update it at once:
    // wait for the other writer rather than fail.
    let mut conn = crate::cachedb::open(path, std::time::Duration::from_secs(60)).map_err(sql)?;
    // The window opens the index for each answer, often while an update holds a long write
    // transaction: an index of this version is taken with reads alone, which WAL never makes
    // wait. Only building it takes the write lock.
    match current(&conn).map_err(sql)? {
        Version::Current => return Ok(conn),
        Version::Lacks(tables) => {
            return Err(Opening::Damaged(format!(
                "it lacks the table{} {}",
                if tables.len() == 1 { "" } else { "s" },
                tables.join(", ")
            )));
        }
        Version::Other => {}
    }
    let tx = crate::cachedb::schema_lock(&mut conn).map_err(sql)?;
    // Another opener may have built it while this one waited for the lock.
    if current(&tx).map_err(sql)? != Version::Current {
        // Another version (or a new file): a cache is rebuilt, not migrated. It is emptied in
        // place, under the lock, since another opener may already hold the file.
        drop_everything(&tx).map_err(sql)?;
        tx.execute_batch(SCHEMA).map_err(sql)?;
        tx.execute_batch(super::facts::SCHEMA).map_err(sql)?;
        tx.execute_batch(super::digests::SCHEMA).map_err(sql)?;
        tx.execute_batch(super::tune_cells::SCHEMA).map_err(sql)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(sql)?;
    }
    tx.commit().map_err(sql)?;
    Ok(conn)
}

/// What an opened file holds.
#[derive(Debug, PartialEq, Eq)]
enum Version {
    /// An index of this version, whole.
    Current,
    /// An index of this version without these tables: damaged.
    Lacks(Vec<String>),
    /// Another version, or nothing yet: built (again) here.
    Other,
}

/// Every table an index of this version has, from its schema's own text.
fn tables() -> Vec<&'static str> {
    [
        SCHEMA,
        super::facts::SCHEMA,
        super::digests::SCHEMA,
        super::tune_cells::SCHEMA,
    ]
    .iter()
    .flat_map(|s| s.split("CREATE ").skip(1))
    .filter_map(|stmt| {
        let rest = stmt
            .strip_prefix("VIRTUAL TABLE ")
            .or_else(|| stmt.strip_prefix("TABLE "))?;
        rest.split(|c: char| c == '(' || c.is_whitespace()).next()
    })
    .collect()
}

/// Whether the file holds an index of this version, and whole.
fn current(conn: &Connection) -> rusqlite::Result<Version> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut st = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    let have: Vec<String> = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if version != SCHEMA_VERSION || have.is_empty() {
        return Ok(Version::Other);
    }
    let lacks: Vec<String> = tables()
        .into_iter()
        .filter(|t| !have.iter().any(|h| h == t))
        .map(str::to_owned)
        .collect();
    Ok(if lacks.is_empty() {
        Version::Current
    } else {
        Version::Lacks(lacks)
    })
}

/// Drop every table of an index of another version: virtual tables first (each takes its
/// shadow tables with it), then the rest (their indexes go with them).
fn drop_everything(conn: &Connection) -> rusqlite::Result<()> {
    let names = |virtual_tables: bool| -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND (sql LIKE 'CREATE VIRTUAL TABLE%') = ?1",
        )?;
        stmt.query_map([virtual_tables], |r| r.get(0))?.collect()
    };
    for virtual_tables in [true, false] {
        for name in names(virtual_tables)? {
            conn.execute_batch(&format!(
                "DROP TABLE IF EXISTS \"{}\"",
                name.replace('"', "\"\"")
            ))?;
        }
    }
    Ok(())
}

/// The first part rowid of session `id`.
pub fn part_base(id: i64) -> i64 {
    id << PART_BITS
}

/// Delete a session's parts from message `from` on, and with `from` 0 its messages too (an
/// appended file's message rows are compared, not deleted: `super::messages::write`).
pub fn delete_from(conn: &Connection, id: i64, from: usize) -> rusqlite::Result<()> {
    if from == 0 {
        conn.execute(
            "DELETE FROM parts WHERE rowid BETWEEN ?1 AND ?2",
            params![part_base(id), part_base(id + 1) - 1],
        )?;
        conn.execute("DELETE FROM messages WHERE session = ?1", params![id])?;
    } else if let Some(first) = first_part_from(conn, id, from)? {
        conn.execute(
            "DELETE FROM parts WHERE rowid BETWEEN ?1 AND ?2",
            params![first, part_base(id + 1) - 1],
        )?;
    }
    super::facts::delete(conn, id)
}

/// The rowid of session `id`'s first part of a message at or after `from`, `None` when it has
/// none. Parts are numbered in message order from the session's base, so it is found by
/// bisection on rowids (each probe one lookup): a filter on `idx` would read every part of the
/// session back from the full-text table.
fn first_part_from(conn: &Connection, id: i64, from: usize) -> rusqlite::Result<Option<i64>> {
    let base = part_base(id);
    let last: Option<i64> = conn.query_row(
        "SELECT max(rowid) FROM parts WHERE rowid BETWEEN ?1 AND ?2",
        params![base, part_base(id + 1) - 1],
        |r| r.get(0),
    )?;
    let Some(last) = last else { return Ok(None) };
    let mut probe =
        conn.prepare_cached("SELECT idx FROM parts WHERE rowid >= ?1 ORDER BY rowid LIMIT 1")?;
    let mut idx_at =
        |rowid: i64| -> rusqlite::Result<i64> { probe.query_row(params![rowid], |r| r.get(0)) };
    // The first rowid in `lo..=hi` whose part's message is at or after `from`.
    let (mut lo, mut hi) = (base, last + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if idx_at(mid)? >= from as i64 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok((lo <= last).then_some(lo))
}

/// A kept view as stored: its JSON, zstd-compressed as it is written (fast level; JSON shrinks
/// about tenfold), so the whole JSON of a long session's view is never held beside it.
fn packed<T: serde::Serialize>(view: &T) -> Vec<u8> {
    use std::io::Write;
    let packed = zstd::stream::Encoder::new(Vec::new(), 1).and_then(|mut z| {
        // serde writes a token at a time; the encoder is handed blocks.
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut z);
        serde_json::to_writer(&mut w, view)?;
        w.flush()?;
        drop(w);
        z.finish()
    });
    packed.unwrap_or_default()
}

/// Write one session (replacing what the index had of it; with `from` > 0 only the parts of
/// messages from `from` on are rewritten: an appended transcript). Returns its rowid.
pub fn write(
    conn: &Connection,
    file: &str,
    stamp: &str,
    size: u64,
    p: &Prepared,
    from: usize,
) -> rusqlite::Result<i64> {
    let row_json = serde_json::to_string(&p.row).unwrap_or_default();
    let meta_json = serde_json::to_string(&p.meta).unwrap_or_default();
    let usage_json = serde_json::to_string(&p.buckets).unwrap_or_default();
    let compactions_json = serde_json::to_string(&p.compactions).unwrap_or_default();
    conn.execute(
        "INSERT INTO sessions(file, session_id, stamp, size, format, title, updated, messages,
             compactions, severity, cost_usd, parent_id, meta_json, row_json, usage_json,
             compactions_json)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
         ON CONFLICT(file, session_id) DO UPDATE SET stamp = excluded.stamp,
             size = excluded.size, format = excluded.format, title = excluded.title,
             updated = excluded.updated, messages = excluded.messages,
             compactions = excluded.compactions, severity = excluded.severity,
             cost_usd = excluded.cost_usd, parent_id = excluded.parent_id,
             meta_json = excluded.meta_json, row_json = excluded.row_json,
             usage_json = excluded.usage_json, compactions_json = excluded.compactions_json",
        params![
            file,
            p.meta.id,
            stamp,
            size as i64,
            p.row.format,
            p.row.title,
            p.row.updated,
            p.session.messages.len() as i64,
            p.row.compactions as i64,
            p.row.severity.as_str(),
            p.row.cost_usd,
            p.row.parent_id,
            meta_json,
            row_json,
            usage_json,
            compactions_json,
        ],
    )?;
    let id: i64 = conn.query_row(
        "SELECT id FROM sessions WHERE file = ?1 AND session_id = ?2",
        params![file, p.meta.id],
        |r| r.get(0),
    )?;
    delete_from(conn, id, from)?;
    conn.execute(
        "DELETE FROM failures WHERE file = ?1 AND session_id = ?2",
        params![file, p.meta.id],
    )?;
    let row = |pos: usize| p.messages.row(&p.session, pos);
    super::messages::write(conn, id, p.session.messages.len(), &row, from, p.rows_from)?;
    let mut part = conn.prepare_cached(
        "INSERT INTO parts(rowid, text, idx, part, role, tool, cleared)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    super::facts::write(conn, id, &p.requests, &p.cuts, &p.findings)?;
    super::facts::write_losses(conn, id, p.losses_from, &p.losses)?;
    for (table, json) in [
        ("diagnoses", packed(&p.diagnosis)),
        ("token_reports", packed(&p.token_report)),
        ("cut_views", packed(&p.cut_view)),
        ("spill_refs", packed(&p.spill_refs)),
    ] {
        conn.execute(
            &format!("INSERT OR REPLACE INTO {table}(session, json) VALUES(?1, ?2)"),
            params![id, json],
        )?;
    }
    let base = part_base(id);
    let limit = (1i64 << PART_BITS) - 1;
    // Parts are numbered in order from the session's base: those of messages before `from` are
    // kept, so the next number follows the last kept.
    let kept: i64 = if from == 0 {
        0
    } else {
        conn.query_row(
            "SELECT max(rowid) FROM parts WHERE rowid BETWEEN ?1 AND ?2",
            params![base, base + limit - 1],
            |r| r.get::<_, Option<i64>>(0),
        )?
        .map_or(0, |m| m - base + 1)
    };
    for (n, t) in super::rows::part_texts(&p.session, from)
        .enumerate()
        .take((limit - kept).max(0) as usize)
    {
        part.execute(params![
            base + kept + n as i64,
            t.text,
            t.index as i64,
            t.part,
            t.role,
            t.tool,
            t.cleared
        ])?;
    }
    Ok(id)
}

/// Remember that a session failed to load at this stamp, so it is reported, not retried,
/// until its file changes.
pub fn write_failure(
    conn: &Connection,
    file: &str,
    session_id: &str,
    stamp: &str,
    message: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO failures(file, session_id, stamp, message) VALUES(?1, ?2, ?3, ?4)
         ON CONFLICT(file, session_id) DO UPDATE SET stamp = excluded.stamp,
             message = excluded.message",
        params![file, session_id, stamp, message],
    )?;
    Ok(())
}

/// Forget a session.
pub fn remove(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    delete_from(conn, id, 0)?;
    conn.execute("DELETE FROM diagnoses WHERE session = ?1", params![id])?;
    conn.execute("DELETE FROM losses WHERE session = ?1", params![id])?;
    conn.execute("DELETE FROM token_reports WHERE session = ?1", params![id])?;
    conn.execute("DELETE FROM cut_views WHERE session = ?1", params![id])?;
    conn.execute("DELETE FROM spill_refs WHERE session = ?1", params![id])?;
    conn.execute("DELETE FROM sessions WHERE id = ?1", params![id])?;
    Ok(())
}
