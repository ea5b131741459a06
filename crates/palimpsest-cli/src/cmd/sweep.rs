//! `palimpsest sweep PATH [--session ID] --policy P --keep-tail 0..8 [--trigger-cap LIST]
//! [--tool-result-cap LIST] [--metric M] [--json] [--svg FILE]`: simulate the session at every
//! combination and show one metric as a table (and a heatmap). goose sweeps keep-tail (rows)
//! × tool-result cap (columns); coworker sweeps trigger cap (rows) × tool-result cap; gemini
//! the percentage of the history kept (`--preserve-percent`) × tool-result cap.
//! goose's sweep of a transcript reads its digests from the index when the file is unchanged
//! since the last sweep (`SessionService::sweep`): the second sweep of a 200 MB transcript
//! reads no transcript. The sweep and the heatmap are `palimpsest_core::replay`'s and
//! `charts`'; this prints them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use palimpsest_core::api;
use palimpsest_core::charts::heatmap::label;
use palimpsest_core::replay::defaults::DEFAULTS;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::sweep::{Axis, Metric};
use palimpsest_core::service::{IndexUse, SweepAsk};

use super::replay::{PolicyArg, PolicyArgs};

/// Arguments of `sweep`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Which compaction policy.
    #[arg(long, value_enum)]
    policy: PolicyArg,
    /// goose: keep-tail values (opencode: user turns kept), a range `A..B` (inclusive) or a
    /// list `0,3,5`.
    #[arg(long, default_value = "0..8")]
    keep_tail: String,
    /// gemini: percentages of the history kept, a range or a list.
    #[arg(long, default_value = "10,20,30,40,50,60,70")]
    preserve_percent: String,
    /// coworker: trigger caps in tokens, comma-separated.
    #[arg(long)]
    trigger_cap: Option<String>,
    /// Tool-result caps in bytes, comma-separated (0 = off).
    #[arg(long)]
    tool_result_cap: Option<String>,
    /// What the cells show.
    #[arg(long, value_enum, default_value = "tokens-after")]
    metric: MetricArg,
    #[arg(long, help = format!(
        "Context window / limit in tokens (default: the session's, else {})",
        DEFAULTS.context_window
    ))]
    context_window: Option<u64>,
    #[arg(long, help = format!("Compaction threshold (default {})", DEFAULTS.threshold))]
    threshold: Option<f64>,
    /// Size of placeholder summaries in tokens.
    #[arg(long)]
    summary_tokens: Option<u64>,
    /// opencode: the kept tail's budget in tokens (`preserve_recent_tokens`).
    #[arg(long)]
    preserve_tokens: Option<u64>,
    /// gemini: function-response tokens kept whole, 0 = no budget.
    #[arg(long)]
    response_budget: Option<u64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also write the heatmap as SVG to this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// The index that keeps goose sweep digests (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE", conflicts_with = "no_index")]
    index_file: Option<PathBuf>,
    /// Neither read nor keep digests: parse and count the session this time.
    #[arg(long)]
    no_index: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum MetricArg {
    TokensAfter,
    Compactions,
    TokensProcessed,
    LastReadKept,
    Orphans,
}

impl From<MetricArg> for Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::TokensAfter => Metric::TokensAfter,
            MetricArg::Compactions => Metric::Compactions,
            MetricArg::TokensProcessed => Metric::TokensProcessed,
            MetricArg::LastReadKept => Metric::LastReadKept,
            MetricArg::Orphans => Metric::Orphans,
        }
    }
}

/// Parse `A..B` (inclusive) or `a,b,c`.
pub fn parse_list(s: &str) -> anyhow::Result<Vec<u64>> {
    palimpsest_core::replay::tune_grid::values(s).map_err(anyhow::Error::msg)
}

/// Run `sweep`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let opts = ReplayOptions {
        ..PolicyArgs {
            policy: a.policy,
            context_window: a.context_window,
            threshold: a.threshold,
            trigger_cap: None,
            tool_result_cap: None,
            summary_tokens: a.summary_tokens,
            legacy: false,
            tail_turns: None,
            preserve_tokens: a.preserve_tokens,
            preserve_fraction: None,
            response_budget: a.response_budget,
            at_recorded: false,
        }
        .options()
    };
    let caps: Vec<usize> = match &a.tool_result_cap {
        Some(l) => parse_list(l)?.into_iter().map(|x| x as usize).collect(),
        None => vec![opts.cap_bytes()],
    };
    let rows = match opts.policy {
        // OpenCode's rows are the user turns it keeps (its `tail_turns`).
        PolicyName::Goose | PolicyName::OpenCode => {
            if a.trigger_cap.is_some() {
                bail!(
                    "--trigger-cap applies to --policy coworker; goose and opencode sweep --keep-tail"
                );
            }
            Axis::KeepTail(
                parse_list(&a.keep_tail)?
                    .into_iter()
                    .map(|x| x as usize)
                    .collect(),
            )
        }
        PolicyName::Gemini => {
            if a.trigger_cap.is_some() {
                bail!(
                    "--trigger-cap applies to --policy coworker; gemini sweeps --preserve-percent"
                );
            }
            let v: Vec<usize> = parse_list(&a.preserve_percent)?
                .into_iter()
                .map(|x| x as usize)
                .collect();
            if let Some(bad) = v.iter().find(|&&p| p == 0 || p >= 100) {
                bail!(
                    "--preserve-percent {bad}: each value keeps between 1 and 99 % of the history"
                );
            }
            Axis::PreservePercent(v)
        }
        PolicyName::Coworker => Axis::TriggerCap(match &a.trigger_cap {
            Some(l) => parse_list(l)?,
            None => vec![250_000],
        }),
    };
    let metric = Metric::from(a.metric);
    let cols = Axis::ToolResultCap(caps);
    // The user's index keeps the digests unless told otherwise; one that cannot be opened (a
    // read-only cache folder) only costs speed. An index named by `--index-file` says what it
    // could not answer.
    let index = match (&a.index_file, a.no_index) {
        (_, true) => IndexUse::Off,
        (Some(f), false) => IndexUse::Asked(Some(f.clone())),
        (None, false) => IndexUse::Kept,
    };
    let s = a.target.serve(index, "sweep")?;
    let ask = SweepAsk {
        opts: opts.clone(),
        grid: Some((rows, cols)),
        metric,
    };
    let swept = s.answer(s.svc.sweep(&s.path, &s.id, &ask))?;
    let grid = swept.grid;
    if let Some(svg) = &a.svg {
        let title = format!("{} — {:?} policy sweep", swept.name, opts.policy).to_lowercase();
        std::fs::write(svg, api::replay_sweep_svg(&grid, &title)?)
            .with_context(|| format!("cannot write {}", svg.display()))?;
    }
    if a.json {
        // The grid's keys, and whether it came from the index's digests.
        let mut v = serde_json::to_value(&grid)?;
        v["from_index"] = serde_json::Value::Bool(swept.from_index);
        crate::output::json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    write!(
        out,
        "{:>16}",
        format!("{} \\ {}", grid.rows.name(), grid.cols.name())
    )?;
    for c in grid.cols.values() {
        write!(out, " {c:>10}")?;
    }
    writeln!(out, "   ({})", metric.name())?;
    for (r, rv) in grid.rows.values().iter().enumerate() {
        write!(out, "{rv:>16}")?;
        for v in &grid.values[r] {
            write!(out, " {:>10}", v.map_or("-".into(), |v| label(metric, v)))?;
        }
        writeln!(out)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_and_lists() {
        assert_eq!(
            super::parse_list("0..3").unwrap(),
            vec![0, 1, 2, 3],
            "inclusive range"
        );
        assert_eq!(
            super::parse_list("0, 10000").unwrap(),
            vec![0, 10_000],
            "comma list"
        );
        assert!(
            super::parse_list("3..1").is_err(),
            "empty range is an error"
        );
    }
}
