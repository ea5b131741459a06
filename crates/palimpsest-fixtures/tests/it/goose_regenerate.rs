//! Regenerating the goose fixtures into a temp dir gives the same content as the committed
//! ones: every row of every table of the three databases, and every legacy file. Rows are compared,
//! not bytes (SQLite page layout may differ between library versions).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value;

fn committed() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

pub(crate) fn rows(db: &Path) -> Vec<(String, Vec<Vec<Value>>)> {
    let conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables.sort();
    tables
        .into_iter()
        .map(|t| {
            let mut st = conn
                .prepare(&format!("SELECT * FROM {t} ORDER BY 1"))
                .unwrap();
            let n = st.column_count();
            let data = st
                .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
                .unwrap()
                .collect::<Result<Vec<Vec<Value>>, _>>()
                .unwrap();
            (t, data)
        })
        .collect()
}

#[test]
fn regenerated_goose_fixtures_match_the_committed_ones() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_palimpsest-fixtures"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "the generator runs");
    for db in ["goose/sessions.db", "goose/v6/sessions.db"] {
        let fresh = rows(&out.path().join(db));
        assert!(
            fresh.iter().any(|(t, r)| t == "messages" && r.len() == 44),
            "{db}: 44 messages regenerated"
        );
        assert!(
            fresh == rows(&committed().join(db)),
            "{db}: committed rows differ from the generator's; rerun `cargo run -p palimpsest-fixtures -- fixtures/`"
        );
    }
    let db = "goose/v17/sessions.db";
    let fresh = rows(&out.path().join(db));
    assert!(
        fresh.iter().any(|(t, r)| t == "messages" && r.len() == 35),
        "{db}: the schema-17 worker's 32 rows and its children's 3 regenerated"
    );
    assert!(
        fresh == rows(&committed().join(db)),
        "{db}: committed rows differ from the generator's; rerun `cargo run -p palimpsest-fixtures -- fixtures/`"
    );
    for n in 0..3 {
        let log = format!("goose/v17/logs/llm_request.{n}.jsonl");
        assert_eq!(
            std::fs::read(out.path().join(&log)).unwrap(),
            std::fs::read(committed().join(&log)).unwrap_or_default(),
            "{log}: committed request log differs from the generator's"
        );
    }
    let legacy = committed().join("goose/legacy");
    let mut names: Vec<_> = std::fs::read_dir(out.path().join("goose/legacy"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names.len(), 7, "one legacy file per session");
    for n in names {
        assert_eq!(
            std::fs::read_to_string(out.path().join("goose/legacy").join(&n)).unwrap(),
            std::fs::read_to_string(legacy.join(&n)).unwrap_or_default(),
            "legacy file {n:?} is as committed"
        );
    }
}
