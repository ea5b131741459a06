//! Damage to SQLite databases (goose `sessions.db`, coworker's `coworker.db`, OpenCode's
//! `opencode.db`, Crush's `crush.db`): files cut short
//! or overwritten in places, not SQLite at all, WAL and rollback-journal left-overs of a crash
//! (a `-wal` without `-shm`, a stale `-shm`, a hot journal, garbage in either), rows whose JSON
//! is broken or of the wrong type, NULLs, missing tables, unknown columns and huge rows.
//! Case names start with `db-`.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::Connection;

use super::{Base, Case, Expect};

fn sidecar(p: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

/// The table and JSON column each database keeps its messages or sessions in.
fn shape(base: &Base) -> (&'static str, &'static str, &'static str) {
    match base.format {
        "goose" => ("messages", "content_json", "role"),
        "opencode" => ("message", "data", "session_id"),
        "crush" => ("messages", "parts", "role"),
        _ => ("sessions", "compaction", "model"),
    }
}

/// Every database case of `base` (whose `main` is the database), written under `out`.
pub fn cases(base: &Base, out: &Path) -> Result<Vec<Case>> {
    let good = base.main_bytes().to_vec();
    let mut v: Vec<Case> = Vec::new();
    let mut bytes_case = |name: &str, bytes: Vec<u8>, expect: Expect| -> Result<()> {
        let c = base.case(out, &format!("db-{name}"), expect);
        base.write(&c.dir, Some(&bytes))?;
        v.push(c);
        Ok(())
    };
    for pct in [1, 10, 25, 50, 75, 95] {
        bytes_case(
            &format!("cut-at-{pct}pct"),
            good[..good.len() * pct / 100].to_vec(),
            Expect::Either,
        )?;
    }
    let page = 4096.min(good.len());
    let mut header = good.clone();
    header[..16].fill(0);
    bytes_case("header-zeroed", header, Expect::Refused)?;
    for (name, at) in [
        ("page-2", page),
        ("page-3", 2 * page),
        ("last-page", good.len().saturating_sub(page)),
    ] {
        let mut b = good.clone();
        let end = (at + 512).min(b.len());
        for (i, x) in b[at.min(end)..end].iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(37) ^ 0xA5;
        }
        bytes_case(&format!("garbage-over-{name}"), b, Expect::Either)?;
    }
    let mut b = good.clone();
    if b.len() > 100 {
        b[100] ^= 0xFF; // the first page's b-tree header
    }
    bytes_case("btree-header-flipped", b, Expect::Either)?;
    let mut b = good.clone();
    b[16] = 0;
    b[17] = 3; // page size 3: not a power of two
    bytes_case("bad-page-size", b, Expect::Either)?;
    bytes_case(
        "only-the-header",
        good[..100.min(good.len())].to_vec(),
        Expect::Either,
    )?;
    bytes_case(
        "not-sqlite",
        b"this file is not a database\n".to_vec(),
        Expect::Refused,
    )?;
    bytes_case("empty", Vec::new(), Expect::Refused)?;
    let mut b = good;
    b[18] = 2;
    b[19] = 2; // says WAL, no -wal beside it
    bytes_case("wal-header-no-wal", b, Expect::AllGood { extra_rows: 0 })?;

    // SQL damage on a copy of the good database.
    let (table, json_col, text_col) = shape(base);
    let sql_cases: Vec<(String, String, Expect)> = {
        let mut s: Vec<(String, String, Expect)> = Vec::new();
        for rowid in 1..=8 {
            s.push((
                format!("row-{rowid}-bad-json"),
                format!("UPDATE {table} SET {json_col} = '{{\"broken\": ' WHERE rowid = {rowid}"),
                Expect::Either,
            ));
        }
        for (name, val) in [
            ("number", "42"),
            ("array", "'[]'"),
            ("object", "'{}'"),
            ("string", "'\"text\"'"),
            ("null", "NULL"),
            ("blob", "x'00ff00ff'"),
        ] {
            s.push((
                format!("json-{name}"),
                format!("UPDATE {table} SET {json_col} = {val} WHERE rowid IN (1, 3)"),
                Expect::Either,
            ));
        }
        for (name, val) in [("null", "NULL"), ("number", "7"), ("empty", "''")] {
            s.push((
                format!("{text_col}-{name}"),
                format!("UPDATE {table} SET {text_col} = {val} WHERE rowid IN (2, 4)"),
                Expect::Either,
            ));
        }
        s.push((
            "json-deep-nesting".into(),
            format!("UPDATE {table} SET {json_col} = replace(hex(zeroblob(50000)), '00', '[') || replace(hex(zeroblob(50000)), '00', ']') WHERE rowid = 2"),
            Expect::Either,
        ));
        s.push(("huge-row".into(), format!("UPDATE {table} SET {text_col} = replace(hex(zeroblob(2500000)), '0', 'x') WHERE rowid = 2"), Expect::Either));
        s.push((
            "unknown-column".into(),
            format!("ALTER TABLE {table} ADD COLUMN from_the_future TEXT DEFAULT 'x'"),
            Expect::AllGood { extra_rows: 0 },
        ));
        s.push((
            "unknown-table".into(),
            "CREATE TABLE future_things (a, b); INSERT INTO future_things VALUES (1, 2)".into(),
            Expect::AllGood { extra_rows: 0 },
        ));
        s.push((
            "table-dropped".into(),
            format!("DROP TABLE {table}"),
            Expect::Refused,
        ));
        s.push((
            "all-rows-deleted".into(),
            format!("DELETE FROM {table}"),
            Expect::Either,
        ));
        s.push((
            "duplicate-rows".into(),
            format!("INSERT INTO {table} SELECT * FROM {table} WHERE rowid = 1"),
            Expect::Either,
        ));
        s
    };
    for (name, sql, expect) in sql_cases {
        let c = base.case(out, &format!("db-{name}"), expect);
        base.write(&c.dir, None)?;
        let db = c.dir.join(&base.main);
        let conn = Connection::open(&db).with_context(|| format!("open {}", db.display()))?;
        // Some damage cannot be done (a constraint); the case then holds the good database,
        // which must still load.
        let _ = conn.execute_batch(&sql);
        drop(conn);
        v.push(c);
    }
    v.extend(crash_cases(base, out)?);
    Ok(v)
}

/// What a crash leaves: a `-wal` with rows not yet in the database, with no `-shm`, with a stale
/// `-shm`, with garbage in either; a hot rollback journal.
fn crash_cases(base: &Base, out: &Path) -> Result<Vec<Case>> {
    let (table, _, _) = shape(base);
    let mut v = Vec::new();
    // Files as a writer leaves them when killed: copy them while its connection is open.
    let leave = |name: &str, journal_mode: &str, keep: &[&str], expect: Expect| -> Result<Case> {
        let c = base.case(out, &format!("db-{name}"), expect);
        base.write(&c.dir, None)?;
        let db = c.dir.join(&base.main);
        let live = c.dir.join(".live");
        std::fs::create_dir_all(&live)?;
        let live_db = live.join(base.main.file_name().unwrap_or_default());
        std::fs::copy(&db, &live_db)?;
        let conn = Connection::open(&live_db)?;
        let last = format!("(SELECT max(rowid) FROM {table})");
        if journal_mode == "WAL" {
            // The last row lives only in the -wal: the reader must see it there.
            conn.execute_batch(&format!(
                "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
                 CREATE TEMP TABLE kept AS SELECT * FROM {table} WHERE rowid = {last};
                 DELETE FROM {table} WHERE rowid = {last};"
            ))?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            conn.execute_batch(&format!(
                "INSERT INTO {table} SELECT * FROM kept; DROP TABLE kept;"
            ))?;
        } else {
            // An open transaction that deleted every row and spilled into the database file:
            // only rolling the journal back gives the rows again.
            conn.execute_batch(&format!(
                "PRAGMA journal_mode=DELETE; PRAGMA cache_size=1; BEGIN;
                 DELETE FROM {table};
                 CREATE TABLE spill_pages(x);
                 INSERT INTO spill_pages SELECT randomblob(4000) FROM
                   (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300) SELECT n FROM c);"
            ))?;
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let from = sidecar(&live_db, suffix);
            if (suffix.is_empty() || keep.contains(&suffix)) && from.is_file() {
                std::fs::copy(&from, sidecar(&db, suffix))?;
            }
        }
        drop(conn);
        std::fs::remove_dir_all(&live)?;
        Ok(c)
    };
    v.push(leave(
        "wal-without-shm",
        "WAL",
        &["-wal"],
        Expect::AllGood { extra_rows: 0 },
    )?);
    v.push(leave(
        "wal-with-stale-shm",
        "WAL",
        &["-wal", "-shm"],
        Expect::AllGood { extra_rows: 0 },
    )?);
    v.push(leave(
        "hot-journal",
        "DELETE",
        &["-journal"],
        Expect::AllGood { extra_rows: 0 },
    )?);
    let garbage = |c: &Case, suffix: &str| -> Result<()> {
        let p = sidecar(&c.dir.join(&base.main), suffix);
        std::fs::write(&p, vec![0x5Au8; 40_000]).with_context(|| format!("write {}", p.display()))
    };
    let c = leave("wal-garbage", "WAL", &["-wal"], Expect::Either)?;
    garbage(&c, "-wal")?;
    v.push(c);
    let c = leave("shm-garbage", "WAL", &["-wal", "-shm"], Expect::Either)?;
    garbage(&c, "-shm")?;
    v.push(c);
    let c = leave("journal-garbage", "DELETE", &["-journal"], Expect::Either)?;
    garbage(&c, "-journal")?;
    v.push(c);
    Ok(v)
}
