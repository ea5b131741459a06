//! What goose's schema 17 adds to a session: delegated child sessions and the usage ledger's
//! compaction calls.
//!
//! - `sessions.parent_delegation` (JSON: `execution_mode`, `parent_delegate_message_id`,
//!   `result_delivered_to_parent`) makes a session the child of one message of its parent: the
//!   parent's message gets a [`LinkKind::Subagent`] link naming the child (the database path
//!   plus the child's id), as a Claude Code Task call links its subagent run, and the child is
//!   listed under its parent. The parent is `parent_session_id` when set, else the session the
//!   message id names (`msg_<session>_<uuid>`).
//! - `usage_ledger` rows with `is_compaction = 1` are the compaction calls. When a session has as
//!   many as it has compactions, the k-th gives the k-th compaction its recorded size before
//!   (the call's input: what it summarised), and the first ordinary call after it the size after,
//!   marked as taken from usage. Any other count is left unmatched rather than guessed.
//!
//! Listing, rows and kinds stay as they are; this runs on a loaded session.

use std::path::Path;

use rusqlite::Connection;
use serde_json::{Value, json};

use super::db::Schema;
use crate::error::{Error, Result};
use crate::model::{CompactionRecord, Link, LinkKind, Message};

/// The session a goose message id names: `msg_<session>_<uuid>` (a uuid has no `_`).
pub fn session_of_message_id(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("msg_")?;
    let (session, tail) = rest.rsplit_once('_')?;
    (!session.is_empty() && !tail.is_empty()).then_some(session)
}

/// The message id a `parent_delegation` value names.
fn delegate_message(delegation: &str) -> Option<String> {
    let v: Value = serde_json::from_str(delegation).ok()?;
    v.get("parent_delegate_message_id")?
        .as_str()
        .map(str::to_owned)
}

/// The parent sessions of children that name theirs only through the delegating message: the
/// session whose `messages` row holds that `message_id` (goose also stores ids set by the
/// caller, which name no session), else the session the id's shape names
/// (`msg_<session>_<uuid>`) when the message is gone.
pub struct ParentsByMessage<'c> {
    lookup: Option<rusqlite::Statement<'c>>,
}

impl<'c> ParentsByMessage<'c> {
    /// Ready to look up in `conn`'s `messages` (when it has `message_id`).
    pub fn new(conn: &'c Connection, schema: &Schema) -> Self {
        let lookup = schema
            .messages
            .contains("message_id")
            .then(|| {
                conn.prepare("SELECT session_id FROM messages WHERE message_id = ?1 LIMIT 1")
                    .ok()
            })
            .flatten();
        Self { lookup }
    }

    /// The parent a `parent_delegation` value names through its message id.
    pub fn parent(&mut self, delegation: &str) -> Option<String> {
        let id = delegate_message(delegation)?;
        let found = self.lookup.as_mut().and_then(|st| {
            st.query_row([&id], |r| r.get::<_, String>(0))
                .ok()
                .filter(|s| !s.is_empty())
        });
        found.or_else(|| session_of_message_id(&id).map(str::to_owned))
    }
}

/// Link each message of session `id` that delegated a child session to that child.
pub fn link_children(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    id: &str,
    messages: &mut [Message],
) -> Result<()> {
    if !schema.sessions.contains("parent_delegation") {
        return Ok(());
    }
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let parent_col = schema.session_col("parent_session_id");
    let mut st = conn
        .prepare(&format!(
            "SELECT s.id, s.parent_delegation, {parent_col} FROM sessions s \
             WHERE s.parent_delegation IS NOT NULL"
        ))
        .map_err(sql_err)?;
    let rows: Vec<(String, String, Option<String>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(sql_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql_err)?;
    for (child, delegation, parent) in rows {
        let Ok(d) = serde_json::from_str::<Value>(&delegation) else {
            continue;
        };
        let Some(msg) = d.get("parent_delegate_message_id").and_then(Value::as_str) else {
            continue;
        };
        // Without a parent column the delegating message is this session's when it is among
        // this session's messages (its id need not name the session).
        let parent = parent.filter(|p| !p.is_empty());
        if parent.as_deref().is_some_and(|p| p != id) {
            continue;
        }
        if let Some(m) = messages.iter_mut().find(|m| m.id.as_deref() == Some(msg)) {
            m.links.push(Link {
                kind: LinkKind::Subagent,
                path: path.display().to_string(),
                session: Some(child.clone()),
            });
            let entry = json!({"session": child, "delegation": d});
            let mut all = match m.detail("delegations") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            all.push(entry);
            m.set_detail("delegations", Value::Array(all));
        }
    }
    Ok(())
}

/// One call of the ledger: (input tokens, is a compaction call, the row as stored).
type Call = (Option<u64>, bool, Value);

/// Give each compaction of session `id` its recorded sizes from the ledger (see the module doc).
pub fn ledger_sizes(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    id: &str,
    compactions: &mut [CompactionRecord],
) -> Result<()> {
    if !schema.ledger || compactions.is_empty() {
        return Ok(());
    }
    let sql_err = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let has = |c: &str| {
        conn.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('usage_ledger') WHERE name = ?1",
            [c],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    if !has("is_compaction").map_err(sql_err)? {
        return Ok(());
    }
    let mut st = conn
        .prepare(
            "SELECT id, created_timestamp, model, input_tokens, output_tokens, is_compaction \
             FROM usage_ledger WHERE session_id = ?1 ORDER BY created_timestamp, id",
        )
        .map_err(sql_err)?;
    let calls: Vec<Call> = st
        .query_map([id], |r| {
            let input: Option<i64> = r.get(3)?;
            let compaction = r.get::<_, Option<i64>>(5)?.unwrap_or(0) != 0;
            let row = json!({
                "id": r.get::<_, i64>(0)?,
                "created_timestamp": r.get::<_, Option<i64>>(1)?,
                "model": r.get::<_, Option<String>>(2)?,
                "input_tokens": input,
                "output_tokens": r.get::<_, Option<i64>>(4)?,
                "is_compaction": compaction,
            });
            Ok((input.and_then(|i| u64::try_from(i).ok()), compaction, row))
        })
        .map_err(sql_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql_err)?;
    let at: Vec<usize> = (0..calls.len()).filter(|&i| calls[i].1).collect();
    if at.len() != compactions.len() {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..compactions.len()).collect();
    order.sort_by_key(|&k| compactions[k].cut_index);
    for (k, &call) in order.into_iter().zip(&at) {
        let c = &mut compactions[k];
        if c.pre_tokens.is_none() {
            c.pre_tokens = calls[call].0;
        }
        if c.post_tokens.is_none()
            && let Some(next) = calls[call + 1..].iter().find(|x| !x.1)
        {
            c.post_tokens = next.0;
            c.post_tokens_from_usage = next.0.is_some();
        }
        if c.raw.is_none() {
            c.raw = Some(json!({ "usage_ledger": calls[call].2 }));
        }
    }
    Ok(())
}
