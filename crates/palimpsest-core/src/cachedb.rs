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
