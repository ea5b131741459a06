//! The goose reader on databases built in a temp dir: every bad input (each a clear error naming
//! the file, and the row), odd and newer schemas, goose's row order, all content item types, and
//! the read-only guarantee (no byte changed, no file created, WAL content seen).

use std::path::{Path, PathBuf};

use palimpsest_core::model::{Part, Session};
use palimpsest_core::sources::{self, goose::GooseSource};
use palimpsest_fixtures::goose::sessions::{Era, all};
use palimpsest_fixtures::goose::write::{DDL_16, insert_session, write_db};
use rusqlite::{Connection, params};
use serde_json::json;

fn open_err(path: &Path) -> String {
    match sources::open(path) {
        Ok(_) => panic!("{} should not open", path.display()),
        Err(e) => e.to_string(),
    }
}

fn load(path: &Path, id: &str) -> Session {
    sources::open(path)
        .unwrap_or_else(|e| panic!("open: {e}"))
        .load(path, Some(id))
        .unwrap_or_else(|e| panic!("load {id}: {e}"))
}

/// A schema-16 DB holding seed-five only.
fn seed_db(dir: &Path) -> PathBuf {
    let p = dir.join("sessions.db");
    let seed: Vec<_> = all(Era::Head).into_iter().take(1).collect();
    write_db(&p, Era::Head, &seed).unwrap();
    p
}

fn add_row(
    conn: &Connection,
    session: &str,
    role: &str,
    content: &str,
    created: i64,
    meta: Option<&str>,
) -> i64 {
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session, role, content, created, meta],
    )
    .unwrap();
    conn.last_insert_rowid()
}

#[test]
fn not_sqlite_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    std::fs::write(&p, "this is not a database\n").unwrap();
    let msg = open_err(&p);
    assert!(
        msg.contains(&p.display().to_string()) && msg.contains("not a SQLite database"),
        "names the file and says why: {msg}"
    );
    let folder = sources::open(dir.path()).expect("a folder always opens");
    assert_eq!(
        folder.problems.len(),
        1,
        "the broken DB is a problem of the folder"
    );
    assert!(
        folder.problems[0]
            .to_string()
            .contains("not a SQLite database"),
        "the folder reports the same error: {}",
        folder.problems[0]
    );
}

#[test]
fn sqlite_but_not_goose_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    Connection::open(&p)
        .unwrap()
        .execute_batch("CREATE TABLE notes (x TEXT);")
        .unwrap();
    let msg = open_err(&p);
    assert!(
        msg.contains(&p.display().to_string())
            && msg.contains("not a goose sessions.db: it has no `sessions` and `messages` tables"),
        "SQLite without goose tables: {msg}"
    );
    let other = dir.path().join("other.db");
    std::fs::copy(&p, &other).unwrap();
    assert!(
        open_err(&other).contains("no reader recognised"),
        "a non-goose SQLite file with another name is not claimed by goose"
    );
    std::fs::write(&p, b"").unwrap();
    let msg = open_err(&p);
    assert!(
        msg.contains(&p.display().to_string()) && msg.contains("is empty (0 bytes)"),
        "zero-byte sessions.db: {msg}"
    );
}

#[test]
fn missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    let err = GooseSource::open_db(&p).expect_err("a missing DB cannot open");
    assert_eq!(
        err.code(),
        palimpsest_core::error::ErrorCode::NotFound,
        "stable code for a missing file: {err}"
    );
    assert!(
        err.to_string().contains(&p.display().to_string()),
        "names it: {err}"
    );
}

#[test]
fn goose_db_without_sessions_lists_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    write_db(&p, Era::Head, &[]).unwrap();
    let catalog = sources::open(&p).unwrap();
    let (metas, problems) = catalog.list();
    assert!(
        metas.is_empty() && problems.is_empty(),
        "an empty goose DB is valid and empty"
    );
    let err = catalog.load(&p, Some("nope")).expect_err("no such session");
    assert_eq!(err.code().as_str(), "no_such_session", "{err}");
}

#[test]
fn bad_content_json_row_becomes_an_error_message_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let p = seed_db(dir.path());
    let conn = Connection::open(&p).unwrap();
    let row = add_row(
        &conn,
        "seed-five",
        "assistant",
        "[{\"type\":\"text\",",
        1_771_900_045,
        None,
    );
    add_row(
        &conn,
        "seed-five",
        "user",
        r#"[{"type":"text","text":"after"}]"#,
        1_771_900_050,
        None,
    );
    drop(conn);
    let s = load(&p, "seed-five");
    assert_eq!(s.messages.len(), 7, "the bad row does not hide the others");
    let bad = &s.messages[5];
    let err = bad.error.as_deref().expect("the bad row is marked");
    assert!(
        err.contains(&p.display().to_string())
            && err.contains(&format!("row {row}:"))
            && err.contains("not valid JSON"),
        "error names file and row: {err}"
    );
    assert_eq!(
        bad.parts,
        vec![Part::Other {
            original_type: "content_json".into(),
            raw: json!("[{\"type\":\"text\",")
        }],
        "the raw text is kept as an other part"
    );
    assert_eq!(s.messages[6].text(), "after", "rows after it load");
}

#[test]
fn unknown_newer_columns_and_tables_are_tolerated() {
    let dir = tempfile::tempdir().unwrap();
    let p = seed_db(dir.path());
    Connection::open(&p)
        .unwrap()
        .execute_batch(
            "ALTER TABLE sessions ADD COLUMN message_count_cache INTEGER DEFAULT 5;
             ALTER TABLE messages ADD COLUMN future_json TEXT DEFAULT '{}';
             CREATE TABLE schema_17_things (x);
             INSERT INTO schema_version (version) VALUES (17);",
        )
        .unwrap();
    let s = load(&p, "seed-five");
    assert_eq!(
        s.messages.len(),
        5,
        "a schema-17 DB with extra columns reads as before"
    );
}

#[test]
fn schema_zero_shape_reads_with_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    let conn = Connection::open(&p).unwrap();
    conn.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
           created_at TIMESTAMP, updated_at TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER);
         CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
           content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP, tokens INTEGER);
         INSERT INTO sessions (id, description, working_dir, created_at, updated_at)
           VALUES ('20251001_1', 'first   goose  session', '/w', '2025-10-01T08:00:00+00:00', '2025-10-01 08:05:00');",
    )
    .unwrap();
    // Inserted out of order: goose reads by created_timestamp, then id.
    add_row_v0(&conn, "assistant", "second", 1_759_305_610);
    add_row_v0(&conn, "user", "first", 1_759_305_600);
    add_row_v0(&conn, "assistant", "third", 1_759_305_610);
    drop(conn);
    let s = load(&p, "20251001_1");
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        ["first", "second", "third"],
        "ordered by created_timestamp, then row id"
    );
    assert!(
        s.messages.iter().all(|m| m.agent_visible && m.user_visible),
        "no metadata column: default visibility"
    );
    assert_eq!(
        s.meta.name, "first goose session",
        "no name column: the description, collapsed"
    );
    assert_eq!(
        s.meta.created,
        Some(1_759_305_600_000),
        "RFC 3339 created_at"
    );
    assert_eq!(
        s.meta.updated,
        Some(1_759_305_900_000),
        "SQLite-text updated_at"
    );
    assert!(s.messages[0].id.is_none(), "no message_id column: no id");
}

fn add_row_v0(conn: &Connection, role: &str, text: &str, created: i64) {
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20251001_1', ?1, ?2, ?3)",
        params![role, json!([{"type": "text", "text": text}]).to_string(), created],
    )
    .unwrap();
}

#[test]
fn every_content_item_type_maps_and_partial_metadata_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let p = seed_db(dir.path());
    let conn = Connection::open(&p).unwrap();
    let items = json!([
        {"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},
        {"type":"thinking","thinking":"check the retry count","signature":"EqQB"},
        {"type":"redactedThinking","data":"EmwK"},
        {"type":"reasoning","text":"old reasoning"},
        {"type":"toolRequest","id":"c7","toolCall":{"status":"error","error":"-32602: Could not parse tool arguments"}},
        {"type":"toolResponse","id":"c8","toolResult":{"status":"error","error":"-32603: Tool not found: foo__bar"}},
        {"type":"toolResponse","id":"c9","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"permission denied"}],"isError":true}}},
        {"type":"actionRequired","data":{"actionType":"elicitation","id":"el_1","message":"Pick a branch"}},
        {"type":"frontendToolRequest","id":"f1","toolCall":{"status":"success","value":{"name":"browser__click","arguments":{}}}},
        {"type":"toolConfirmationRequest","id":"t5","toolName":"developer__shell","arguments":{},"prompt":null},
        {"type":"error","kind":"provider","message":"rate limited"}
    ]);
    add_row(
        &conn,
        "seed-five",
        "assistant",
        &items.to_string(),
        1_771_900_100,
        Some(r#"{"userVisible":false}"#),
    );
    drop(conn);
    let s = load(&p, "seed-five");
    let m = &s.messages[5];
    assert!(
        m.agent_visible && m.user_visible,
        "partial metadata falls back to the default as a whole"
    );
    assert_eq!(
        m.parts[0],
        Part::Image {
            mime: "image/png".into(),
            size: 12
        },
        "image: mime and size, no bytes"
    );
    assert_eq!(
        m.parts[1],
        Part::Thinking {
            text: "check the retry count".into(),
            redacted: false
        },
        "thinking"
    );
    assert_eq!(
        m.parts[2],
        Part::Thinking {
            text: String::new(),
            redacted: true
        },
        "redacted thinking"
    );
    assert_eq!(
        m.parts[3],
        Part::Thinking {
            text: "old reasoning".into(),
            redacted: false
        },
        "reasoning → thinking"
    );
    assert!(
        matches!(&m.parts[4], Part::ToolCall { id, arguments, .. } if id == "c7" && arguments.value()["error"] == "-32602: Could not parse tool arguments"),
        "error-wrapped request keeps the error: {:?}",
        m.parts[4]
    );
    assert!(
        matches!(&m.parts[5], Part::ToolResult { is_error: true, text, .. } if text == "-32603: Tool not found: foo__bar"),
        "status error: {:?}",
        m.parts[5]
    );
    assert!(
        matches!(&m.parts[6], Part::ToolResult { is_error: true, text, .. } if text == "permission denied"),
        "isError: {:?}",
        m.parts[6]
    );
    let others: Vec<&str> = m.parts[7..]
        .iter()
        .map(|p| match p {
            Part::Other { original_type, .. } => original_type.as_str(),
            _ => "NOT OTHER",
        })
        .collect();
    assert_eq!(
        others,
        [
            "actionRequired",
            "frontendToolRequest",
            "toolConfirmationRequest",
            "error"
        ],
        "the rest are kept with their tags"
    );
}

#[test]
fn usage_ledger_fills_the_accumulated_total() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sessions.db");
    let conn = Connection::open(&p).unwrap();
    conn.execute_batch(DDL_16).unwrap();
    let mut s = all(Era::Head).remove(0);
    s.tokens.accumulated_total = None;
    insert_session(&conn, Era::Head, &s).unwrap();
    conn.execute(
        "INSERT INTO usage_ledger (session_id, created_timestamp, total_tokens, is_compaction) VALUES ('seed-five', 1, 900, 1)",
        [],
    )
    .unwrap();
    drop(conn);
    let usage = load(&p, "seed-five").meta.usage.expect("usage recorded");
    assert_eq!(
        usage.accumulated_total_tokens,
        Some(2_200 + 900),
        "sum of the ledger when the column is NULL"
    );
}

#[test]
fn sessions_folder_with_db_and_legacy_files() {
    let dir = tempfile::tempdir().unwrap();
    seed_db(dir.path());
    let legacy = |id: &str| {
        format!(
            "{}\n{}\n{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"cut",
            json!({"working_dir": "/w", "description": format!("legacy {id}"), "message_count": 1}),
            json!({"id": null, "role": "user", "created": 1_700_000_000, "content": [{"type": "text", "text": "hi"}]}),
        )
    };
    // One legacy session goose already imported (same id as the DB's), one it did not.
    std::fs::write(dir.path().join("seed-five.jsonl"), legacy("seed-five")).unwrap();
    std::fs::write(dir.path().join("20250901_101500.jsonl"), legacy("old")).unwrap();
    std::fs::write(dir.path().join("notes.jsonl"), "{\"role\":\"user\"}\n").unwrap();
    let catalog = sources::open(dir.path()).unwrap();
    assert_eq!(
        catalog
            .sources
            .iter()
            .map(|s| s.format().as_str())
            .collect::<Vec<_>>(),
        ["goose", "message-log"],
        "the database and the legacy files are one goose source; the file goose does not          read goes to the other readers (issue 46: a goose file never hides its neighbours)"
    );
    let (mut metas, problems) = catalog.list();
    assert!(problems.is_empty(), "{problems:?}");
    metas.sort_by(|a, b| a.id.cmp(&b.id));
    let got: Vec<(&str, &str, usize)> = metas
        .iter()
        .map(|m| (m.id.as_str(), m.format.as_str(), m.message_count))
        .collect();
    assert_eq!(
        got,
        [
            ("20250901_101500", "goose-legacy", 1),
            ("notes", "message-log", 1),
            ("seed-five", "goose", 5)
        ],
        "the DB copy wins for an imported id; the unfinished last line is not counted; the \
         message log beside them is listed as one"
    );
    let s = catalog.load(dir.path(), Some("20250901_101500")).unwrap();
    assert_eq!(s.messages.len(), 1, "load agrees with the listing");
    assert_eq!(s.meta.name, "legacy old", "name from the description");
}
