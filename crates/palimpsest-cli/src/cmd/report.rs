//! `palimpsest report PATH [--session ID] [-o FILE.html] [--bodies]`: a post-mortem as one
//! self-contained HTML file (no network, no script, every transcript text escaped). A file, or
//! `--session`, gives the session's report; a folder the fleet's (the table, then every
//! session). The page is `palimpsest_core::report`'s; this writes it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::report::{self, ReportOptions};

/// Arguments of `report`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Where to write the HTML (default: standard output).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Every message's whole text, folded (default: one-line previews).
    #[arg(long)]
    bodies: bool,
    /// A price table (LiteLLM's JSON shape) instead of the shipped snapshot.
    #[arg(long)]
    prices: Option<PathBuf>,
}

/// Run `report`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let o = ReportOptions {
        bodies: a.bodies,
        diagnose: DiagnoseOptions {
            prices: Some(palimpsest_core::cost::PriceTable::load(
                a.prices.as_deref(),
            )?),
            ..Default::default()
        },
        token_cache: palimpsest_core::tokens::TokenCache::default_dir(),
        ..Default::default()
    };
    let html = if a.target.path.is_dir() && a.target.session.is_none() {
        report::fleet_report(&a.target.path, &o)
            .with_context(|| format!("cannot report on {}", a.target.path.display()))?
    } else {
        let s = a.target.load("report on")?;
        report::session_report(&s, &o)?
    };
    match &a.output {
        Some(f) => {
            std::fs::write(f, html).with_context(|| format!("cannot write {}", f.display()))?
        }
        None => crate::output::stdout().write_all(html.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
