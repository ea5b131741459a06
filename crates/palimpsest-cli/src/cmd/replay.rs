//! `palimpsest replay PATH [--session ID] --policy goose|coworker [--keep-tail K] [--naive]
//! [--manual] [--context-window N] [--threshold F] [--trigger-cap N] [--tool-result-cap BYTES]
//! [--summary-tokens N] [--legacy] [--simulate] [--json]`: compact the history once as it stands,
//! or (`--simulate`) run the whole session forward under the policy.
//! The policies and the simulation are `palimpsest_core::replay`'s; this parses and prints.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api;
use palimpsest_core::model::Part;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};

/// Arguments of `replay`.
#[derive(clap::Args)]
pub struct Args {
    /// A session file, a database or a folder.
    path: PathBuf,
    /// The session id; optional when PATH holds one session.
    #[arg(long)]
    session: Option<String>,
    #[command(flatten)]
    policy: PolicyArgs,
    /// goose: keep the last K messages verbatim (a floor: the walk may keep more).
    #[arg(long, default_value_t = 0)]
    keep_tail: usize,
    /// goose: slice the last K without the backward walk (shows the orphans it prevents).
    #[arg(long)]
    naive: bool,
    /// goose: a manual `/compact` (no user message preserved).
    #[arg(long)]
    manual: bool,
    /// Run the whole session forward instead of compacting once.
    #[arg(long)]
    simulate: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Settings shared by `replay` and `sweep`.
#[derive(clap::Args)]
pub struct PolicyArgs {
    /// Which compaction policy.
    #[arg(long, value_enum)]
    pub policy: PolicyArg,
    /// Context window / limit in tokens (default: the session's, else 128000).
    #[arg(long)]
    pub context_window: Option<u64>,
    /// Compaction threshold as a fraction of the window (default 0.8).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// coworker: trigger cap in tokens (default 250000).
    #[arg(long)]
    pub trigger_cap: Option<u64>,
    /// Cap tool results on arrival at this many bytes, 0 = off (coworker default 10000).
    #[arg(long)]
    pub tool_result_cap: Option<usize>,
    /// Size of placeholder summaries in tokens (default 2000; legacy 3000).
    #[arg(long)]
    pub summary_tokens: Option<u64>,
    /// coworker: legacy rules (600-char user messages, newest 40, no transcript line).
    #[arg(long)]
    pub legacy: bool,
}

/// `--policy`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PolicyArg {
    /// goose.
    Goose,
    /// OpenWorker's coworker.
    Coworker,
}

impl PolicyArgs {
    /// The core options these flags describe.
    pub fn options(&self) -> ReplayOptions {
        ReplayOptions {
            policy: match self.policy {
                PolicyArg::Goose => PolicyName::Goose,
                PolicyArg::Coworker => PolicyName::Coworker,
            },
            context_window: self.context_window,
            threshold: self.threshold,
            trigger_cap: self.trigger_cap,
            tool_result_cap: self.tool_result_cap,
            summary_tokens: self.summary_tokens,
            legacy: self.legacy,
            ..ReplayOptions::default()
        }
    }
}

/// Run `replay`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let session = api::load_session(&a.path, a.session.as_deref())
        .with_context(|| format!("cannot replay {}", a.path.display()))?;
    let opts = ReplayOptions {
        keep_tail: a.keep_tail,
        naive: a.naive,
        manual: a.manual,
        ..a.policy.options()
    };
    let mut out = std::io::stdout().lock();
    if a.simulate {
        let sim = api::replay_simulate(&session, &opts);
        if a.json {
            crate::output::json(&sim)?;
            return Ok(ExitCode::SUCCESS);
        }
        let t = &sim.totals;
        writeln!(
            out,
            "{} requests, {} compactions, {} tokens processed, peak {}, mean after cut {}, {} orphans",
            t.requests,
            t.compactions,
            t.tokens_processed,
            t.peak_context,
            t.mean_tokens_after,
            t.orphans
        )?;
        writeln!(
            out,
            "latest read of the last file kept verbatim after {}/{} cuts",
            t.last_read_kept, t.last_read_cuts
        )?;
        for c in &sim.compactions {
            let lost: Vec<&str> = c
                .files
                .iter()
                .filter(|f| !f.verbatim)
                .map(|f| f.path.as_str())
                .collect();
            writeln!(
                out,
                "cut at #{} before request {}: {} → {} tokens, kept {} from #{}, {} orphans, summary-only: {}",
                c.at_index,
                c.request + 1,
                c.tokens_before,
                c.tokens_after,
                c.kept_tail.len(),
                c.cut_index.map_or("-".into(), |i| i.to_string()),
                c.orphans,
                if lost.is_empty() {
                    "none".into()
                } else {
                    lost.join(", ")
                }
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let view = api::replay(&session, &opts);
    if a.json {
        crate::output::json(&view)?;
        return Ok(ExitCode::SUCCESS);
    }
    for (n, m) in view.visible.iter().enumerate() {
        let from = m.source_index.map_or("new".into(), |i| format!("#{i}"));
        writeln!(
            out,
            "[{}] {:<9} {:<14} {:<6} {}",
            n + 1,
            name(&m.role),
            name(&m.kind),
            from,
            preview(&m.parts)
        )?;
    }
    writeln!(
        out,
        "-> {} agent-visible messages; cut at #{} (asked #{}), kept {:?}, preserved copy {}, {} orphans",
        view.visible.len(),
        view.cut_index,
        view.requested_cut_index,
        view.kept_tail,
        if view.preserved_appended {
            "appended"
        } else {
            "not appended"
        },
        view.orphans
    )?;
    Ok(ExitCode::SUCCESS)
}

fn name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn preview(parts: &[Part]) -> String {
    let s: Vec<String> = parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => text.clone(),
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name} {arguments}"),
            Part::ToolResult { text, .. } => format!("→ {text}"),
            other => format!("[{}]", other.type_name()),
        })
        .collect();
    let flat: String = s
        .join(" | ")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > 90 {
        format!("{}…", flat.chars().take(90).collect::<String>())
    } else {
        flat
    }
}
