//! goose fixtures: the sessions (`sessions`), how they are stored (`write`) and the layout
//! under `fixtures/goose/` ([`generate`]). A large database for the list bench is [`large_db`].
//! This crate only writes fixtures; reading them is `palimpsest-core`'s goose reader.

use std::path::Path;

use anyhow::{Context, Result};

pub mod sessions;
pub mod v17;
pub mod write;

use sessions::Era;

/// Write `<out>/goose/sessions.db` (schema 16), `<out>/goose/v6/sessions.db` (schema 6),
/// `<out>/goose/v17/sessions.db` (schema 17, [`v17`]) and `<out>/goose/legacy/<id>.jsonl`,
/// replacing what is there.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("goose");
    for (dir, era) in [(root.clone(), Era::Head), (root.join("v6"), Era::V116)] {
        std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
        let db = dir.join("sessions.db");
        // Build next to the target and rename, so a reader never sees a half-written file.
        let tmp = dir.join("sessions.db.tmp");
        for p in [&tmp, &db] {
            if p.exists() {
                std::fs::remove_file(p).with_context(|| format!("remove {}", p.display()))?;
            }
        }
        write::write_db(&tmp, era, &sessions::all(era))?;
        std::fs::rename(&tmp, &db).with_context(|| format!("rename to {}", db.display()))?;
    }
    let dir = root.join("v17");
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    let (db, tmp) = (dir.join("sessions.db"), dir.join("sessions.db.tmp"));
    for p in [&tmp, &db] {
        if p.exists() {
            std::fs::remove_file(p).with_context(|| format!("remove {}", p.display()))?;
        }
    }
    v17::write(&tmp, v17::Compaction::InPlace)?;
    std::fs::rename(&tmp, &db).with_context(|| format!("rename to {}", db.display()))?;
    v17::write_logs(&dir.join("logs"))?;
    let legacy = root.join("legacy");
    std::fs::create_dir_all(&legacy).with_context(|| format!("create {}", legacy.display()))?;
    for s in sessions::all(Era::Legacy) {
        let p = legacy.join(format!("{}.jsonl", s.id));
        std::fs::write(&p, write::legacy_text(&s))
            .with_context(|| format!("write {}", p.display()))?;
    }
    Ok(())
}

/// Write a schema-16 goose database of roughly `target_bytes` at `path`: `sessions` sessions
/// with tool loops whose results are large (12–60 KB), one auto compaction every 40 messages.
/// Used by the list bench; content is deterministic.
pub fn large_db(path: &Path, target_bytes: u64, sessions: usize) -> Result<()> {
    use rusqlite::{Connection, params};
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(write::DDL_16)?;
    let filler: String = sessions::STORE_PY.repeat(800); // ~70 KB of source text to slice from
    let per_session = target_bytes / sessions as u64;
    let tx = conn.transaction()?;
    for n in 0..sessions {
        let id = format!("20260801_{n}");
        let created = 1_785_000_000 + n as i64 * 3_600;
        tx.execute(
            "INSERT INTO sessions (id, name, working_dir, created_at, updated_at, total_tokens, model_config_json) \
             VALUES (?1, ?2, '/w', ?3, ?3, 1000, ?4)",
            params![id, format!("bench session {n}"), write::sqlite_time(created), write::MODEL_CONFIG],
        )?;
        let mut written = 0u64;
        let mut i = 0i64;
        while written < per_session {
            let (role, content, meta) = match i % 40 {
                38 => (
                    "user",
                    serde_json::json!([{"type":"text","text":sessions::SUMMARY}]),
                    r#"{"userVisible":false,"agentVisible":true}"#,
                ),
                39 => (
                    "assistant",
                    serde_json::json!([{"type":"text","text":sessions::TOOL_LOOP}]),
                    r#"{"userVisible":false,"agentVisible":true}"#,
                ),
                k if k % 2 == 0 => (
                    "assistant",
                    serde_json::json!([{"type":"toolRequest","id":format!("c{i}"),
                    "toolCall":{"status":"success","value":{"name":"shell","arguments":{"cmd":"cat store.py"}}}}]),
                    r#"{"userVisible":true,"agentVisible":true}"#,
                ),
                _ => {
                    let len = 12_000 + ((i as usize * 7919 + n * 104_729) % 48_000);
                    (
                        "user",
                        serde_json::json!([{"type":"toolResponse","id":format!("c{}", i - 1),
                            "toolResult":{"status":"success","value":{"content":[{"type":"text","text":&filler[..len]}]}}}]),
                        r#"{"userVisible":true,"agentVisible":true}"#,
                    )
                }
            };
            let text = content.to_string();
            written += text.len() as u64;
            tx.execute(
                "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![format!("msg_{id}_{i}"), id, role, text, created + i, meta],
            )?;
            i += 1;
        }
    }
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    Ok(())
}
