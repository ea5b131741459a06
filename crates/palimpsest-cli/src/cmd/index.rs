//! `palimpsest index [PATH…] [--json]`: bring the fleet index up to date for PATHs (without
//! one: every default session folder `palimpsest sources` lists) and say what changed —
//! sessions added, updated, unchanged, removed — with a progress bar on a terminal.
//! The index is `palimpsest_core::index`'s; this only drives and prints it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api::{self, DiagnoseOptions};

/// Arguments of `index`.
#[derive(clap::Args)]
pub struct Args {
    /// Session files, databases or folders; none: the default folders of every agent.
    paths: Vec<PathBuf>,
    /// The index file (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// Print JSON: {"index", "added", "updated", "appended", "resumed", "unchanged",
    /// "removed", "sessions", "problems"}.
    #[arg(long)]
    json: bool,
}

/// Run `index`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let bar = crate::output::index_bar();
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let done = api::with_index(a.index.as_deref(), |ix| {
        api::index_update(ix, &a.paths, &DiagnoseOptions::default(), &mut progress)
    });
    bar.finish_and_clear();
    let (report, notices) = done.context("cannot index")?;
    crate::output::notices(&notices);
    if a.json {
        crate::output::json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{} sessions: {} added, {} updated ({} appended, {} read from their last offset), {} \
         unchanged, {} removed  ({})",
        report.sessions,
        report.added,
        report.updated,
        report.appended,
        report.resumed,
        report.unchanged,
        report.removed,
        report.index
    )?;
    for p in &report.problems {
        writeln!(out, "problem: {}", p.message)?;
    }
    Ok(ExitCode::SUCCESS)
}
