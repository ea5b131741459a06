//! Listing a goose `sessions.db` cheaply: session columns, plus message and compaction counts
//! from grouped queries that never read tool results (a 1 GB database lists in milliseconds; see
//! the `goose_list` bench in palimpsest-fixtures). Loading messages is `rows`'.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params};
use serde_json::Value;

use super::db::Schema;
use super::{content, kinds};
use crate::error::{Error, Result};
use crate::model::{RecordedUsage, SessionMeta, SourceFormat};

/// A timestamp column (SQLite text `YYYY-MM-DD HH:MM:SS` UTC, RFC 3339, or a number) in Unix ms.
fn timestamp_ms(v: &Sql) -> Option<i64> {
    match v {
        Sql::Integer(i) => Some(content::created_ms(*i)),
        Sql::Real(f) => Some(content::created_ms(*f as i64)),
        Sql::Text(t) => {
            let t = t.trim();
            if let Ok(d) = chrono::DateTime::parse_from_rfc3339(t) {
                return Some(d.timestamp_millis());
            }
            ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
                .iter()
                .find_map(|f| chrono::NaiveDateTime::parse_from_str(t, f).ok())
                .map(|d| d.and_utc().timestamp_millis())
        }
        _ => None,
    }
}

fn tokens(v: &Sql) -> Option<u64> {
    match v {
        Sql::Integer(i) => u64::try_from(*i).ok(),
        _ => None,
    }
}

fn text(v: &Sql) -> Option<String> {
    match v {
        Sql::Text(t) => Some(t.clone()),
        _ => None,
    }
}

/// The session columns a listing reads, in this order.
const META_COLUMNS: [&str; 14] = [
    "name",
    "description",
    "working_dir",
    "created_at",
    "updated_at",
    "model_config_json",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "accumulated_total_tokens",
    "parent_session_id",
    "parent_delegation",
];

fn meta_from_row(path: &Path, id: String, v: &[Sql]) -> SessionMeta {
    let name = text(&v[0]).filter(|s| !s.trim().is_empty());
    // Legacy descriptions were whitespace-collapsed by goose's importer; do the same.
    let description = text(&v[1])
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty());
    let model_config: Option<Value> = text(&v[5]).and_then(|j| serde_json::from_str(&j).ok());
    let usage = RecordedUsage {
        total_tokens: tokens(&v[6]),
        input_tokens: tokens(&v[7]),
        output_tokens: tokens(&v[8]),
        cache_read_tokens: tokens(&v[9]),
        cache_write_tokens: tokens(&v[10]),
        accumulated_total_tokens: tokens(&v[11]),
        // goose's input of the last call is the current context, cache included (its cache
        // columns say how much of it was cached, they are not on top of it).
        context_tokens: tokens(&v[7]),
    };
    SessionMeta {
        name: name.or(description).unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::Goose,
        path: path.display().to_string(),
        working_dir: text(&v[2]).filter(|s| !s.is_empty()),
        created: timestamp_ms(&v[3]),
        updated: timestamp_ms(&v[4]),
        model: model_config
            .as_ref()
            .and_then(|c| c.get("model_name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        context_limit: model_config
            .as_ref()
            .and_then(|c| c.get("context_limit"))
            .and_then(Value::as_u64),
        usage: (usage != RecordedUsage::default()).then_some(usage),
        message_count: 0,
        compaction_count: 0,
        // Schema 17 may name the parent only through the delegating message's id: `list`
        // finds that message's session.
        parent_id: text(&v[12]).filter(|s| !s.is_empty()),
    }
}

fn grouped_counts(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> rusqlite::Result<HashMap<String, i64>> {
    let mut st = conn.prepare(sql)?;
    st.query_map(args, |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
        .collect()
}

/// List sessions (all, or the one with `only` id) without reading any message content beyond
/// assistant rows that may hold a continuation text.
pub fn list(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    only: Option<&str>,
) -> Result<Vec<SessionMeta>> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let cols: Vec<String> = META_COLUMNS.iter().map(|c| schema.session_col(c)).collect();
    let filter = if only.is_some() {
        " WHERE s.id = ?1"
    } else {
        ""
    };
    let query = format!("SELECT s.id, {} FROM sessions s{filter}", cols.join(", "));
    let mut st = conn.prepare(&query).map_err(sql_err)?;
    let read = |r: &rusqlite::Row| -> rusqlite::Result<(String, Vec<Sql>)> {
        let id: Sql = r.get(0)?;
        let id = match id {
            Sql::Text(t) => t,
            Sql::Integer(i) => i.to_string(),
            other => format!("{other:?}"),
        };
        let vals = (1..=META_COLUMNS.len())
            .map(|i| r.get::<_, Sql>(i))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((id, vals))
    };
    let rows: Vec<(String, Vec<Sql>)> = match only {
        Some(id) => st.query_map([id], read),
        None => st.query_map([], read),
    }
    .map_err(sql_err)?
    .collect::<rusqlite::Result<_>>()
    .map_err(sql_err)?;

    // One grouped pass each over the session_id index, not one query per session.
    let (where_count, where_cont) = match only {
        Some(_) => ("WHERE session_id = ?1 ", "AND session_id = ?3 "),
        None => ("", ""),
    };
    let count_sql =
        format!("SELECT session_id, COUNT(*) FROM messages {where_count}GROUP BY session_id");
    // role is stored before content_json, so user rows (where the large tool results live)
    // are rejected without reading their content.
    let cont_sql = format!(
        "SELECT session_id, COUNT(*) FROM messages WHERE role = 'assistant' \
         AND (instr(content_json, ?1) > 0 OR instr(content_json, ?2) > 0) {where_cont}\
         GROUP BY session_id"
    );
    let [p1, p2] = kinds::CONTINUATION_PREFIXES;
    let (counts, conts) = match only {
        Some(id) => (
            grouped_counts(conn, &count_sql, [id]),
            grouped_counts(conn, &cont_sql, params![p1, p2, id]),
        ),
        None => (
            grouped_counts(conn, &count_sql, []),
            grouped_counts(conn, &cont_sql, params![p1, p2]),
        ),
    };
    let (counts, conts) = (counts.map_err(sql_err)?, conts.map_err(sql_err)?);
    let ledger = if schema.ledger {
        grouped_counts(
            conn,
            "SELECT session_id, SUM(total_tokens) FROM usage_ledger \
             WHERE total_tokens IS NOT NULL GROUP BY session_id",
            [],
        )
        .map_err(sql_err)?
    } else {
        HashMap::new()
    };

    let mut parent_by_message = super::delegation::ParentsByMessage::new(conn, schema);
    Ok(rows
        .into_iter()
        .map(|(id, vals)| {
            let mut m = meta_from_row(path, id, &vals);
            if m.parent_id.is_none()
                && let Some(d) = text(&vals[13])
            {
                m.parent_id = parent_by_message.parent(&d);
            }
            m.message_count = counts.get(&m.id).copied().unwrap_or(0) as usize;
            m.compaction_count = conts.get(&m.id).copied().unwrap_or(0) as usize;
            if let Some(&sum) = ledger.get(&m.id) {
                let usage = m.usage.get_or_insert_with(RecordedUsage::default);
                if usage.accumulated_total_tokens.is_none() {
                    usage.accumulated_total_tokens = u64::try_from(sum).ok();
                }
            }
            m
        })
        .collect())
}
