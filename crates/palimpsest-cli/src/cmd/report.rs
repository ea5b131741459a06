//! `palimpsest report PATH [--session ID] [-o FILE.html] [--bodies]`: a post-mortem as one
//! self-contained HTML file (no network, no script, every transcript text escaped). A file, or
//! `--session`, gives the session's report; a folder the fleet's (the table, then every
//! session), with `--tune` the fleet tuned. The page is `palimpsest_core::report`'s; this
//! writes it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api::{self, DiagnoseOptions, TuneView};
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
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
    /// On a folder: add the fleet tuned at the `--grid` settings (as `tune` prints it, goose's
    /// policy at the recorded compactions), the cells kept in the index.
    #[arg(long)]
    tune: bool,
    /// With `--tune`: the grid, as `tune --grid` takes it (default K=0..8).
    #[arg(long, num_args = 1.., value_name = "NAME=VALUES", requires = "tune")]
    grid: Vec<String>,
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
        tune: if a.tune && a.target.path.is_dir() {
            Some(tuned(&a.target.path, &a.grid)?)
        } else {
            None
        },
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

/// The fleet under `dir` tuned with goose's policy at the recorded compactions, at `grid`.
fn tuned(dir: &std::path::Path, grid: &[String]) -> anyhow::Result<TuneView> {
    let base = ReplayOptions {
        policy: PolicyName::Goose,
        at_recorded: true,
        ..ReplayOptions::default()
    };
    let settings = super::tune::grid(PolicyName::Goose, grid)?;
    let index = api::open_index(None).ok().map(std::sync::Mutex::new);
    Ok(api::tune(
        &[dir.to_owned()],
        &base,
        &settings,
        &api::TuneFilter::default(),
        index.as_ref(),
        &super::token_cache,
        &|_, _| {},
        None,
    )?)
}
