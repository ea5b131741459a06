//! The `sessions` table of `coworker.db`, opened read-only, and the title rule coworker's UI
//! applies. Columns added over time (`compaction`, `usage`, `auto_title`, …) are optional: an
//! older database simply lacks them.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

/// One row of `sessions`, as far as Palimpsest uses it.
#[derive(Debug, Clone, Default)]
pub struct SessionRow {
    /// `session_id`.
    pub id: String,
    /// `workspace`.
    pub workspace: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `title`, `renamed`, `auto_title` (see [`SessionRow::title`]).
    pub title: Option<String>,
    /// True when the user renamed the session (its `title` then wins).
    pub renamed: bool,
    /// The generated title.
    pub auto_title: Option<String>,
    /// `updated_at` as Unix ms.
    pub updated: Option<i64>,
    /// The `usage` column (`{model: {input, output, cache_read, cache_write, turns}}`).
    pub usage: Option<Value>,
    /// The `compaction` column: the latest `CompactionState`, or `{}`.
    pub compaction: Option<Value>,
    /// The legacy inline `messages` JSON (NULL since conversations moved to JSONL).
    pub inline_messages: Option<String>,
}

impl SessionRow {
    /// The title coworker shows: a manual `title` when renamed, else `auto_title`, else the
    /// first 60 characters of the first user message, else "New session".
    pub fn title(&self, first_user: Option<&str>) -> String {
        let nonempty = |s: &Option<String>| {
            s.as_deref()
                .filter(|t| !t.trim().is_empty())
                .map(str::to_owned)
        };
        if self.renamed
            && let Some(t) = nonempty(&self.title)
        {
            return t;
        }
        nonempty(&self.auto_title).unwrap_or_else(|| snapshot_title(first_user))
    }
}

/// The first-line snapshot title: the first 60 characters of the first user message.
pub fn snapshot_title(first_user: Option<&str>) -> String {
    match first_user.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => t.chars().take(60).collect(),
        None => "New session".to_owned(),
    }
}

const COLUMNS: &[&str] = &[
    "session_id",
    "workspace",
    "model",
    "title",
    "renamed",
    "auto_title",
    "updated_at",
    "usage",
    "compaction",
    "messages",
];

/// Every row of `sessions`. The database is opened read-only and never written.
pub fn read_sessions(db: &Path) -> Result<Vec<SessionRow>> {
    let sql_err = |source| Error::Sqlite {
        path: db.to_owned(),
        source,
    };
    // The goose reader's opener: a busy timeout, and no file written in coworker's folder.
    let conn = crate::sources::sqlite::open(db)?;
    let present: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('sessions')")
        .and_then(|mut st| {
            st.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(sql_err)?;
    if !present.iter().any(|c| c == "session_id") {
        return Err(Error::format(db, "has no coworker `sessions` table"));
    }
    let select: Vec<String> = COLUMNS
        .iter()
        .map(|c| {
            if present.iter().any(|p| p == c) {
                format!("CAST({c} AS TEXT)")
            } else {
                "NULL".to_owned()
            }
        })
        .collect();
    let sql = format!("SELECT {} FROM sessions ORDER BY rowid", select.join(", "));
    let mut st = conn.prepare(&sql).map_err(sql_err)?;
    let rows = st
        .query_map([], |r| {
            let text = |i: usize| r.get::<_, Option<String>>(i);
            let json = |i: usize| -> rusqlite::Result<Option<Value>> {
                Ok(text(i)?.and_then(|s| serde_json::from_str(&s).ok()))
            };
            Ok(SessionRow {
                id: text(0)?.unwrap_or_default(),
                workspace: text(1)?,
                model: text(2)?,
                title: text(3)?,
                renamed: text(4)?.is_some_and(|s| s.trim() != "0" && !s.is_empty()),
                auto_title: text(5)?,
                updated: text(6)?.as_deref().and_then(parse_sqlite_time),
                usage: json(7)?,
                compaction: json(8)?,
                inline_messages: text(9)?,
            })
        })
        .map_err(sql_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sql_err)?;
    Ok(rows)
}

/// `CURRENT_TIMESTAMP` text (`YYYY-MM-DD HH:MM:SS`, UTC) as Unix ms.
pub fn parse_sqlite_time(s: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|d| d.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_rule_order() {
        let mut row = SessionRow {
            title: Some("Manual".into()),
            auto_title: Some("Auto".into()),
            ..Default::default()
        };
        assert_eq!(
            row.title(Some("hello")),
            "Auto",
            "title only wins when renamed"
        );
        row.renamed = true;
        assert_eq!(row.title(Some("hello")), "Manual", "renamed title wins");
        let bare = SessionRow::default();
        let long = "x".repeat(70);
        assert_eq!(
            bare.title(Some(&long)).len(),
            60,
            "snapshot is cut at 60 characters"
        );
        assert_eq!(bare.title(None), "New session", "no user message yet");
        assert_eq!(
            parse_sqlite_time("1970-01-01 00:00:01"),
            Some(1000),
            "UTC seconds"
        );
    }
}
