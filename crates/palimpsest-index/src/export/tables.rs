//! The five export tables of the sessions themselves filled from the index's rows, session by session: the columns of
//! each (names and types are a contract, listed in docs/GUIDE.md), the prices applied to requests, and the
//! bodies taken from the searchable parts when asked. Which sessions is `super`'s; writing the
//! columns as Parquet, `super::parquet`'s.

use rusqlite::params;

use super::{Col, Indexed, Table};
use crate::cost::{PriceTable, UsageSplit, price_buckets, price_request, round_usd};
use crate::store::part_base;

fn int(v: usize) -> Option<i64> {
    i64::try_from(v).ok()
}

/// The tables being filled, column by column.
pub(super) struct Tables {
    machine: String,
    sessions: Table,
    messages: Table,
    cuts: Table,
    requests: Table,
    findings: Table,
    tune: Table,
}

impl Tables {
    pub(super) fn new(machine: &str) -> Self {
        use Col::*;
        let keyed = |name: &'static str, cols: Vec<(&'static str, Col)>| {
            let mut all = vec![
                ("machine", Str(vec![])),
                ("session_id", Str(vec![])),
                ("file", Str(vec![])),
            ];
            all.extend(cols);
            Table::new(name, all)
        };
        Tables {
            machine: machine.to_owned(),
            sessions: keyed(
                "sessions",
                vec![
                    ("format", Str(vec![])),
                    ("title", Str(vec![])),
                    ("parent_id", Str(vec![])),
                    ("model", Str(vec![])),
                    ("working_dir", Str(vec![])),
                    ("created", Time(vec![])),
                    ("updated", Time(vec![])),
                    ("messages", I64(vec![])),
                    ("calls", I64(vec![])),
                    ("compactions", I64(vec![])),
                    ("microcompacts", I64(vec![])),
                    ("usable_summaries", I64(vec![])),
                    ("reads", I64(vec![])),
                    ("rereads", I64(vec![])),
                    ("rereads_after_compaction", I64(vec![])),
                    ("reread_rate", F64(vec![])),
                    ("exploration_share", F64(vec![])),
                    ("spill_loops", I64(vec![])),
                    ("severity", Str(vec![])),
                    ("verdict", Str(vec![])),
                    ("cost_usd", F64(vec![])),
                ],
            ),
            messages: keyed(
                "messages",
                vec![
                    ("message_index", I64(vec![])),
                    ("role", Str(vec![])),
                    ("kind", Str(vec![])),
                    ("agent_visible", Bool(vec![])),
                    ("user_visible", Bool(vec![])),
                    ("chars", I64(vec![])),
                    ("tokens", I64(vec![])),
                    ("tools", Str(vec![])),
                    ("paths", Str(vec![])),
                    ("is_error", Bool(vec![])),
                    ("line", I64(vec![])),
                    ("byte_offset", I64(vec![])),
                    ("text", Str(vec![])),
                ],
            ),
            cuts: keyed(
                "compactions",
                vec![
                    ("number", I64(vec![])),
                    ("cut_index", I64(vec![])),
                    ("trigger", Str(vec![])),
                    ("pre_tokens", I64(vec![])),
                    ("post_tokens", I64(vec![])),
                    ("post_tokens_from_usage", Bool(vec![])),
                    ("freed_share", F64(vec![])),
                    ("summary_index", I64(vec![])),
                    ("summary_chars", I64(vec![])),
                    ("usable_summary", Bool(vec![])),
                    ("micro", Bool(vec![])),
                    ("dropped", I64(vec![])),
                    ("kept", I64(vec![])),
                    ("cleared", I64(vec![])),
                ],
            ),
            requests: keyed(
                "requests",
                vec![
                    ("request", I64(vec![])),
                    ("message_index", I64(vec![])),
                    ("requested_at", Time(vec![])),
                    ("model", Str(vec![])),
                    ("input_tokens", I64(vec![])),
                    ("output_tokens", I64(vec![])),
                    ("cache_read_tokens", I64(vec![])),
                    ("cache_write_tokens", I64(vec![])),
                    ("cache_write_1h_tokens", I64(vec![])),
                    ("prompt_tokens", I64(vec![])),
                    ("cost_usd", F64(vec![])),
                    ("request_id", Str(vec![])),
                ],
            ),
            findings: keyed(
                "findings",
                vec![
                    ("number", I64(vec![])),
                    ("kind", Str(vec![])),
                    ("detail", Str(vec![])),
                    ("text", Str(vec![])),
                    ("first_message", I64(vec![])),
                    ("messages", I64List(vec![])),
                ],
            ),
            tune: super::tune::table(keyed),
        }
    }

    fn key(machine: &str, t: &mut Table, s: &Indexed) {
        t.str("machine", Some(machine));
        t.str("session_id", Some(&s.meta.id));
        t.str("file", Some(&s.file));
    }

    pub(super) fn session(&mut self, s: &Indexed, prices: &PriceTable) {
        let (t, r, m) = (&mut self.sessions, &s.row, &s.meta);
        Self::key(&self.machine, t, s);
        t.str("format", Some(&r.format));
        t.str("title", Some(&r.title));
        t.str("parent_id", r.parent_id.as_deref());
        t.str("model", m.model.as_deref());
        t.str("working_dir", m.working_dir.as_deref());
        t.time("created", m.created);
        t.time("updated", r.updated);
        for (c, v) in [
            ("messages", r.messages),
            ("calls", r.calls),
            ("compactions", r.compactions),
            ("microcompacts", r.microcompacts),
            ("usable_summaries", r.usable_summaries),
            ("reads", r.reads),
            ("rereads", r.rereads),
            ("rereads_after_compaction", r.rereads_after_compaction),
            ("spill_loops", r.spill_loops),
        ] {
            t.int(c, int(v));
        }
        t.float("reread_rate", Some(r.reread_rate));
        t.float("exploration_share", Some(r.exploration_share));
        t.str("severity", Some(r.severity.as_str()));
        t.str("verdict", Some(&r.verdict));
        t.float("cost_usd", price_buckets(&s.buckets, prices));
        t.end_row();
    }

    pub(super) fn messages(
        &mut self,
        conn: &rusqlite::Connection,
        s: &Indexed,
        bodies: bool,
    ) -> rusqlite::Result<()> {
        let texts = if bodies {
            body_texts(conn, s.rowid)?
        } else {
            Default::default()
        };
        let mut q = conn.prepare_cached(
            "SELECT idx, role, kind, agent_visible, user_visible, chars, tokens, tools, paths,
                 is_error, line, offset FROM messages WHERE session = ?1 ORDER BY idx",
        )?;
        let mut rows = q.query(params![s.rowid])?;
        let t = &mut self.messages;
        while let Some(r) = rows.next()? {
            Self::key(&self.machine, t, s);
            let idx: i64 = r.get(0)?;
            t.int("message_index", Some(idx));
            t.str("role", Some(&r.get::<_, String>(1)?));
            t.str("kind", Some(&r.get::<_, String>(2)?));
            t.bool("agent_visible", Some(r.get(3)?));
            t.bool("user_visible", Some(r.get(4)?));
            t.int("chars", r.get(5)?);
            t.int("tokens", r.get(6)?);
            t.str("tools", Some(&r.get::<_, String>(7)?));
            t.str("paths", Some(&r.get::<_, String>(8)?));
            t.bool("is_error", Some(r.get(9)?));
            t.int("line", r.get(10)?);
            t.int("byte_offset", r.get(11)?);
            t.str(
                "text",
                bodies.then(|| texts.get(&idx).map_or("", String::as_str)),
            );
            t.end_row();
        }
        Ok(())
    }

    pub(super) fn cuts(
        &mut self,
        conn: &rusqlite::Connection,
        s: &Indexed,
    ) -> rusqlite::Result<()> {
        let mut q = conn.prepare_cached(
            "SELECT n, cut_index, trigger, pre_tokens, post_tokens, post_from_usage,
                 summary_index, summary_chars, usable, micro, dropped, kept, cleared
             FROM cuts WHERE session = ?1 ORDER BY n",
        )?;
        let mut rows = q.query(params![s.rowid])?;
        let t = &mut self.cuts;
        while let Some(r) = rows.next()? {
            Self::key(&self.machine, t, s);
            let (pre, post): (Option<i64>, Option<i64>) = (r.get(3)?, r.get(4)?);
            t.int("number", r.get(0)?);
            t.int("cut_index", r.get(1)?);
            t.str("trigger", r.get::<_, Option<String>>(2)?.as_deref());
            t.int("pre_tokens", pre);
            t.int("post_tokens", post);
            t.bool("post_tokens_from_usage", Some(r.get(5)?));
            // The share of the context the compaction freed, where both ends were recorded.
            let freed = match (pre, post) {
                (Some(a), Some(b)) if a > 0 => Some(round_usd(1.0 - b as f64 / a as f64)),
                _ => None,
            };
            t.float("freed_share", freed);
            t.int("summary_index", r.get(6)?);
            t.int("summary_chars", r.get(7)?);
            t.bool("usable_summary", Some(r.get(8)?));
            t.bool("micro", Some(r.get(9)?));
            t.int("dropped", r.get(10)?);
            t.int("kept", r.get(11)?);
            t.int("cleared", r.get(12)?);
            t.end_row();
        }
        Ok(())
    }

    pub(super) fn requests(
        &mut self,
        conn: &rusqlite::Connection,
        s: &Indexed,
        prices: &PriceTable,
    ) -> rusqlite::Result<()> {
        let mut q = conn.prepare_cached(
            "SELECT n, idx, at, model, input, output, cache_read, cache_write, cache_write_1h,
                    request_id
             FROM requests WHERE session = ?1 ORDER BY n",
        )?;
        let mut rows = q.query(params![s.rowid])?;
        let t = &mut self.requests;
        while let Some(r) = rows.next()? {
            Self::key(&self.machine, t, s);
            let model: Option<String> = r.get(3)?;
            let tok = |i: usize| r.get::<_, i64>(i).map(|v| v.max(0) as u64);
            let u = UsageSplit {
                input: tok(4)?,
                output: tok(5)?,
                cache_read: tok(6)?,
                cache_write: tok(7)?,
                cache_write_1h: tok(8)?,
            };
            t.int("request", r.get(0)?);
            t.int("message_index", r.get(1)?);
            t.time("requested_at", r.get(2)?);
            t.str("model", model.as_deref());
            t.int("input_tokens", Some(u.input as i64));
            t.int("output_tokens", Some(u.output as i64));
            t.int("cache_read_tokens", Some(u.cache_read as i64));
            t.int("cache_write_tokens", Some(u.cache_write as i64));
            t.int("cache_write_1h_tokens", Some(u.cache_write_1h as i64));
            t.int("prompt_tokens", Some(u.prompt() as i64));
            let usd = model
                .as_deref()
                .and_then(|m| prices.price(m))
                .map(|p| round_usd(price_request(p, &u)));
            t.float("cost_usd", usd);
            t.str("request_id", r.get::<_, Option<String>>(9)?.as_deref());
            t.end_row();
        }
        Ok(())
    }

    /// Session `s`'s findings in the report's order: the findings' rows, the summary losses
    /// (kept in rows of their own, `facts::write_losses`) before the calls it ended while
    /// running, numbered from 1.
    pub(super) fn findings(
        &mut self,
        conn: &rusqlite::Connection,
        s: &Indexed,
    ) -> rusqlite::Result<()> {
        let mut q = conn.prepare_cached(
            "SELECT kind, detail, text, messages FROM findings WHERE session = ?1 ORDER BY n",
        )?;
        let mut rows: Vec<(String, Option<String>, String, String)> = q
            .query_map(params![s.rowid], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let running = rows
            .iter()
            .position(|r| r.0 == "running")
            .unwrap_or(rows.len());
        let losses = crate::facts::read_losses(conn, s.rowid)?
            .into_iter()
            .map(|l| {
                (
                    "summary_loss".to_owned(),
                    serde_json::to_value(l.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned)),
                    format!("compaction {} lost {}", l.compaction, l.value),
                    serde_json::to_string(&l.messages).unwrap_or_default(),
                )
            });
        rows.splice(running..running, losses);
        let t = &mut self.findings;
        for (n, (kind, detail, text, messages)) in rows.into_iter().enumerate() {
            Self::key(&self.machine, t, s);
            let messages: Vec<i64> = serde_json::from_str(&messages).unwrap_or_default();
            t.int("number", Some(n as i64 + 1));
            t.str("kind", Some(&kind));
            t.str("detail", detail.as_deref());
            t.str("text", Some(&text));
            t.int("first_message", messages.iter().min().copied());
            t.list("messages", messages);
            t.end_row();
        }
        Ok(())
    }

    pub(super) fn tune(
        &mut self,
        conn: &rusqlite::Connection,
        s: &Indexed,
    ) -> rusqlite::Result<()> {
        super::tune::rows(conn, &self.machine, &mut self.tune, s)
    }

    pub(super) fn finish(self) -> Vec<Table> {
        vec![
            self.sessions,
            self.messages,
            self.cuts,
            self.requests,
            self.findings,
            self.tune,
        ]
    }
}

/// Each message's searchable text (its parts in order, a blank line between), from the
/// index's parts of session `rowid`.
fn body_texts(
    conn: &rusqlite::Connection,
    rowid: i64,
) -> rusqlite::Result<std::collections::HashMap<i64, String>> {
    let mut q = conn.prepare_cached(
        "SELECT idx, text FROM parts WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid",
    )?;
    let mut out: std::collections::HashMap<i64, String> = Default::default();
    let mut rows = q.query(params![part_base(rowid), part_base(rowid + 1) - 1])?;
    while let Some(r) = rows.next()? {
        let e = out.entry(r.get(0)?).or_default();
        if !e.is_empty() {
            e.push_str("\n\n");
        }
        e.push_str(&r.get::<_, String>(1)?);
    }
    Ok(out)
}
