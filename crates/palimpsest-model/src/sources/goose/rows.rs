//! Loading one goose session's rows from `sessions.db` in goose's order, and the raw stored row
//! behind one message. Each bad row becomes an error message naming file and row; the rest loads.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};
use serde_json::Value;

use super::db::Schema;
use super::{content, kinds, listing};
use crate::error::{Error, Result};
use crate::model::{Part, Session};

/// A stored text column as a string, whatever SQLite type it was stored with.
fn lossy(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
    }
}

/// One stored row of `messages`, as stored.
struct Row {
    rowid: i64,
    message_id: Option<String>,
    role: String,
    content: Option<String>,
    created: Option<i64>,
    metadata: Option<String>,
}

fn row_query(schema: &Schema, tail: &str) -> String {
    format!(
        "SELECT id, {}, role, content_json, {}, {} FROM messages WHERE session_id = ?1 ORDER BY {}{tail}",
        schema.message_col("message_id"),
        schema.message_col("created_timestamp"),
        schema.message_col("metadata_json"),
        schema.order_by(),
    )
}

fn read_row(r: &rusqlite::Row) -> rusqlite::Result<Row> {
    Ok(Row {
        rowid: r.get(0)?,
        message_id: lossy(r.get_ref(1)?),
        role: lossy(r.get_ref(2)?).unwrap_or_default(),
        content: lossy(r.get_ref(3)?),
        created: r.get::<_, Option<i64>>(4).ok().flatten(),
        metadata: lossy(r.get_ref(5)?),
    })
}

fn to_message(path: &Path, index: usize, row: Row) -> crate::model::Message {
    let row_error = |message: String| {
        Error::Row {
            path: path.to_owned(),
            row: row.rowid,
            message,
        }
        .to_string()
    };
    let meta: Option<Value> = row
        .metadata
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok());
    let raw = row.content.unwrap_or_default();
    let parsed = serde_json::from_str::<Value>(&raw);
    let mut m = match &parsed {
        Ok(v) => content::message(index, &row.role, v, meta.as_ref(), row.created),
        Err(_) => content::message(
            index,
            &row.role,
            &Value::Array(vec![]),
            meta.as_ref(),
            row.created,
        ),
    };
    m.id = row.message_id;
    match parsed {
        Err(e) => {
            m.error = Some(row_error(format!("content_json is not valid JSON: {e}")));
            m.parts = vec![Part::Other {
                original_type: "content_json".into(),
                raw: Value::String(raw),
            }];
        }
        Ok(v) if !v.is_array() => {
            m.error = Some(row_error("content_json is not a JSON array".into()));
        }
        Ok(_) if content::role(&row.role).is_none() => {
            m.error = Some(row_error(format!(
                "role `{}` is not one goose writes (goose skips such rows)",
                row.role
            )));
        }
        Ok(_) => {}
    }
    m
}

/// Load one whole session.
pub fn load(conn: &Connection, schema: &Schema, path: &Path, id: &str) -> Result<Session> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut meta = listing::list(conn, schema, path, Some(id))?
        .pop()
        .ok_or_else(|| Error::NoSuchSession {
            path: path.to_owned(),
            id: id.to_owned(),
        })?;
    let mut st = conn.prepare(&row_query(schema, "")).map_err(sql_err)?;
    let rows = st.query_map([id], read_row).map_err(sql_err)?;
    let mut messages = Vec::new();
    for (index, row) in rows.enumerate() {
        messages.push(to_message(path, index, row.map_err(sql_err)?));
    }
    crate::sources::usage::fill(&mut messages, "usage", crate::sources::usage::goose);
    let mut compactions = kinds::classify(&mut messages);
    super::delegation::link_children(conn, schema, path, id, &mut messages)?;
    super::delegation::ledger_sizes(conn, schema, path, id, &mut compactions)?;
    meta.message_count = messages.len();
    meta.compaction_count = compactions.len();
    Ok(Session {
        meta,
        messages: crate::model::shared(messages),
        compactions,
    })
}

/// The stored row behind message `index` of session `id`: its columns as stored, with
/// `content_json` and `metadata_json` left as the strings they are in the database.
pub fn raw(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    id: &str,
    index: usize,
) -> Result<Option<String>> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut st = conn
        .prepare(&row_query(schema, " LIMIT 1 OFFSET ?2"))
        .map_err(sql_err)?;
    let mut rows = st
        .query_map(params![id, index as i64], read_row)
        .map_err(sql_err)?;
    let Some(row) = rows.next() else {
        return Ok(None);
    };
    let row = row.map_err(sql_err)?;
    let out = serde_json::json!({
        "row": row.rowid,
        "message_id": row.message_id,
        "role": row.role,
        "created_timestamp": row.created,
        "content_json": row.content,
        "metadata_json": row.metadata,
    });
    Ok(Some(serde_json::to_string_pretty(&out).unwrap_or_default()))
}
