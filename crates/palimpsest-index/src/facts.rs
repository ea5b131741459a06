//! The index's per-session facts beyond messages and parts: one row per request (its recorded
//! usage, model and time), per compaction (trigger, recorded tokens, the summary gate, what it
//! dropped) and per finding (its kind, its clause, the messages that show it). They are what a
//! fleet query outside the app asks for (`crate::export` writes them as Parquet), so they are
//! made once, when a session is indexed, from the session and its diagnosis. Written by
//! `store`; prices are applied when read, so another price table needs no re-index. Summary
//! losses, which outnumber every other finding (hundreds per cut on a long transcript), have
//! rows of their own per compaction, so an appended transcript rewrites only the last ones.

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::analysis::Diagnosis;
use crate::analysis::losses::{LossKind, SummaryLoss};
use crate::cost::{SessionCost, UsageSplit};
use crate::model::Session;

/// One request the session recorded usage for.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRow {
    /// The assistant message that recorded it.
    pub message_index: usize,
    /// When that message was written, Unix ms.
    pub at: Option<i64>,
    /// The model that answered.
    pub model: Option<String>,
    /// Its tokens by tier.
    pub usage: UsageSplit,
    /// The provider's id of the request, when recorded ([`crate::cost::RequestCost`]).
    pub request_id: Option<String>,
}

/// One compaction as the post-mortem sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CutRow {
    /// 1-based, in session order (microcompacts included).
    pub number: usize,
    /// First message after the cut.
    pub cut_index: usize,
    /// `auto` | `manual` | `recovery` | `micro` | `replacement` | `collapse`, when recorded.
    pub trigger: Option<String>,
    /// Context tokens before and after, when recorded.
    pub pre_tokens: Option<u64>,
    /// See `pre_tokens`.
    pub post_tokens: Option<u64>,
    /// `post_tokens` came from the next request's recorded usage.
    pub post_from_usage: bool,
    /// The summary message and its characters.
    pub summary_index: Option<usize>,
    /// See `summary_index`.
    pub summary_chars: usize,
    /// The summary passes the gate.
    pub usable: bool,
    /// A microcompact (cleared results, no summary).
    pub micro: bool,
    /// Messages it dropped from the model's view.
    pub dropped: usize,
    /// Messages kept verbatim across it, when the record says.
    pub kept: usize,
    /// Messages whose results a microcompact cleared.
    pub cleared: usize,
}

/// One finding of the diagnosis, with the messages that show it.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingRow {
    /// `reread` | `loop` | `spill_loop` | `thrash` | `summary_loss` | `running`.
    pub kind: &'static str,
    /// The finer kind (`repeated_call`, `error_streak`, … for loops; `path`, `symbol`, … for
    /// losses), or the file for a re-read.
    pub detail: Option<String>,
    /// The finding in words.
    pub text: String,
    /// Stored indices of the messages that show it.
    pub messages: Vec<usize>,
}

/// A serde enum's name (`"repeated_call"`).
fn name<T: Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The requests of `cost` (a session's `cost::session_cost`), timed by their messages.
pub fn requests(session: &Session, cost: Option<&SessionCost>) -> Vec<RequestRow> {
    cost.map(|c| c.per_request.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|r| RequestRow {
            message_index: r.message_index,
            at: session
                .messages
                .get(r.message_index)
                .and_then(|m| m.created),
            model: r.model.clone(),
            usage: r.usage.clone(),
            request_id: r.request_id.clone(),
        })
        .collect()
}

/// The diagnosis's compactions, with what the source recorded of each.
pub fn cuts(session: &Session, d: &Diagnosis) -> Vec<CutRow> {
    d.compactions
        .iter()
        .map(|c| {
            let rec = session
                .compactions
                .iter()
                .find(|r| r.cut_index == c.cut_index);
            CutRow {
                number: c.number,
                cut_index: c.cut_index,
                trigger: rec.and_then(|r| r.trigger).map(name),
                pre_tokens: rec.and_then(|r| r.pre_tokens),
                post_tokens: rec.and_then(|r| r.post_tokens),
                post_from_usage: rec.is_some_and(|r| r.post_tokens_from_usage),
                summary_index: c.summary_index,
                summary_chars: c.summary_chars,
                usable: c.usable,
                micro: c.micro,
                dropped: c.dropped,
                kept: rec.map_or(0, |r| r.kept.len()),
                cleared: c.cleared,
            }
        })
        .collect()
}

/// Every finding of `d` that names messages, most telling kinds first (the order the report
/// shows them in).
pub fn findings(d: &Diagnosis) -> Vec<FindingRow> {
    let mut out: Vec<FindingRow> = Vec::new();
    for f in d.rereads.iter().filter(|f| f.rereads > 0) {
        out.push(FindingRow {
            kind: "reread",
            detail: Some(f.path.clone()),
            text: format!(
                "re-read {}: {} of {} reads, {} after a compaction",
                f.path, f.rereads, f.reads, f.after_compaction
            ),
            messages: f.reread_messages.clone(),
        });
    }
    for l in &d.loops {
        out.push(FindingRow {
            kind: "loop",
            detail: Some(name(l.kind)),
            text: l.description.clone(),
            messages: l.messages.clone(),
        });
    }
    for l in &d.spill_loops {
        out.push(FindingRow {
            kind: "spill_loop",
            detail: Some(l.origin.clone()),
            text: format!("spill loop on {}: {} re-spilled", l.origin, l.respilled),
            messages: l.messages.clone(),
        });
    }
    for t in &d.thrash {
        out.push(FindingRow {
            kind: "thrash",
            detail: None,
            text: t.description.clone(),
            messages: t.error_messages.clone(),
        });
    }
    for r in &d.ended_while_running {
        out.push(FindingRow {
            kind: "running",
            detail: Some(r.name.clone()),
            text: format!("ended while {} ({}) ran", r.name, r.id),
            messages: vec![r.message_index],
        });
    }
    out
}

/// The facts' tables (part of `store`'s schema).
pub const SCHEMA: &str = "
CREATE TABLE requests(
    session INTEGER NOT NULL,
    n INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    at INTEGER,
    model TEXT,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    cache_write_1h INTEGER NOT NULL,
    request_id TEXT,
    PRIMARY KEY(session, n)
) WITHOUT ROWID;
CREATE INDEX requests_id ON requests(request_id) WHERE request_id IS NOT NULL;
CREATE TABLE cuts(
    session INTEGER NOT NULL,
    n INTEGER NOT NULL,
    cut_index INTEGER NOT NULL,
    trigger TEXT,
    pre_tokens INTEGER,
    post_tokens INTEGER,
    post_from_usage INTEGER NOT NULL,
    summary_index INTEGER,
    summary_chars INTEGER NOT NULL,
    usable INTEGER NOT NULL,
    micro INTEGER NOT NULL,
    dropped INTEGER NOT NULL,
    kept INTEGER NOT NULL,
    cleared INTEGER NOT NULL,
    PRIMARY KEY(session, n)
) WITHOUT ROWID;
CREATE TABLE losses(
    session INTEGER NOT NULL,
    compaction INTEGER NOT NULL,
    k INTEGER NOT NULL,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    messages TEXT NOT NULL,
    PRIMARY KEY(session, compaction, k)
) WITHOUT ROWID;
CREATE TABLE findings(
    session INTEGER NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT,
    text TEXT NOT NULL,
    messages TEXT NOT NULL,
    PRIMARY KEY(session, n)
) WITHOUT ROWID;
";

/// Forget session `id`'s facts.
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    for t in ["requests", "cuts", "findings"] {
        conn.execute(&format!("DELETE FROM {t} WHERE session = ?1"), params![id])?;
    }
    Ok(())
}

/// Write session `id`'s facts (after [`delete`]).
pub fn write(
    conn: &Connection,
    id: i64,
    requests: &[RequestRow],
    cuts: &[CutRow],
    findings: &[FindingRow],
) -> rusqlite::Result<()> {
    let n = |v: usize| v as i64;
    let mut q = conn.prepare_cached(
        "INSERT INTO requests(session, n, idx, at, model, input, output, cache_read,
             cache_write, cache_write_1h, request_id)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for (k, r) in requests.iter().enumerate() {
        let u = &r.usage;
        q.execute(params![
            id,
            n(k + 1),
            n(r.message_index),
            r.at,
            r.model,
            u.input as i64,
            u.output as i64,
            u.cache_read as i64,
            u.cache_write as i64,
            u.cache_write_1h as i64,
            r.request_id,
        ])?;
    }
    let mut q = conn.prepare_cached(
        "INSERT INTO cuts(session, n, cut_index, trigger, pre_tokens, post_tokens,
             post_from_usage, summary_index, summary_chars, usable, micro, dropped, kept, cleared)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    for c in cuts {
        q.execute(params![
            id,
            n(c.number),
            n(c.cut_index),
            c.trigger,
            c.pre_tokens.map(|t| t as i64),
            c.post_tokens.map(|t| t as i64),
            c.post_from_usage,
            c.summary_index.map(n),
            n(c.summary_chars),
            c.usable,
            c.micro,
            n(c.dropped),
            n(c.kept),
            n(c.cleared),
        ])?;
    }
    let mut q = conn.prepare_cached(
        "INSERT INTO findings(session, n, kind, detail, text, messages)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (k, f) in findings.iter().enumerate() {
        q.execute(params![
            id,
            n(k + 1),
            f.kind,
            f.detail,
            f.text,
            serde_json::to_string(&f.messages).unwrap_or_default(),
        ])?;
    }
    Ok(())
}

/// Write session `id`'s summary losses of the compactions numbered `from` on, in place of those
/// stored: the losses of the compactions before `from` are as the index has them (an appended
/// transcript's diagnosis made only the others, `analysis::diagnose_known`). The diagnosis
/// stored beside them leaves its losses out; [`read_losses`] puts them back.
pub fn write_losses(
    conn: &Connection,
    id: i64,
    from: usize,
    losses: &[SummaryLoss],
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM losses WHERE session = ?1 AND compaction >= ?2",
        params![id, from as i64],
    )?;
    let mut q = conn.prepare_cached(
        "INSERT INTO losses(session, compaction, k, kind, value, messages)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut k = 0;
    for (i, l) in losses.iter().enumerate() {
        // Numbered within their compaction, in the diagnosis's order.
        k = if i > 0 && losses[i - 1].compaction == l.compaction {
            k + 1
        } else {
            0
        };
        q.execute(params![
            id,
            l.compaction as i64,
            k,
            name(l.kind),
            l.value,
            serde_json::to_string(&l.messages).unwrap_or_default(),
        ])?;
    }
    Ok(())
}

/// Session `id`'s summary losses as the diagnosis lists them (by compaction, then kind).
pub fn read_losses(conn: &Connection, id: i64) -> rusqlite::Result<Vec<SummaryLoss>> {
    let mut q = conn.prepare_cached(
        "SELECT compaction, kind, value, messages FROM losses WHERE session = ?1
         ORDER BY compaction, k",
    )?;
    // Hundreds of thousands of rows on a long transcript: read without a JSON parser each.
    let rows = q.query_map(params![id], |r| {
        Ok(SummaryLoss {
            compaction: r.get::<_, i64>(0)? as usize,
            kind: match r.get_ref(1)?.as_str()? {
                "identifier" => LossKind::Identifier,
                "failing_test" => LossKind::FailingTest,
                "open_task" => LossKind::OpenTask,
                _ => LossKind::Path,
            },
            value: r.get(2)?,
            messages: r
                .get_ref(3)?
                .as_str()?
                .trim_matches(['[', ']'])
                .split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect(),
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of loss, with no, one and many messages, reads back as it was written, in
    /// the diagnosis's order; a rewrite from compaction 2 leaves compaction 1's rows.
    #[test]
    fn losses_read_back_as_written() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        let loss = |compaction, kind, value: &str, messages: Vec<usize>| SummaryLoss {
            compaction,
            kind,
            value: value.into(),
            messages,
        };
        let first = vec![
            loss(1, LossKind::Path, "src/a.rs", vec![3]),
            loss(1, LossKind::Identifier, "parse_line", vec![3, 10, 12]),
            loss(2, LossKind::FailingTest, "tests/t.py::test_x", vec![]),
            loss(2, LossKind::OpenTask, "TODO: wire it", vec![40]),
        ];
        write_losses(&conn, 7, 1, &first).unwrap();
        assert_eq!(read_losses(&conn, 7).unwrap(), first);
        let again = vec![loss(2, LossKind::Path, "src/b.rs", vec![41, 42])];
        write_losses(&conn, 7, 2, &again).unwrap();
        let mut expect = first[..2].to_vec();
        expect.extend(again);
        assert_eq!(read_losses(&conn, 7).unwrap(), expect);
        assert_eq!(
            read_losses(&conn, 8).unwrap(),
            Vec::new(),
            "another session has none"
        );
    }
}
