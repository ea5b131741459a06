//! Open an agent's SQLite database without writing a byte of the agent's: no file created in its
//! folder, none of its files changed, and still every committed row seen.
//!
//! SQLite's own read-only mode is not enough. A WAL database whose `-wal` exists needs a `-shm`
//! wal-index: with none, even a read-only connection creates one in the agent's folder (and
//! cannot open at all where the folder is not writable); a stale one left by a crash is
//! rewritten. A rollback journal left by a crash is "hot": SQLite refuses to read until it is
//! rolled back (`SQLITE_READONLY_ROLLBACK`, extended code 776). So, by what is on disk:
//!
//! | on disk | how it is read |
//! |---|---|
//! | WAL header, no `-wal` | in place, `immutable=1`: checkpointed, nothing to recover |
//! | WAL, `-wal` and `-shm` | in place, `readonly_shm=1`: SQLite maps the `-shm` read-only and takes only read locks; a stale `-shm` (no connection holds it) makes SQLite read the `-wal` into private memory instead of rebuilding it |
//! | WAL, `-wal` without `-shm` | a private snapshot: db and `-wal` copied into our cache dir |
//! | rollback journal, hot `-journal` | a private snapshot with the journal, rolled back there |
//! | anything else | in place, read-only |
//!
//! A snapshot is taken only when the files were stable while copied (size and mtime equal before
//! and after, retried a few times), is kept under `$XDG_CACHE_HOME/palimpsest/snapshots/` and
//! reused while the agent's files are unchanged. Whatever fails in place is retried on a
//! snapshot once. Schema detection and queries are the readers'.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

/// True when `path` starts with SQLite's header (a database: one file, many sessions).
pub fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// How long a read waits for the agent's writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
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

/// Whether the file's header says WAL mode (bytes 18 and 19 are 2). Errors name the file.
fn is_wal(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut head = [0u8; 20];
    let mut f = crate::sources::open_file(path)?;
    let n = f.read(&mut head).map_err(|e| Error::io(path, e))?;
    Ok(n == 20 && head[18] == 2 && head[19] == 2)
}

fn non_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// Open `path` read-only without touching the agent's files; see the module docs.
pub fn open(path: &Path) -> Result<Connection> {
    let wal = is_wal(path)?;
    let has_wal = non_empty(&sidecar(path, "-wal"));
    let has_shm = sidecar(path, "-shm").is_file();
    let hot_journal = !wal && non_empty(&sidecar(path, "-journal"));
    if (wal && has_wal && !has_shm) || hot_journal {
        return snapshot(path);
    }
    let params = if !wal {
        ""
    } else if has_wal {
        "&readonly_shm=1"
    } else {
        "&immutable=1"
    };
    match in_place(path, params) {
        Ok(c) => Ok(c),
        // A busy writer is not a reason to copy: say so. Anything else (a read-only folder, a
        // wal-index SQLite cannot use read-only) gets one try on a private copy.
        Err(e) if is_busy(&e) => Err(e),
        Err(first) => snapshot(path).map_err(|_| first),
    }
}

fn is_busy(e: &Error) -> bool {
    matches!(e, Error::Sqlite { source: rusqlite::Error::SqliteFailure(f, _), .. }
        if f.code == rusqlite::ErrorCode::DatabaseBusy || f.code == rusqlite::ErrorCode::DatabaseLocked)
}

fn sql_err(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    }
}

fn in_place(path: &Path, params: &str) -> Result<Connection> {
    let uri = format!("file:{}?mode=ro{params}", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(&uri, flags).map_err(sql_err(path))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err(path))?;
    conn.pragma_update(None, "query_only", "ON")
        .map_err(sql_err(path))?;
    // SQLite reads the header, the wal-index and any journal only at the first query: make
    // that happen here, so every failure of opening is seen (and retried) in one place.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .map_err(sql_err(path))?;
    Ok(conn)
}

/// The files a snapshot copies, with their (size, mtime) now.
fn stamp(files: &[PathBuf]) -> Vec<Option<(u64, SystemTime)>> {
    files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
        })
        .collect()
}

/// The folder snapshots live in: `$XDG_CACHE_HOME/palimpsest/snapshots`.
pub fn snapshot_root() -> Option<PathBuf> {
    crate::env::machine()
        .cache_dir
        .as_ref()
        .map(|d| d.join("snapshots"))
}

/// Copy the database and its `-wal` or `-journal` into a private folder, consistently, and open
/// the copy (read-write there, so SQLite may recover the WAL or roll the journal back in it).
fn snapshot(path: &Path) -> Result<Connection> {
    let root = snapshot_root().ok_or_else(|| {
        Error::format(
            path,
            "needs a private copy to be read without writing to its folder, and there is no \
             cache folder to put it in (set XDG_CACHE_HOME)",
        )
    })?;
    let files: Vec<PathBuf> = ["", "-wal", "-journal"]
        .iter()
        .map(|s| sidecar(path, s))
        .filter(|f| f.is_file())
        .collect();
    let canonical = path.canonicalize().map_err(|e| Error::io(path, e))?;
    let key = xxhash_rust::xxh3::xxh3_64(canonical.as_os_str().as_encoded_bytes());
    for _attempt in 0..5 {
        let before = stamp(&files);
        let fp = xxhash_rust::xxh3::xxh3_64(format!("{before:?}").as_bytes());
        let dir = root.join(format!("{key:016x}-{fp:016x}"));
        let name = path.file_name().unwrap_or_default();
        if dir.join(name).is_file() {
            return open_copy(&dir.join(name), path);
        }
        let tmp = root.join(format!(
            ".tmp-{key:016x}-{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
        for f in &files {
            let to = tmp.join(f.file_name().unwrap_or_default());
            if let Err(e) = std::fs::copy(f, &to) {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(Error::io(f, e));
            }
        }
        if stamp(&files) != before {
            // The agent wrote while we copied: the copy may mix two states. Try again.
            let _ = std::fs::remove_dir_all(&tmp);
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        // Another process may have finished the same snapshot first; either copy is good.
        if std::fs::rename(&tmp, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        prune(&root, key, &dir);
        return open_copy(&dir.join(name), path);
    }
    Err(Error::format(
        path,
        "kept changing while a private copy was taken (5 tries): try again when the agent is idle",
    ))
}

/// Remove older snapshots of the same database (best effort: a cache).
fn prune(root: &Path, key: u64, keep: &Path) {
    let prefix = format!("{key:016x}-");
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p != keep && e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(&p);
        }
    }
}

fn open_copy(copy: &Path, original: &Path) -> Result<Connection> {
    // Errors name the agent's file, not our copy: that is the file the user knows.
    let conn = Connection::open_with_flags(
        copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql_err(original))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err(original))?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .map_err(sql_err(original))?;
    conn.pragma_update(None, "query_only", "ON")
        .map_err(sql_err(original))?;
    Ok(conn)
}
