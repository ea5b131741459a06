//! `palimpsest export --parquet DIR [PATH…] [--bodies] [--json]`: the fleet under PATHs (none:
//! every default session folder) as Parquet files in DIR — `sessions`, `messages`,
//! `compactions`, `requests`, `findings` — from the index, brought up to date first. The
//! columns are `palimpsest_core::export`'s; this only drives it and says what it wrote.
//!
//! `palimpsest export --otlp URL | --otlp-file FILE [PATH…] [--no-bodies] [--json]`: the same
//! sessions as OpenTelemetry traces, one per session (`palimpsest_core::otlp`), sent to a
//! collector's OTLP/HTTP traces endpoint or written as OTLP/JSON lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::export::ExportOptions;
use palimpsest_core::otlp::Target;

/// Arguments of `export`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("to").required(true).multiple(true).args(["parquet", "otlp", "otlp_file"])))]
#[command(group(clap::ArgGroup::new("traces").args(["otlp", "otlp_file"])))]
pub struct Args {
    /// The folder to write `<table>.parquet` into (made when missing; files in it replaced).
    #[arg(long, value_name = "DIR")]
    parquet: Option<PathBuf>,
    /// Send each session as a trace to this OTLP/HTTP traces endpoint (protobuf), e.g.
    /// `http://localhost:6006/v1/traces`. Nothing is sent anywhere else.
    #[arg(long, value_name = "URL")]
    otlp: Option<String>,
    /// Write each session as a trace to this file, as OTLP/JSON lines (created or replaced).
    #[arg(long, value_name = "FILE", conflicts_with = "otlp")]
    otlp_file: Option<PathBuf>,
    /// OTLP: leave message texts, tool arguments and results, and summaries out of the spans.
    #[arg(long, requires = "traces")]
    no_bodies: bool,
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
    /// Print JSON: {"export": {"dir", "files": [{"table", "path", "rows"}]}, "index": {…}} for
    /// Parquet, {"otlp": {"target", "sessions", "spans", "requests", "tool_calls",
    /// "compactions", "batches", "bytes", "problems"}} for OTLP (both when both are asked).
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
    let mut json = serde_json::Map::new();
    if let Some(dir) = &a.parquet {
        parquet(&a, dir, &opts, &mut json)?;
    }
    let target = match (&a.otlp, &a.otlp_file) {
        (Some(url), _) => Some(Target::Http(url.clone())),
        (None, Some(file)) => Some(Target::File(file.clone())),
        (None, None) => None,
    };
    if let Some(target) = target {
        otlp(&a, target, &opts, &mut json)?;
    }
    if a.json {
        crate::output::json(&serde_json::Value::Object(json))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The OTLP export, said as text or kept for the JSON answer.
fn otlp(
    a: &Args,
    target: Target,
    opts: &DiagnoseOptions,
    json: &mut serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<()> {
    let about = api::about(env!("PALIMPSEST_COMMIT"));
    let options = palimpsest_core::otlp::Options {
        bodies: !a.no_bodies,
        machine: a.machine.clone().unwrap_or_else(host_name),
        version: format!("{} ({})", about.version, about.commit),
    };
    let bar = crate::output::index_bar();
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let done = api::export_otlp(&a.paths, target, options, opts, &mut progress);
    bar.finish_and_clear();
    let report = done.context("cannot export traces")?;
    if a.json {
        json.insert("otlp".into(), serde_json::to_value(&report)?);
        return Ok(());
    }
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{} sessions as traces to {}: {} spans ({} requests, {} tool calls), {} compaction events, {} requests of {} bytes",
        report.sessions,
        report.target,
        report.spans,
        report.requests,
        report.tool_calls,
        report.compactions,
        report.batches,
        report.bytes
    )?;
    for p in &report.problems {
        writeln!(out, "problem: {}", p.message)?;
    }
    Ok(())
}

/// The Parquet export, said as text or kept for the JSON answer.
fn parquet(
    a: &Args,
    dir: &std::path::Path,
    opts: &DiagnoseOptions,
    json: &mut serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<()> {
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
        api::export_parquet(ix, &a.paths, dir, opts, &export, &mut progress)
    });
    bar.finish_and_clear();
    let ((written, report), notices) = done.context("cannot export")?;
    crate::output::notices(&notices);
    if a.json {
        json.insert("export".into(), serde_json::to_value(&written)?);
        json.insert("index".into(), serde_json::to_value(&report)?);
        return Ok(());
    }
    let mut out = crate::output::stdout();
    for f in &written.files {
        writeln!(out, "{:>9} rows  {}", f.rows, f.path)?;
    }
    for p in &report.problems {
        writeln!(out, "problem: {}", p.message)?;
    }
    Ok(())
}
