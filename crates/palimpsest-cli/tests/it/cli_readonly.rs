//! Read-only, through the command line, on goose databases in the states goose leaves them:
//! with a live writer holding the WAL open, and in a folder the reader cannot write (a `-wal`
//! with no `-shm`, which SQLite alone can neither read there nor read without creating the
//! `-shm`). The rows only in the `-wal` must be listed, and not a byte of goose's folder may
//! change. (The crash states — `-wal` without `-shm`, stale `-shm`, hot journal, checkpointed
//! WAL header — are cases of the malformed corpus, `malformed.rs`.)
#![cfg(unix)]

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use palimpsest_fixtures::goose::{sessions, write};
use rusqlite::Connection;
use serde_json::Value;

/// Every file of `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect()
}

/// A goose database in `dir` whose last `seed-five` row is only in the `-wal`, and the
/// writer's connection, still open.
fn live_db(dir: &Path) -> Connection {
    let db = dir.join("sessions.db");
    write::write_db(
        &db,
        sessions::Era::Head,
        &sessions::all(sessions::Era::Head),
    )
    .unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
         INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)
         VALUES ('msg_live', 'seed-five', 'assistant',
                 '[{\"type\":\"text\",\"text\":\"written by the live writer\"}]', 1771900099,
                 '{\"userVisible\":true,\"agentVisible\":true}');",
    )
    .unwrap();
    conn
}

fn show_json(out: std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "show succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn last_text(v: &Value) -> String {
    v["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["parts"][0]["text"].as_str().unwrap_or("").to_owned())
        .unwrap_or_default()
}

#[test]
fn a_live_writers_wal_rows_are_read_and_its_files_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let goose = tmp.path().join("goose");
    std::fs::create_dir_all(&goose).unwrap();
    let writer = live_db(&goose);
    // The writer's connection is open: -wal and -shm exist and the -shm is live.
    let before = files(&goose);
    assert!(
        before.contains_key("sessions.db-shm") && before.contains_key("sessions.db-wal"),
        "a live WAL database has both side files: {:?}",
        before.keys()
    );
    let out = Command::new(assert_cmd::cargo::cargo_bin("palimpsest"))
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .args(["show"])
        .arg(goose.join("sessions.db"))
        .args(["--session", "seed-five", "--json"])
        .output()
        .unwrap();
    let v = show_json(out);
    assert_eq!(
        last_text(&v),
        "written by the live writer",
        "the row only in the -wal is read"
    );
    assert_eq!(
        files(&goose),
        before,
        "no file of goose's folder changed, none appeared"
    );
    drop(writer);
}

fn euid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

#[test]
fn a_wal_in_a_folder_the_reader_cannot_write_is_read_from_a_private_copy() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let goose = root.join("goose");
    std::fs::create_dir_all(&goose).unwrap();
    {
        // Copy the files while the writer is live, as a crash or a sync leaves them: the
        // -wal holds the last row, and there is no -shm.
        let live = root.join("live");
        std::fs::create_dir_all(&live).unwrap();
        let writer = live_db(&live);
        for f in ["sessions.db", "sessions.db-wal"] {
            std::fs::copy(live.join(f), goose.join(f)).unwrap();
        }
        drop(writer);
    }
    for f in ["sessions.db", "sessions.db-wal"] {
        std::fs::set_permissions(goose.join(f), std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    std::fs::set_permissions(&goose, std::fs::Permissions::from_mode(0o555)).unwrap();
    let cache = root.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let before = files(&goose);
    // The unprivileged user may not reach the build folder (a checkout under /root): run a
    // copy of the binary from the temp folder it can reach.
    let bin = root.join("palimpsest");
    std::fs::copy(assert_cmd::cargo::cargo_bin("palimpsest"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new(&bin);
    cmd.env("XDG_CACHE_HOME", &cache)
        .env("HOME", &cache)
        .args(["show"])
        .arg(goose.join("sessions.db"))
        .args(["--session", "seed-five", "--json"]);
    // root writes anywhere: read as an unprivileged user, so the folder really is read-only.
    if euid() == Some(0) {
        std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
        cmd.uid(65534).gid(65534);
    }
    let v = show_json(cmd.output().unwrap());
    assert_eq!(
        last_text(&v),
        "written by the live writer",
        "the row only in the -wal is read, from a private copy"
    );
    assert_eq!(
        files(&goose),
        before,
        "nothing created in (or changed of) the read-only folder"
    );
    let snapshots = std::fs::read_dir(cache.join("palimpsest/snapshots"))
        .map(|rd| rd.count())
        .unwrap_or(0);
    assert_eq!(snapshots, 1, "one private copy, in the cache folder");
    std::fs::set_permissions(&goose, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_locked_coworker_database_says_it_is_locked_within_the_busy_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir_all(state.join("conversations")).unwrap();
    let db = state.join("coworker.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, workspace TEXT, model TEXT, title TEXT);
         INSERT INTO sessions VALUES ('abc123', '/w', 'm', 't');
         BEGIN EXCLUSIVE;",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let out = Command::new(assert_cmd::cargo::cargo_bin("palimpsest"))
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .args(["show"])
        .arg(&state)
        .args(["--session", "abc123", "--json"])
        .output()
        .unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a locked database cannot be read");
    assert!(
        err.contains(db.to_str().unwrap()) && err.contains("locked"),
        "the real cause, naming the database: {err}"
    );
    assert!(
        took < std::time::Duration::from_secs(9),
        "it gives up after the busy timeout (5 s), not later: {took:?}"
    );
    conn.execute_batch("ROLLBACK").unwrap();
}
