//! Write goose sessions as goose itself would: `sessions.db` with the schema-16 (v1.47) or
//! schema-6 (v1.16) DDL, and legacy `<id>.jsonl` files. Every value is fixed (no "now"), so
//! regenerating gives the same rows. What the sessions contain is `sessions`'.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use super::sessions::{Era, Meta, Msg, Session};

/// goose v1.47 (schema 16) DDL, as a fresh database gets it.
pub const DDL_16: &str = "
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
  session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
  total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  accumulated_cache_read_tokens INTEGER, accumulated_cache_write_tokens INTEGER, accumulated_cost REAL,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE TABLE usage_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
  cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_messages_message_id ON messages(message_id);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id);
";

/// goose v1.16 (schema 6) DDL: no `message_id`, no cache/cost/mode/archive/parent columns, no
/// usage ledger.
pub const DDL_6: &str = "
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
  session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
  total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
";

/// The model config every fixture session records.
pub const MODEL_CONFIG: &str = r#"{"model_name":"qwen3.6-27b","context_limit":131072,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}"#;

/// SQLite's `CURRENT_TIMESTAMP` text for a Unix time.
pub fn sqlite_time(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

fn metadata(meta: Meta) -> Option<String> {
    match meta {
        Meta::Flags(u, a) => Some(json!({"userVisible": u, "agentVisible": a}).to_string()),
        Meta::Missing => None,
    }
}

/// Create a goose database at `path` (which must not exist) for `era` (Head → schema 16,
/// V116 → schema 6) holding `sessions`.
pub fn write_db(path: &Path, era: Era, sessions: &[Session]) -> Result<()> {
    let mut conn = Connection::open(path).with_context(|| format!("create {}", path.display()))?;
    let (ddl, versions) = match era {
        Era::Head => (DDL_16, 16..=16),
        _ => (DDL_6, 1..=6),
    };
    conn.execute_batch(ddl)?;
    let tx = conn.transaction()?;
    for v in versions {
        tx.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)",
            params![v, sqlite_time(1_760_000_000 + i64::from(v) * 86_400)],
        )?;
    }
    for s in sessions {
        insert_session(&tx, era, s)?;
    }
    tx.commit()?;
    Ok(())
}

/// Insert one session and its messages (and, in the Head era, one ledger row per assistant turn).
pub fn insert_session(conn: &Connection, era: Era, s: &Session) -> Result<()> {
    let last = s.created + 10 * s.messages.len().saturating_sub(1) as i64;
    conn.execute(
        "INSERT INTO sessions (id, name, description, working_dir, created_at, updated_at, \
         total_tokens, input_tokens, output_tokens, accumulated_total_tokens, provider_name, model_config_json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'openai', ?11)",
        params![
            s.id,
            s.name,
            s.description,
            s.working_dir,
            sqlite_time(s.created),
            sqlite_time(last),
            s.tokens.total,
            s.tokens.input,
            s.tokens.output,
            s.tokens.accumulated_total,
            MODEL_CONFIG
        ],
    )?;
    for (i, m) in s.messages.iter().enumerate() {
        let created = s.created + 10 * i as i64;
        let stored = if era == Era::Head && s.ms_timestamps {
            created * 1000 + 250
        } else {
            created
        };
        let content = m.content.to_string();
        let meta = metadata(m.meta);
        if era == Era::Head {
            conn.execute(
                "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, metadata_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![format!("msg_{}_{i}", s.id), s.id, m.role, content, stored, sqlite_time(created), meta],
            )?;
        } else {
            conn.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![s.id, m.role, content, stored, sqlite_time(created), meta],
            )?;
        }
    }
    if era == Era::Head
        && let Some(total) = s.tokens.total
    {
        conn.execute(
            "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cost_source) \
             VALUES (?1, ?2, 'qwen3.6-27b', ?3, ?4, ?5, 'estimated')",
            params![s.id, last, s.tokens.input, s.tokens.output, total],
        )?;
    }
    Ok(())
}

fn legacy_message(i: usize, s: &Session, m: &Msg) -> Value {
    let mut v = json!({
        "id": format!("msg_{}_{i}", s.id),
        "role": m.role,
        "created": s.created + 10 * i as i64,
        "content": m.content,
    });
    if let Meta::Flags(u, a) = m.meta {
        v["metadata"] = json!({"userVisible": u, "agentVisible": a});
    }
    v
}

/// The legacy `.jsonl` text of a session: metadata line, then one message per line.
pub fn legacy_text(s: &Session) -> String {
    let meta = json!({
        "working_dir": s.working_dir,
        "description": if s.description.is_empty() { s.name } else { s.description },
        "schedule_id": null,
        "message_count": s.messages.len(),
        "total_tokens": s.tokens.total,
        "input_tokens": s.tokens.input,
        "output_tokens": s.tokens.output,
        "accumulated_total_tokens": s.tokens.accumulated_total,
        "accumulated_input_tokens": null,
        "accumulated_output_tokens": null,
        "extension_data": {},
    });
    let mut out = meta.to_string();
    out.push('\n');
    for (i, m) in s.messages.iter().enumerate() {
        out.push_str(&legacy_message(i, s, m).to_string());
        out.push('\n');
    }
    out
}
