//! Writing a session's message rows. A session indexed for the first time (or read again from
//! its start) gets every row inserted. An appended transcript keeps each stored row that is
//! still the same and rewrites only the others: the new messages, the one a later block of a
//! response grew, and earlier ones whose visibility a compaction appended since changed. What a
//! row holds is `rows`'; the table is `store`'s.

use rusqlite::{Connection, Row, params};

use super::rows::MessageRow;

const INSERT: &str = "INSERT OR REPLACE INTO messages(session, idx, role, kind, agent_visible,
    user_visible, chars, est_tokens, tokens, tools, is_error, paths, line, offset, records,
    body_json, row_json, seen_from, seen_until, pieces)
    VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
        ?20)";

/// Write the rows of session `id`: those of positions `rows_from..len`, each made by `row`
/// when it is written (a long session's rows are never all held at once). With `from` 0 the
/// session has no rows left (`store` deleted them); otherwise the stored rows are compared
/// with the rows made and only those that differ, or are new, are written, and rows past the
/// session's end are deleted. Rewriting every row of a 200 MB transcript for one appended line
/// was a third of re-indexing it, most of it in the commit that wrote the rewritten pages.
/// With `rows_from` > 0 the stored rows before it stand (a reader that read only what was
/// appended says they did not change): the others are replaced.
pub fn write(
    conn: &Connection,
    id: i64,
    len: usize,
    row: &dyn Fn(usize) -> MessageRow,
    from: usize,
    rows_from: usize,
) -> rusqlite::Result<()> {
    let mut insert = conn.prepare_cached(INSERT)?;
    let mut put = |m: &MessageRow| -> rusqlite::Result<()> {
        insert.execute(params![
            id,
            m.index as i64,
            m.role,
            m.kind,
            m.agent_visible,
            m.user_visible,
            m.chars as i64,
            crate::tokens::counter::estimate(m.chars) as i64,
            m.tokens.map(|t| t as i64),
            m.tools,
            m.is_error,
            m.paths,
            m.line.map(|l| l as i64),
            m.offset.map(|o| o as i64),
            m.records,
            m.body_json,
            m.row_json,
            m.seen.map(|(from, _)| from as i64),
            m.seen.and_then(|(_, until)| until).map(|u| u as i64),
            m.pieces,
        ])?;
        Ok(())
    };
    if rows_from > 0 || from == 0 {
        if rows_from > 0 {
            conn.execute(
                "DELETE FROM messages WHERE session = ?1 AND idx >= ?2",
                params![id, rows_from as i64],
            )?;
        }
        for pos in rows_from..len {
            put(&row(pos))?;
        }
        return Ok(());
    }
    // Compared first, each row made and let go; those that differ are made again to be
    // written (the few an append changed).
    let mut same = vec![false; len];
    let mut stored = conn.prepare(
        "SELECT idx, role, kind, agent_visible, user_visible, chars, tokens, tools, is_error,
             paths, line, offset, records, body_json, row_json, seen_from, seen_until, pieces
         FROM messages WHERE session = ?1",
    )?;
    let mut found = stored.query(params![id])?;
    while let Some(r) = found.next()? {
        let idx = r.get::<_, i64>(0)? as usize;
        if idx < len {
            same[idx] = is_same(r, &row(idx))?;
        }
    }
    conn.execute(
        "DELETE FROM messages WHERE session = ?1 AND idx >= ?2",
        params![id, len as i64],
    )?;
    for pos in (0..len).filter(|&p| !same[p]) {
        put(&row(pos))?;
    }
    Ok(())
}

/// True when stored row `r` (the columns [`write`] selects) holds what `m` would write.
fn is_same(r: &Row<'_>, m: &MessageRow) -> rusqlite::Result<bool> {
    let int = |i: usize| r.get::<_, Option<i64>>(i);
    let text = |i: usize, want: &str| -> rusqlite::Result<bool> {
        Ok(r.get_ref(i)?.as_str_or_null()? == Some(want))
    };
    Ok(text(1, m.role)?
        && text(2, &m.kind)?
        && r.get::<_, bool>(3)? == m.agent_visible
        && r.get::<_, bool>(4)? == m.user_visible
        && int(5)? == Some(m.chars as i64)
        && int(6)? == m.tokens.map(|t| t as i64)
        && text(7, &m.tools)?
        && r.get::<_, bool>(8)? == m.is_error
        && text(9, &m.paths)?
        && int(10)? == m.line.map(|l| l as i64)
        && int(11)? == m.offset.map(|o| o as i64)
        && text(12, &m.records)?
        && r.get_ref(13)?.as_str_or_null()? == m.body_json.as_deref()
        && text(14, &m.row_json)?
        && int(15)? == m.seen.map(|(from, _)| from as i64)
        && int(16)? == m.seen.and_then(|(_, until)| until).map(|u| u as i64)
        && r.get_ref(17)?.as_str_or_null()? == m.pieces.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(index: usize, agent_visible: bool) -> MessageRow {
        MessageRow {
            index,
            role: "user",
            kind: "text".into(),
            agent_visible,
            user_visible: true,
            chars: 10 + index,
            tools: String::new(),
            is_error: false,
            paths: String::new(),
            line: Some(index as u64 + 1),
            offset: Some(100 * index as u64),
            records: format!("[{}]", index + 1),
            body_json: None,
            tokens: Some(3),
            row_json: format!("{{\"index\":{index},\"agent_visible\":{agent_visible}}}"),
            seen: Some((index, None)),
            pieces: Some("[]".into()),
        }
    }

    fn stored(conn: &Connection) -> Vec<(i64, bool, String)> {
        let mut q = conn
            .prepare(
                "SELECT idx, agent_visible, row_json FROM messages WHERE session = 1 ORDER BY idx",
            )
            .unwrap();
        q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn an_append_rewrites_only_the_rows_that_changed() {
        let t = tempfile::tempdir().unwrap();
        let (conn, _) = super::super::store::open(&t.path().join("index.db")).unwrap();
        let first: Vec<MessageRow> = (0..5).map(|i| row(i, true)).collect();
        write(&conn, 1, 5, &|i| first[i].clone(), 0, 0).unwrap();
        let before = conn.total_changes();

        // A cut appended after message 4 hides messages 0 and 1 from the model.
        let mut now: Vec<MessageRow> = (0..7).map(|i| row(i, i > 1)).collect();
        now[4].records = "[5,6]".into();
        write(&conn, 1, 7, &|i| now[i].clone(), 4, 0).unwrap();
        assert_eq!(
            conn.total_changes() - before,
            5,
            "two rows whose visibility changed, the one that grew and the two new ones are \
             written; the two unchanged rows are not"
        );
        let want: Vec<(i64, bool, String)> = now
            .iter()
            .map(|m| (m.index as i64, m.agent_visible, m.row_json.clone()))
            .collect();
        assert_eq!(
            stored(&conn),
            want,
            "what is stored is what a whole write would store"
        );

        // Read again shorter (a rewind): rows past the end go.
        write(&conn, 1, 3, &|i| now[i].clone(), 2, 0).unwrap();
        assert_eq!(
            stored(&conn),
            want[..3].to_vec(),
            "rows past the session's end are deleted"
        );
    }

    #[test]
    fn rows_a_reader_left_unchanged_are_not_compared_and_stand() {
        let t = tempfile::tempdir().unwrap();
        let (conn, _) = super::super::store::open(&t.path().join("index.db")).unwrap();
        let first: Vec<MessageRow> = (0..5).map(|i| row(i, true)).collect();
        write(&conn, 1, 5, &|i| first[i].clone(), 0, 0).unwrap();
        let before = conn.total_changes();
        // Message 4 grew (another block of its response) and two came after it.
        let mut tail: Vec<MessageRow> = (4..7).map(|i| row(i, true)).collect();
        tail[0].records = "[5,6]".into();
        write(&conn, 1, 7, &|i| tail[i - 4].clone(), 4, 4).unwrap();
        assert_eq!(
            conn.total_changes() - before,
            4,
            "the grown row is deleted and written again with the two new ones; rows 0-3 are \
             neither read nor written"
        );
        let mut want: Vec<(i64, bool, String)> = first[..4]
            .iter()
            .map(|m| (m.index as i64, m.agent_visible, m.row_json.clone()))
            .collect();
        want.extend(
            tail.iter()
                .map(|m| (m.index as i64, m.agent_visible, m.row_json.clone())),
        );
        assert_eq!(
            stored(&conn),
            want,
            "the rows before 4 stand, the rest are the new ones"
        );
    }
}
