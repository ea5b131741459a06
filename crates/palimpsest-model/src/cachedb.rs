//! Opening Palimpsest's own SQLite caches (the index and the token counts) so that any number
//! of openers at once — the window's threads, a CLI run beside the app, parallel tests — each
//! get a working connection, the first ones on a fresh file included.
//!
//! What each cache holds, and how its schema is made, stays with the cache; this module only
//! opens the file and takes the lock under which a schema is checked and built. Agents' files
//! are never opened here: they are read through `sources`, read-only.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, Transaction, TransactionBehavior};

/// Open (creating when missing) the cache file at `path`, in WAL mode, waiting up to `busy` for
/// another writer. The caller's directory must exist.
pub fn open(path: &Path, busy: Duration) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(busy)?;
    wal(&conn, busy)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(conn)
}

/// True when SQLite says the file is not a sound database: damaged pages, a bad header, a
/// truncated file. A cache in that state is set aside and built again ([`set_aside`]).
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// What went wrong with the cache at `path`, in words a user can act on: a full disk is named
/// as such ("disk I/O error" says nothing), the rest as SQLite says it.
pub fn explain(path: &Path, e: &rusqlite::Error) -> String {
    let full = match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => true,
        // SQLite reports a write the disk refused as an I/O error.
        Some(ErrorCode::SystemIoFailure) => no_space(path),
        _ => false,
    };
    if full {
        format!(
            "the disk holding {} is full ({e})",
            path.parent().unwrap_or(path).display()
        )
    } else {
        e.to_string()
    }
}

/// The error for a failed statement on the cache at `path`: SQLite's, or a full disk named
/// as such.
pub fn error(path: &Path, e: rusqlite::Error) -> crate::error::Error {
    let said = explain(path, &e);
    if said == e.to_string() {
        crate::error::Error::Sqlite {
            path: path.to_owned(),
            source: e,
        }
    } else {
        crate::error::Error::format(path, said)
    }
}

/// True when the file system holding `path` has no room left: a write of one byte beside it
/// fails with ENOSPC. Only asked after a write already failed.
fn no_space(path: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    let probe = dir.join(".palimpsest-space-probe");
    let full = std::fs::write(&probe, b"x")
        .err()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull);
    let _ = std::fs::remove_file(&probe);
    full
}

/// Move a damaged cache file (and its WAL and shared-memory files) aside as `<name>.damaged`,
/// replacing an earlier one, so the next opener builds the cache again. Returns where it went.
pub fn set_aside(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let mut to = path.as_os_str().to_owned();
    to.push(".damaged");
    let to = std::path::PathBuf::from(to);
    std::fs::rename(path, &to)?;
    for ext in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(ext);
        let _ = std::fs::remove_file(std::path::PathBuf::from(side));
    }
    Ok(to)
}

/// A write-locked transaction in which to read `user_version` and build the schema: a second
/// opener waits here for the first one's schema, then finds it made, instead of racing it.
pub fn schema_lock(conn: &mut Connection) -> rusqlite::Result<Transaction<'_>> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
}

/// Put the file in WAL mode (it stays so). A fresh file's first openers race for the switch,
/// and SQLite answers the loser "database is locked" at once, without waiting on the busy
/// timeout; the switch is tried again until that timeout would have run out.
fn wal(conn: &Connection, busy: Duration) -> rusqlite::Result<()> {
    let deadline = Instant::now() + busy;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == ErrorCode::DatabaseBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done,
        }
    }
}
