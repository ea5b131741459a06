//! Regenerating the coworker and message-log fixtures into a temp dir gives what is committed:
//! every text file byte for byte, and every row of `coworker.db` (rows, not bytes: SQLite's page
//! layout may differ between library versions).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value;

fn committed() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

/// Every file under `dir` except databases, as (relative path, bytes), sorted.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_none_or(|x| x != "db") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn rows(db: &Path) -> Vec<Vec<Value>> {
    let conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st = conn
        .prepare("SELECT * FROM sessions ORDER BY session_id")
        .unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn regenerated_coworker_and_message_log_fixtures_match_the_committed_ones() {
    let out = tempfile::tempdir().unwrap();
    palimpsest_fixtures::coworker::generate(out.path()).unwrap();
    palimpsest_fixtures::message_log::generate(out.path()).unwrap();
    let hint = "out of date: run `cargo run -p palimpsest-fixtures --bin palimpsest-fixtures -- fixtures/`";
    for dir in ["coworker", "message-log"] {
        let fresh = files(&out.path().join(dir));
        assert!(!fresh.is_empty(), "{dir} generates files");
        assert_eq!(
            fresh,
            files(&committed().join(dir)),
            "fixtures/{dir} {hint}"
        );
    }
    let db = "coworker/state/coworker.db";
    let fresh = rows(&out.path().join(db));
    assert_eq!(fresh.len(), 3, "three session rows");
    assert_eq!(fresh, rows(&committed().join(db)), "fixtures/{db} {hint}");
}
