//! Each message's BPE piece counts, kept with its row (`messages.pieces`), so an update of a
//! transcript read on from its last offset splits and counts only the messages it read
//! (`tokens::count_session_after`): on a 285 MB transcript, counting every message again (each
//! long result unpacked and hashed for its cache lookup) was a second of every appended line.
//! Made here, written by `messages`, read back here; the column is `store`'s.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::model::Session;
use crate::tokens::{Category, Earlier, Encoding, PieceCount, SessionCounts, ToolKind};

/// One piece as kept: part, category, tool kind, tokens, bytes, tool.
type Kept = (
    usize,
    Category,
    Option<ToolKind>,
    u64,
    usize,
    Option<String>,
);

/// Each message's pieces of `counts` as its row keeps them, by position in `session` (`[]` for
/// a message with none), from position `from` on (the rows written; empty before it).
pub fn encode(session: &Session, counts: &SessionCounts, from: usize) -> Vec<String> {
    let pos = session.positions();
    // Borrowed as they are written: the first index of a long transcript has every piece here.
    type Written<'a> = (
        usize,
        Category,
        Option<ToolKind>,
        u64,
        usize,
        Option<&'a str>,
    );
    let mut per: Vec<Vec<Written>> = vec![Vec::new(); session.messages.len()];
    for p in &counts.pieces {
        if let Some(&i) = pos.get(&p.message_index).filter(|&&i| i >= from) {
            per[i].push((
                p.part_index,
                p.category,
                p.tool_kind,
                p.tokens,
                p.bytes,
                p.tool.as_deref(),
            ));
        }
    }
    per.iter()
        .enumerate()
        .map(|(i, k)| match i >= from {
            true => serde_json::to_string(k).unwrap_or_else(|_| "[]".into()),
            false => String::new(),
        })
        .collect()
}

/// What the index kept of the counts of the first `before` messages of session `id` of
/// `file`, with the vocabulary they were counted in (that of the model the index stored for
/// it): `None` when it has no such session or a row without them. Read through a connection
/// of its own to the index at `index`, which sees what the last update committed.
pub fn earlier(index: &Path, file: &str, id: &str, before: usize) -> Option<(Encoding, Earlier)> {
    let conn = Connection::open_with_flags(
        index,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    read(&conn, file, id, before).ok().flatten()
}

/// `earlier`, the counts of more messages, cut to those of the first `before` ones.
pub fn first(mut earlier: Earlier, before: usize) -> Option<Earlier> {
    if before > earlier.before {
        return None;
    }
    earlier.pieces.retain(|p| p.message_index < before);
    earlier.before = before;
    Some(earlier)
}

fn read(
    conn: &Connection,
    file: &str,
    id: &str,
    before: usize,
) -> rusqlite::Result<Option<(Encoding, Earlier)>> {
    let Some((rowid, meta)) = conn
        .query_row(
            "SELECT id, meta_json FROM sessions WHERE file = ?1 AND session_id = ?2",
            params![file, id],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
        )
        .optional()?
    else {
        return Ok(None);
    };
    let model = serde_json::from_str::<crate::model::SessionMeta>(&meta)
        .ok()
        .and_then(|m| m.model);
    let encoding = Encoding::for_model(model.as_deref());
    let mut q = conn
        .prepare("SELECT idx, pieces FROM messages WHERE session = ?1 AND idx < ?2 ORDER BY idx")?;
    let mut rows = q.query(params![rowid, before as i64])?;
    let (mut pieces, mut seen) = (Vec::new(), 0);
    while let Some(r) = rows.next()? {
        let idx = r.get::<_, i64>(0)? as usize;
        let Some(kept) = r
            .get_ref(1)?
            .as_str_or_null()?
            .and_then(|j| serde_json::from_str::<Vec<Kept>>(j).ok())
        else {
            return Ok(None);
        };
        if idx != seen {
            return Ok(None);
        }
        seen += 1;
        pieces.extend(kept.into_iter().map(
            |(part_index, category, tool_kind, tokens, bytes, tool)| PieceCount {
                message_index: idx,
                part_index,
                category,
                tool,
                tool_kind,
                tokens,
                bytes,
            },
        ));
    }
    Ok((seen == before).then_some((encoding, Earlier { before, pieces })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(message_index: usize, tokens: u64) -> PieceCount {
        PieceCount {
            message_index,
            part_index: 0,
            category: Category::ToolResults,
            tool: None,
            tool_kind: None,
            tokens,
            bytes: 4 * tokens as usize,
        }
    }

    #[test]
    fn the_counts_read_ahead_are_cut_to_the_messages_a_reader_left_unchanged() {
        let stored = Earlier {
            before: 3,
            pieces: vec![piece(0, 5), piece(1, 7), piece(1, 2), piece(2, 9)],
        };
        let kept = first(stored.clone(), 2).unwrap();
        assert_eq!(kept.before, 2);
        let tokens: Vec<(usize, u64)> = kept
            .pieces
            .iter()
            .map(|p| (p.message_index, p.tokens))
            .collect();
        assert_eq!(tokens, [(0, 5), (1, 7), (1, 2)]);
        assert_eq!(first(stored.clone(), 3).unwrap().pieces.len(), 4);
        assert!(
            first(stored, 4).is_none(),
            "counts of messages the index does not have are not made up"
        );
    }
}
