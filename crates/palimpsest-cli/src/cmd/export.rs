//! `palimpsest export --parquet DIR [PATH…] [--bodies] [--json]`: the fleet under PATHs (none:
//! every default session folder) as Parquet files in DIR — `sessions`, `messages`,
//! `compactions`, `requests`, `findings` — from the index, brought up to date first. The
//! columns are `palimpsest_core::export`'s; this only drives it and says what it wrote.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::export::ExportOptions;

/// Arguments of `export`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder to write `<table>.parquet` into (made when missing; files in it replaced).
    #[arg(long, value_name = "DIR")]
    parquet: PathBuf,
    /// Session files, databases or folders; none: the default folders of every agent.
    paths: Vec<PathBuf>,
    /// Put each message's text in `messages.text` (null without it).
    #[arg(long)]
    bodies: bool,
    /// The name in every row's `machine` column (default: this machine's host name), so the
    /// exports of many machines concatenate.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,
    /// The index file (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// A price table laid over the shipped one (ours or LiteLLM's JSON shape).
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
    /// Print JSON: {"export": {"dir", "files": [{"table", "path", "rows"}]}, "index": {…}}.
    #[arg(long)]
    json: bool,
}

/// This machine's name, as the kernel has it.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| palimpsest_core::env::machine().var_str("HOSTNAME"))
        .or_else(|| palimpsest_core::env::machine().var_str("COMPUTERNAME"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Run `export`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let opts = DiagnoseOptions {
        prices: Some(palimpsest_core::cost::PriceTable::load(
            a.prices.as_deref(),
        )?),
        ..Default::default()
    };
    let export = ExportOptions {
        bodies: a.bodies,
        machine: a.machine.clone().unwrap_or_else(host_name),
    };
    let bar = crate::output::index_bar();
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let done = api::with_index(a.index.as_deref(), |ix| {
        api::export_parquet(ix, &a.paths, &a.parquet, &opts, &export, &mut progress)
    });
    bar.finish_and_clear();
    let ((written, report), notices) = done.context("cannot export")?;
    crate::output::notices(&notices);
    if a.json {
        crate::output::json(&serde_json::json!({"export": written, "index": report}))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    for f in &written.files {
        writeln!(out, "{:>9} rows  {}", f.rows, f.path)?;
    }
    for p in &report.problems {
        writeln!(out, "problem: {}", p.message)?;
    }
    Ok(ExitCode::SUCCESS)
}
