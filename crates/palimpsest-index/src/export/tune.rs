//! The export's `tune` table: one row per session and setting `tune` kept in the index
//! (`tune_cells`) while the session's file is as it was tuned, so a fleet tuned on many
//! machines compares in one query. Rows of a file that changed since are left out, as `tune`
//! would make them again. Which sessions is `super`'s; what a cell measures,
//! `replay::tune`'s.

use rusqlite::params;

use super::{Col, Indexed, Table};
use crate::replay::options::ReplayOptions;
use crate::replay::tune::Cell;
use crate::tune_cells::stamp_of;

/// The empty table, its columns after `machine, session_id, file`.
pub(super) fn table(keyed: impl Fn(&'static str, Vec<(&'static str, Col)>) -> Table) -> Table {
    use Col::*;
    keyed(
        "tune",
        vec![
            ("policy", Str(vec![])),
            ("options", Str(vec![])),
            ("keep_tail", I64(vec![])),
            ("tool_result_cap", I64(vec![])),
            ("avoided", I64(vec![])),
            ("avoided_tokens", I64(vec![])),
            ("avoided_calls", I64List(vec![])),
            ("tokens_carried", I64(vec![])),
            ("usd", F64(vec![])),
            ("compactions", I64(vec![])),
            ("storms", I64(vec![])),
            ("over_window", I64(vec![])),
            ("orphans", I64(vec![])),
        ],
    )
}

/// Session `s`'s kept cells, one row each, in the order of their options.
pub(super) fn rows(
    conn: &rusqlite::Connection,
    machine: &str,
    t: &mut Table,
    s: &Indexed,
) -> rusqlite::Result<()> {
    let Some(stamp) = stamp_of(std::path::Path::new(&s.file)) else {
        return Ok(());
    };
    let mut q = conn.prepare_cached(
        "SELECT setting, cell FROM tune_cells
         WHERE file = ?1 AND session_id = ?2 AND stamp = ?3 AND setting != ''
         ORDER BY setting",
    )?;
    let cells: Vec<(String, String)> = q
        .query_map(params![s.file, s.meta.id, stamp], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let int = |v: usize| i64::try_from(v).ok();
    for (options, cell) in cells {
        let (Ok(o), Ok(c)) = (
            serde_json::from_str::<ReplayOptions>(&options),
            serde_json::from_str::<Cell>(&cell),
        ) else {
            continue;
        };
        t.str("machine", Some(machine));
        t.str("session_id", Some(&s.meta.id));
        t.str("file", Some(&s.file));
        t.str("policy", Some(o.policy.as_str()));
        t.str("options", Some(&options));
        t.int("keep_tail", int(o.keep_tail));
        t.int("tool_result_cap", int(o.cap_bytes()));
        t.int("avoided", int(c.avoided.len()));
        t.int(
            "avoided_tokens",
            int(c.avoided.iter().map(|a| a.tokens).sum()),
        );
        t.list(
            "avoided_calls",
            c.avoided.iter().filter_map(|a| int(a.call_index)).collect(),
        );
        t.int("tokens_carried", i64::try_from(c.tokens_carried).ok());
        t.float("usd", c.usd);
        t.int("compactions", int(c.compactions));
        t.int("storms", int(c.storms));
        t.int("over_window", int(c.over_window));
        t.int("orphans", int(c.orphans));
        t.end_row();
    }
    Ok(())
}
