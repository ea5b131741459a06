//! One whole message from the index, while its session's file is still being read: the rows
//! say where its records start (`rows::MessageRow::records`), so the message is read back
//! from those bytes alone (`sources::claude::records`), with the kind and visibility the whole
//! file gave it laid over; a message the whole file changed is stored whole (`body_json`).
//! Only for a file that is as it was indexed, or (`AsOf::Grown`) that file with lines appended:
//! the records of the messages indexed are still at their offsets then.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use super::{AsOf, Index};
use crate::error::Result;
use crate::model::Message;
use crate::views::timeline::TimelineRow;

impl Index {
    /// Message `index` of session `id` under `path` and its stored text, read by offset;
    /// `None` when the index cannot answer (file changed, not indexed, the reader records no
    /// offsets for this format).
    pub fn message(
        &self,
        path: &Path,
        id: Option<&str>,
        index: usize,
    ) -> Result<Option<(Message, String)>> {
        self.message_as_of(path, id, index, AsOf::Same)
    }

    /// [`Index::message`], and with [`AsOf::Grown`] also one of the messages indexed of a
    /// file that grew since: its records are still at their offsets, its kind and visibility
    /// as the index last saw them.
    pub fn message_as_of(
        &self,
        path: &Path,
        id: Option<&str>,
        index: usize,
        as_of: AsOf,
    ) -> Result<Option<(Message, String)>> {
        let Some(super::read::Indexed { rowid, file, .. }) =
            self.indexed_session(path, id, as_of)?
        else {
            return Ok(None);
        };
        let row: Option<(String, Option<String>, String)> = self
            .conn
            .query_row(
                "SELECT records, body_json, row_json FROM messages WHERE session = ?1 AND idx = ?2",
                params![rowid, index as i64],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        let Some((records, body, row)) = row else {
            return Ok(None);
        };
        let Ok(records) = serde_json::from_str::<Vec<[u64; 2]>>(&records) else {
            return Ok(None);
        };
        let file = PathBuf::from(file);
        let lines = crate::sources::claude::records::read_records(&file, &records)?;
        let raw = lines
            .iter()
            .map(|(_, _, text)| String::from_utf8_lossy(text).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        let Some(laid) = Laid::of(&row) else {
            return Ok(None);
        };
        Ok(from_lines(&file, lines, body.as_deref(), &laid)?.map(|m| (m, raw)))
    }
}

/// What only the whole file knows of a message, kept in its row: its place, kind and
/// visibility.
pub(super) struct Laid {
    index: usize,
    kind: crate::model::MessageKind,
    agent_visible: bool,
    user_visible: bool,
}

impl Laid {
    /// From a row's JSON (`TimelineRow`).
    pub(super) fn of(row_json: &str) -> Option<Laid> {
        let row: TimelineRow = serde_json::from_str(row_json).ok()?;
        Some(Laid {
            index: row.index,
            kind: row.kind,
            agent_visible: row.agent_visible,
            user_visible: row.user_visible,
        })
    }
}

/// The message a row gives back: its body when the index kept it whole, else the message its
/// record `lines` make with `laid` over it; `None` when they make none.
pub(super) fn from_lines(
    file: &Path,
    lines: Vec<(u64, u64, Vec<u8>)>,
    body: Option<&str>,
    laid: &Laid,
) -> Result<Option<Message>> {
    if let Some(body) = body {
        return Ok(serde_json::from_str(body).ok());
    }
    let Some(mut m) = crate::sources::claude::records::message_from_lines(file, lines)? else {
        return Ok(None);
    };
    m.index = laid.index;
    m.kind = laid.kind;
    m.agent_visible = laid.agent_visible;
    m.user_visible = laid.user_visible;
    Ok(Some(m))
}
