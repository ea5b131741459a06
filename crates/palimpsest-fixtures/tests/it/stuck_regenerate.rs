//! Regenerating the stuck-worker fixture gives the committed `fixtures/goose-stuck/sessions.db`,
//! row for row (page layout may differ between SQLite versions, rows may not).

use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::Value;

fn rows(db: &Path, table: &str) -> Vec<Vec<Value>> {
    let conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st = conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY 1"))
        .unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn regenerated_stuck_fixture_matches_the_committed_one() {
    let out = tempfile::tempdir().unwrap();
    palimpsest_fixtures::stuck::generate(out.path()).expect("the generator runs");
    let fresh = out.path().join("goose-stuck/sessions.db");
    let committed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose-stuck/sessions.db");
    assert_eq!(
        rows(&fresh, "messages").len(),
        39,
        "39 stored messages: 11 + 3 + 14 + 3 + 8"
    );
    for table in ["schema_version", "sessions", "messages", "usage_ledger"] {
        assert!(
            rows(&fresh, table) == rows(&committed, table),
            "{table}: committed rows differ; rerun `cargo run -p palimpsest-fixtures --bin palimpsest-fixtures -- fixtures/`"
        );
    }
}
