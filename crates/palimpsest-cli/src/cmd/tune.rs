//! `palimpsest tune PATH… [--policy P] [--grid K=0..8 cap=0,30000 …] [--harness F…] [--json]`: replay every
//! session under the paths at every setting of the grid and print, per setting, the re-reads
//! after a compaction it would have spared, the tokens it carries and their price, the
//! compactions, storms, requests past the window and orphaned tool results; the Pareto front
//! and its knee, the recommendation, with the sessions that gain most. `--json` prints the
//! `TuneView` the window's Tune view receives. `--harness`, `--model`, `--project`, `--since`
//! and `--until` count only some sessions, as the view's filters do. Tuning is
//! `palimpsest_core::api::tune`'s.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::tune::Setting;
use palimpsest_core::replay::tune_grid;

use super::replay::PolicyArg;

/// Arguments of `tune`.
#[derive(clap::Args)]
pub struct Args {
    /// Session files, folders or homes (default: this machine's agent folders).
    paths: Vec<PathBuf>,
    /// The compaction policy replayed.
    #[arg(long, value_enum, default_value = "goose")]
    policy: PolicyArg,
    /// The grid: `NAME=VALUES` words, each a range `A..B` or a list `a,b,c`; every combination
    /// is a setting. Names: `K` (goose keep-tail; opencode turns kept), `cap` (tool-result cap,
    /// bytes, 0 = off), `trigger` (coworker trigger cap), `budget` (opencode kept-tail tokens;
    /// gemini response budget), `preserve` (gemini percent kept). Default: goose and opencode
    /// `K=0..8`, coworker `trigger=100000,150000,200000,250000`, gemini `preserve=10..70`
    /// by tens.
    #[arg(long, num_args = 1.., value_name = "NAME=VALUES")]
    grid: Vec<String>,
    /// Context window / limit in tokens (default: each session's, else 128 000).
    #[arg(long)]
    context_window: Option<u64>,
    /// Compaction threshold as a fraction of the window.
    #[arg(long)]
    threshold: Option<f64>,
    /// goose, opencode, gemini: where compactions fire. `recorded`: where each session
    /// compacted, and wherever the policy's own trigger makes the setting compact again;
    /// `threshold`: only the policy's own triggers.
    #[arg(long, value_enum, default_value = "recorded")]
    trigger: Trigger,
    /// goose: slice the tail without the walk (to see what a naive policy would orphan).
    #[arg(long)]
    naive: bool,
    /// The index that keeps each session's cells (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE", conflicts_with = "no_index")]
    index_file: Option<PathBuf>,
    /// Replay every session, keeping nothing.
    #[arg(long)]
    no_index: bool,
    /// Count only the sessions of these harnesses (as `sessions --json` names a format, e.g.
    /// `goose`, `claude-code`).
    #[arg(long, num_args = 1.., value_name = "FORMAT")]
    harness: Vec<String>,
    /// Count only the sessions of these models.
    #[arg(long, num_args = 1..)]
    model: Vec<String>,
    /// Count only the sessions of these projects (working dirs).
    #[arg(long, num_args = 1..)]
    project: Vec<String>,
    /// Count only the sessions last written on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DAY")]
    since: Option<String>,
    /// Count only the sessions last written before this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DAY")]
    until: Option<String>,
    /// Print the JSON the window receives.
    #[arg(long)]
    json: bool,
}

/// Where a goose replay compacts.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Trigger {
    /// Where the session compacted, and where the policy's own triggers fire.
    Recorded,
    /// Only where the policy's own triggers fire.
    Threshold,
}

/// The settings of `words`, or the policy's default grid (`replay::tune_grid`).
pub fn grid(policy: PolicyName, words: &[String]) -> anyhow::Result<Vec<Setting>> {
    tune_grid::grid(policy, words).map_err(anyhow::Error::msg)
}

/// Run `tune`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let policy = a.policy.name();
    let base = ReplayOptions {
        policy,
        context_window: a.context_window,
        threshold: a.threshold,
        at_recorded: a.trigger == Trigger::Recorded,
        naive: a.naive,
        ..ReplayOptions::default()
    };
    let settings = grid(policy, &a.grid)?;
    let filter = api::TuneFilter {
        formats: a
            .harness
            .iter()
            .map(|h| {
                serde_json::from_value(serde_json::Value::String(h.clone()))
                    .map_err(|_| anyhow::anyhow!("--harness {h}: not a format Palimpsest reads"))
            })
            .collect::<anyhow::Result<_>>()?,
        models: a.model.clone(),
        projects: a.project.clone(),
        since: a.since.as_deref().map(api::day_start).transpose()?,
        until: a.until.as_deref().map(api::day_start).transpose()?,
    };
    let paths = if a.paths.is_empty() {
        api::default_paths()
    } else {
        a.paths.clone()
    };
    let progress = |done: usize, total: usize| {
        if !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            eprint!("\rtuning: {done}/{total} sessions");
        }
    };
    // The user's index keeps the cells unless told otherwise; one that cannot be opened (a
    // read-only cache folder) only costs speed, and one named by `--index-file` says so.
    let index = match (&a.index_file, a.no_index) {
        (_, true) => None,
        (at, false) => match api::open_index(at.as_deref()) {
            Ok(ix) => Some(std::sync::Mutex::new(ix)),
            Err(e) if at.is_some() => return Err(e.into()),
            Err(_) => None,
        },
    };
    let view = api::tune(
        &paths,
        &base,
        &settings,
        &filter,
        index.as_ref(),
        &super::token_cache,
        &progress,
        None,
    )?;
    for p in &view.problems {
        eprintln!("palimpsest: warning: {}", p.message);
    }
    let mut out = crate::output::stdout();
    if !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!(
            "\r{} sessions from the index, {} replayed",
            view.from_index, view.replayed
        );
    }
    if a.json {
        serde_json::to_writer_pretty(&mut out, &view)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let t = &view.tune;
    let counted = if view.facets.sessions == t.sessions.len() {
        format!("{} sessions", t.sessions.len())
    } else {
        format!(
            "{} of {} sessions (filtered)",
            t.sessions.len(),
            view.facets.sessions
        )
    };
    writeln!(
        out,
        "{counted}, {} re-reads after a compaction recorded; {} settings of {}",
        t.recorded,
        t.settings.len(),
        policy.as_str()
    )?;
    writeln!(
        out,
        "{:<3}{:<28}{:>9}{:>15}{:>11}{:>12}{:>8}{:>8}{:>9}",
        "",
        "setting",
        "spared",
        "tokens carried",
        "≈ $",
        "compactions",
        "storms",
        "over",
        "orphans"
    )?;
    for (k, s) in t.settings.iter().enumerate() {
        // Sessions without recorded usage have no price: a fleet of them shows none, not $0.
        let usd = s.usd.map_or_else(|| "-".to_owned(), |u| format!("{u:.2}"));
        let mark = if t.knee == Some(k) {
            "◆"
        } else if t.front.contains(&k) {
            "*"
        } else {
            ""
        };
        writeln!(
            out,
            "{mark:<3}{:<28}{:>9}{:>15}{:>11}{:>12}{:>8}{:>8}{:>9}",
            s.label,
            s.avoided,
            s.tokens_carried,
            usd,
            s.compactions,
            s.storms,
            s.over_window,
            s.orphans
        )?;
    }
    writeln!(
        out,
        "* on the Pareto front of re-reads spared against tokens carried; ◆ its knee"
    )?;
    if t.recorded == 0 {
        writeln!(
            out,
            "\nno re-read after a compaction recorded: no setting has one to spare"
        )?;
    } else if t.knee.is_none() {
        writeln!(
            out,
            "\nno recommendation: every setting leaves a tool result without its call"
        )?;
    } else if let Some(k) = t.knee {
        let s = &t.settings[k];
        writeln!(
            out,
            "\nrecommended: {} — spares {} of {} re-reads after a compaction ({} tokens re-read)",
            s.label, s.avoided, t.recorded, s.avoided_tokens
        )?;
        for g in &s.gaining {
            writeln!(
                out,
                "  {} re-read{} spared in {} ({}), first {} at message {} · {}",
                g.avoided,
                if g.avoided == 1 { "" } else { "s" },
                g.session_id,
                g.name,
                g.first.path,
                g.first.call_index,
                g.path
            )?;
        }
    }
    for (k, s) in t.settings.iter().enumerate().filter(|(_, s)| s.orphans > 0) {
        writeln!(
            out,
            "orphans at {}: {} tool result(s) left without their call",
            s.label, s.orphans
        )?;
        for session in &t.sessions {
            if let Some(c) = session.cells.get(k).filter(|c| c.orphans > 0) {
                writeln!(
                    out,
                    "  {} at the compactions after message {:?}",
                    session.session_id, c.orphaned_at
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
