//! The fleet as Parquet, for fleets that outgrow one machine: `sessions`, `messages`,
//! `compactions`, `requests`, `findings` and the cells `tune` kept (`tune`), one file each, read from the index (which the
//! caller brings up to date first) so an export never reads a session file again. Every row
//! carries the machine it was exported on, its session id and file, so the exports of many
//! machines concatenate (`read_parquet('*/sessions.parquet')`). Column names and types are
//! a contract ([`tables`] documents them; docs/GUIDE.md lists them). Prices are applied here,
//! from the table the caller passes, as the fleet table does. How columns become Parquet is
//! `parquet`'s; filling the columns from the index's rows, `tables`'.

mod parquet;
mod tables;
mod tune;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::analysis::FleetRow;
use crate::cost::{Bucket, PriceTable};
use crate::error::{Error, Result};
use crate::model::SessionMeta;
use crate::{Index, under};
pub use parquet::{Col, Table};

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Put each message's text (its parts, as search indexes them) in `messages.text`.
    pub bodies: bool,
    /// The name every row carries in its `machine` column.
    pub machine: String,
}

/// One file written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Written {
    /// `sessions`, `messages`, …
    pub table: String,
    /// The file.
    pub path: String,
    /// Rows in it.
    pub rows: usize,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportReport {
    /// The folder.
    pub dir: String,
    /// One entry per table, in [`tables`] order.
    pub files: Vec<Written>,
}

/// One indexed session to export.
struct Indexed {
    rowid: i64,
    file: String,
    meta: SessionMeta,
    row: FleetRow,
    buckets: Vec<Bucket>,
}

/// The six tables of every session the index holds under `paths`, priced at `prices`.
pub fn tables(
    index: &Index,
    paths: &[PathBuf],
    prices: &PriceTable,
    opts: &ExportOptions,
) -> Result<Vec<Table>> {
    let sql = |e: rusqlite::Error| crate::index_error(index.path(), e);
    let roots: Vec<PathBuf> = paths
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect();
    let conn = index.conn();
    let mut q = conn
        .prepare(
            "SELECT id, file, meta_json, row_json, usage_json FROM sessions
             ORDER BY updated DESC, session_id",
        )
        .map_err(sql)?;
    let sessions: Vec<Indexed> = q
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .map_err(sql)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sql)?
        .into_iter()
        .filter(|(_, f, ..)| under(f, &roots))
        .filter_map(|(rowid, file, meta, row, usage)| {
            Some(Indexed {
                rowid,
                file,
                meta: serde_json::from_str(&meta).ok()?,
                row: serde_json::from_str(&row).ok()?,
                buckets: serde_json::from_str(&usage).unwrap_or_default(),
            })
        })
        .collect();
    let mut t = tables::Tables::new(&opts.machine);
    for s in &sessions {
        t.session(s, prices);
        t.messages(conn, s, opts.bodies).map_err(sql)?;
        t.cuts(conn, s).map_err(sql)?;
        t.requests(conn, s, prices).map_err(sql)?;
        t.findings(conn, s).map_err(sql)?;
        t.tune(conn, s).map_err(sql)?;
    }
    Ok(t.finish())
}

/// Write [`tables`] as `DIR/<table>.parquet`.
pub fn write(dir: &Path, tables: &[Table]) -> Result<ExportReport> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();
    for t in tables {
        let path = dir.join(format!("{}.parquet", t.name));
        parquet::write(&path, t)?;
        files.push(Written {
            table: t.name.to_owned(),
            path: path.display().to_string(),
            rows: t.rows(),
        });
    }
    Ok(ExportReport {
        dir: dir.display().to_string(),
        files,
    })
}
