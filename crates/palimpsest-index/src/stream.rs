//! A whole session read back from the index while its file is as it was indexed: its listing
//! data, then each message in turn from its own records by byte offset (as `super::body` reads
//! one), so a command that prints every message (`show`) holds one message at a time instead
//! of the session: a 200 MB transcript is printed in tens of megabytes. Only for a session
//! whose every message the index can give back (a Claude Code transcript); `None` otherwise,
//! and the caller reads the file.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use rusqlite::params;

use super::Index;
use super::body::{Laid, from_lines};
use crate::error::{Error, Result};
use crate::model::{Message, SessionMeta};
use crate::sources::claude::records;

/// One message's row: where its records are, or its body kept whole.
struct Row {
    records: Vec<[u64; 2]>,
    body: Option<String>,
    laid: Laid,
}

/// A session's messages, read from its file by offset one at a time ([`Iterator`]).
pub struct StoredMessages {
    /// The session's listing data, as the index keeps it.
    pub meta: SessionMeta,
    file: PathBuf,
    rows: std::vec::IntoIter<Row>,
    reader: BufReader<File>,
    /// The file's path as the index keys it (canonical) and as the caller named it, when they
    /// differ: paths the reader derives from the file (its own, its subagents' runs) are given
    /// as reading the named file gives them.
    renamed: Option<(String, String)>,
}

impl Index {
    /// Session `id` under `path` (no id: the one session there) to be read message by message,
    /// when the index holds its file as it is now and can give back every message; `None`
    /// otherwise.
    pub fn stored_messages(&self, path: &Path, id: Option<&str>) -> Result<Option<StoredMessages>> {
        let Some((rowid, file, meta, _)) = self.fresh_session(path, id)? else {
            return Ok(None);
        };
        let Ok(meta) = serde_json::from_str::<SessionMeta>(&meta) else {
            return Ok(None);
        };
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT records, body_json, row_json FROM messages WHERE session = ?1 ORDER BY idx",
            )
            .map_err(|e| self.sql(e))?;
        // Each row is made as it is read, so the rows' JSON is never held all at once.
        let stored = q
            .query_map(params![rowid], |r| {
                Ok((r.get::<_, String>(0)?, r.get(1)?, r.get::<_, String>(2)?))
            })
            .map_err(|e| self.sql(e))?;
        let mut rows = Vec::new();
        for row in stored {
            let (records, body, row): (String, Option<String>, String) =
                row.map_err(|e| self.sql(e))?;
            let records = serde_json::from_str::<Vec<[u64; 2]>>(&records).unwrap_or_default();
            let Some(laid) = Laid::of(&row) else {
                return Ok(None);
            };
            // A message with neither records nor a body cannot be given back.
            if records.is_empty() && body.is_none() {
                return Ok(None);
            }
            rows.push(Row {
                records,
                body,
                laid,
            });
        }
        if rows.len() != meta.message_count {
            return Ok(None);
        }
        let file = PathBuf::from(file);
        let mut meta = meta;
        let renamed = (file.as_path() != path).then(|| {
            let stem = |p: &Path| p.with_extension("").display().to_string();
            (stem(&file), stem(path))
        });
        if meta.path == file.display().to_string() {
            meta.path = path.display().to_string();
        }
        Ok(Some(StoredMessages {
            meta,
            reader: records::open(&file)?,
            file,
            rows: rows.into_iter(),
            renamed,
        }))
    }
}

impl StoredMessages {
    /// Only the messages at `indices` (ascending), read in order; the others are not read.
    pub fn only(mut self, indices: &[usize]) -> StoredMessages {
        // The rows are the session's messages in stored order, a message's index its position.
        let mut wanted = indices.iter().copied().peekable();
        let rows: Vec<Row> = std::mem::replace(&mut self.rows, Vec::new().into_iter())
            .enumerate()
            .filter(|(i, _)| wanted.next_if_eq(i).is_some())
            .map(|(_, r)| r)
            .collect();
        self.rows = rows.into_iter();
        self
    }
}

impl Iterator for StoredMessages {
    type Item = Result<Message>;

    fn next(&mut self) -> Option<Result<Message>> {
        let row = self.rows.next()?;
        let mut read = || -> Result<Message> {
            let lines = if row.body.is_some() {
                Vec::new()
            } else {
                records::read_records_from(&mut self.reader, &self.file, &row.records)?
            };
            from_lines(&self.file, lines, row.body.as_deref(), &row.laid)?.ok_or_else(|| {
                Error::format(
                    &self.file,
                    "a message the index names is no longer at its offset: read the file \
                     (--no-index)",
                )
            })
        };
        Some(read().map(|mut m| {
            if let Some((from, to)) = &self.renamed {
                for l in &mut m.links {
                    if let Some(rest) = l.path.strip_prefix(from.as_str())
                        && rest.starts_with(std::path::MAIN_SEPARATOR)
                    {
                        l.path = format!("{to}{rest}");
                    }
                }
            }
            m
        }))
    }
}
