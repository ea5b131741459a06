//! The goose reader never writes: reading a `sessions.db` (rollback journal or WAL) changes no
//! byte and creates no file next to it, and rows still in goose's WAL are seen because the
//! database is opened in place.

use std::path::{Path, PathBuf};

use palimpsest_core::sources;
use palimpsest_fixtures::goose::sessions::{Era, all};
use palimpsest_fixtures::goose::write::write_db;
use rusqlite::{Connection, params};

/// A schema-16 DB holding seed-five only.
fn seed_db(dir: &Path) -> PathBuf {
    let p = dir.join("sessions.db");
    let seed: Vec<_> = all(Era::Head).into_iter().take(1).collect();
    write_db(&p, Era::Head, &seed).unwrap();
    p
}

/// Every file in `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn read_everything(p: &Path) {
    let catalog = sources::open(p).unwrap();
    let (metas, problems) = catalog.list();
    assert!(problems.is_empty(), "{problems:?}");
    for m in metas {
        catalog.load(p, Some(&m.id)).unwrap();
        catalog.sources[0].raw(&m.id, 0).unwrap();
    }
}

#[test]
fn reading_changes_no_byte_and_creates_no_file() {
    for wal in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let p = seed_db(dir.path());
        if wal {
            // goose runs in WAL mode; after a clean shutdown only sessions.db is left.
            let c = Connection::open(&p).unwrap();
            c.pragma_update(None, "journal_mode", "WAL").unwrap();
            drop(c);
        }
        let before = snapshot(dir.path());
        assert_eq!(before.len(), 1, "only sessions.db before (wal={wal})");
        read_everything(&p);
        read_everything(dir.path());
        assert!(
            snapshot(dir.path()) == before,
            "wal={wal}: same files, same bytes after reading"
        );
    }
}

#[test]
fn uncheckpointed_wal_rows_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let p = seed_db(dir.path());
    let writer = Connection::open(&p).unwrap();
    writer.pragma_update(None, "journal_mode", "WAL").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('seed-five', 'user', ?1, ?2)",
            params![r#"[{"type":"text","text":"live row"}]"#, 1_771_900_060],
        )
        .unwrap();
    let wal = dir.path().join("sessions.db-wal");
    assert!(
        wal.exists() && std::fs::metadata(&wal).unwrap().len() > 0,
        "the row sits in the WAL"
    );
    let s = sources::open(&p)
        .unwrap()
        .load(&p, Some("seed-five"))
        .unwrap();
    assert_eq!(
        s.messages.len(),
        6,
        "opened in place, the WAL row is visible"
    );
    assert_eq!(s.messages[5].text(), "live row", "the live row is last");
    drop(writer);
}
