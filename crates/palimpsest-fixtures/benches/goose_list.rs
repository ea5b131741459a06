//! List-time bench for the goose reader: writes a ~1 GB schema-16 `sessions.db` (700 sessions,
//! tool results of 12–60 KB, an auto compaction every 40 messages) in a temp dir, then times
//! `SessionSource::list` on it. Listing must not read message content, so it should stay far
//! below a second whatever the size. Then it loads the largest session the way `show --session`
//! does (`api::load_session`) beside the reference, the plain SQL query of that session's rows,
//! and prints the ratio: loading one session must not grow with the database. The listing is
//! printed beside its plain SQL too (each session's row and message count).
//!
//! `cargo bench -p palimpsest-fixtures --bench goose_list`
//! Env: `GOOSE_BENCH_MB` (default 1024) sets the size; `GOOSE_BENCH_DB` reuses (or keeps) a
//! database at that path instead of a temp one.

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::var("GOOSE_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let tmp = tempfile::tempdir()?;
    let db: PathBuf = std::env::var_os("GOOSE_BENCH_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("sessions.db"));
    if !db.exists() {
        let t = Instant::now();
        palimpsest_fixtures::goose::large_db(&db, mb << 20, 700)?;
        println!("wrote {} in {:.1?}", db.display(), t.elapsed());
    }
    let size = std::fs::metadata(&db)?.len();
    let catalog = palimpsest_core::sources::open(&db)?;
    let source = &catalog.sources[0];
    let mut times: Vec<Duration> = Vec::new();
    let mut listed = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        listed = source.list()?;
        times.push(t.elapsed());
    }
    let first = times[0];
    times.sort();
    let messages: usize = listed.iter().map(|m| m.message_count).sum();
    let compactions: usize = listed.iter().map(|m| m.compaction_count).sum();
    println!(
        "goose list: {:.1} MB, {} sessions, {messages} messages, {compactions} compactions: \
         first {first:.1?}, median {:.1?}, min {:.1?} (7 runs)",
        size as f64 / 1e6,
        listed.len(),
        times[3],
        times[0],
    );
    // The reference for the listing: the plain SQL of what a listing shows (each session's row
    // and its message count), on the same connection settings.
    let plain = rusqlite::Connection::open_with_flags(
        &db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut sql_list: Vec<Duration> = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let mut q = plain.prepare_cached(
            "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s",
        )?;
        let n = q
            .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))?
            .count();
        sql_list.push(t.elapsed());
        std::hint::black_box(n);
    }
    sql_list.sort();
    // And with what a listing also says, the compactions: continuation rows found by their
    // opening words in assistant content (the scan the listing makes).
    let mut sql_cuts: Vec<Duration> = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let mut q = plain.prepare_cached(
            "SELECT session_id, COUNT(*) FROM messages WHERE role = 'assistant' \
             AND instr(content_json, 'Your context was compacted') > 0 GROUP BY session_id",
        )?;
        let n = q
            .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))?
            .count();
        sql_cuts.push(t.elapsed() + sql_list[3]);
        std::hint::black_box(n);
    }
    sql_cuts.sort();
    println!(
        "goose list beside its SQL with the compaction scan: {:.1?} vs {:.1?}: {:.1}×",
        times[3],
        sql_cuts[3],
        times[3].as_secs_f64() / sql_cuts[3].as_secs_f64().max(1e-9),
    );
    println!(
        "goose list beside its SQL (each session's row and message count): {:.1?} vs {:.1?}: {:.1}×",
        times[3],
        sql_list[3],
        times[3].as_secs_f64() / sql_list[3].as_secs_f64().max(1e-9),
    );
    let big = listed
        .iter()
        .max_by_key(|m| m.message_count)
        .map(|m| m.id.clone())
        .unwrap_or_default();
    let (mut load, mut sql) = (Vec::new(), Vec::new());
    let conn = rusqlite::Connection::open_with_flags(
        &db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    for _ in 0..7 {
        let t = Instant::now();
        let s = palimpsest_core::api::load_session(&db, Some(&big))?;
        load.push(t.elapsed());
        std::hint::black_box(s.messages.len());
        let t = Instant::now();
        let mut q = conn.prepare_cached(
            "SELECT id, role, content_json, created_timestamp, metadata_json FROM messages \
             WHERE session_id = ?1 ORDER BY id",
        )?;
        let rows: Vec<(i64, String, String)> = q
            .query_map([&big], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        sql.push(t.elapsed());
        std::hint::black_box(rows.len());
    }
    load.sort();
    sql.sort();
    println!(
        "goose one session ({big}): load median {:.1?} beside its SQL query {:.1?}: {:.1}×",
        load[3],
        sql[3],
        load[3].as_secs_f64() / sql[3].as_secs_f64().max(1e-9),
    );
    Ok(())
}
