//! `palimpsest diagnose PATH [--session ID] [--json]`: the post-mortem of one session (verdict,
//! re-reads, exploration share, loops, spill loops, summary losses), or, for a folder or
//! database holding several sessions and no `--session`, the fleet table (for a folder, from
//! the index, brought up to date first; `--no-index` diagnoses every session afresh).
//! The findings are `palimpsest_core::analysis`'s (through `api`); this only prints them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::analysis::{Diagnosis, Fleet};
use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::service::{IndexUse, SessionService};

/// Arguments of `diagnose`.
#[derive(clap::Args)]
pub struct Args {
    /// A session file, a database or a folder.
    path: PathBuf,
    /// The session id; without it a path holding several sessions gives the fleet table.
    #[arg(long)]
    session: Option<String>,
    /// Print JSON: {"verdict", "severity", "rereads", "exploration_share", "loops",
    /// "spill_loops", "summary_losses", "thrash", …}, or the fleet {"sessions", "totals",
    /// "problems"} (rows stuck first, each with "severity" and "cost_usd").
    #[arg(long)]
    json: bool,
    /// An extra spill-marker pattern: a regex with a named group `path`.
    #[arg(long, value_name = "REGEX")]
    spill_pattern: Option<String>,
    /// Count re-read tokens as characters / 4 instead of with the model's BPE vocabulary.
    #[arg(long)]
    estimate_tokens: bool,
    /// Diagnose afresh instead of from the index: for a folder, the index is otherwise brought
    /// up to date first (reading only what changed); one session the index holds as its file
    /// is now is otherwise answered from it.
    #[arg(long)]
    no_index: bool,
    /// The index file (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// A price table laid over the shipped one (ours or LiteLLM's JSON shape).
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
}

/// Run `diagnose`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let opts = DiagnoseOptions {
        spill_pattern: a.spill_pattern.clone(),
        estimate_tokens: a.estimate_tokens,
        prices: match &a.prices {
            Some(f) => Some(palimpsest_core::cost::PriceTable::load(Some(f))?),
            None => Some(palimpsest_core::cost::PriceTable::load(None)?),
        },
        ..Default::default()
    };
    // The index keeps diagnoses made with the default options: other options diagnose afresh.
    let indexed = a.path.is_dir() && a.session.is_none() && !a.no_index && opts.kept_by_index();
    // An index that cannot be opened or written is not needed: the folder is read instead.
    if indexed {
        let svc = SessionService::new(IndexUse::Asked(a.index.clone()));
        let fleet = svc.fleet(&a.path, &opts, &mut |_, _| {});
        crate::output::notices(&svc.take_notices());
        let fleet = fleet.with_context(|| format!("cannot diagnose {}", a.path.display()))?;
        if fleet.sessions.len() != 1 {
            if a.json {
                crate::output::json(&fleet)?;
            } else {
                print_fleet(&fleet)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let fleet_wanted = !indexed && a.session.is_none() && {
        // From the index when it holds the path as it is: listing a 2 GB transcript reads it.
        let listing = SessionService::new(if a.no_index {
            IndexUse::Off
        } else {
            IndexUse::Existing(None)
        });
        let list = listing
            .list(&a.path)
            .with_context(|| format!("cannot diagnose {}", a.path.display()))?;
        list.sessions.len() > 1
    };
    if fleet_wanted {
        let fleet = SessionService::new(IndexUse::Off)
            .fleet(&a.path, &opts, &mut |_, _| {})
            .with_context(|| format!("cannot diagnose {}", a.path.display()))?;
        if a.json {
            crate::output::json(&fleet)?;
        } else {
            print_fleet(&fleet)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // A session the index holds as its file is now: its diagnosis is the index's. Only an
    // index that exists is asked: diagnosing one file creates none.
    let index = if a.no_index {
        IndexUse::Off
    } else {
        IndexUse::Existing(a.index.clone())
    };
    let target = super::Target {
        path: a.path.clone(),
        session: a.session.clone(),
    };
    let s = target.serve(index, "diagnose")?;
    let d = s.answer(s.svc.diagnosis(&s.path, &s.id, &opts))?;
    if a.json {
        crate::output::json(&d)?;
    } else {
        print_one(&d)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_one(d: &Diagnosis) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{} [{}]: {}",
        d.session_id,
        d.severity.as_str(),
        d.verdict
    )?;
    let e = &d.exploration;
    writeln!(
        out,
        "\ncalls {}, look-only {} ({:.0}%), writes {}{}",
        e.calls,
        e.look_calls,
        d.exploration_share * 100.0,
        e.write_calls,
        e.seconds_per_call
            .map(|s| format!(", {s:.1} s per call"))
            .unwrap_or_default()
    )?;
    for c in &d.compactions {
        writeln!(
            out,
            "compaction {} at message {}: dropped {}, summary {} chars{}",
            c.number,
            c.cut_index,
            c.dropped,
            c.summary_chars,
            c.problem
                .as_deref()
                .map(|p| format!(" (not usable: {p})"))
                .unwrap_or_default()
        )?;
    }
    let rereads: Vec<_> = d.rereads.iter().filter(|f| f.rereads > 0).collect();
    if !rereads.is_empty() {
        writeln!(out, "\nre-reads:")?;
        writeln!(
            out,
            "  {:>5} {:>7} {:>6} {:>7}  path",
            "reads", "rereads", "after", "tokens"
        )?;
        for f in rereads {
            writeln!(
                out,
                "  {:>5} {:>7} {:>6} {:>7}  {}  (messages {})",
                f.reads,
                f.rereads,
                f.after_compaction,
                f.tokens,
                f.path,
                join(&f.reread_messages)
            )?;
        }
    }
    if !d.loops.is_empty() {
        writeln!(out, "\nloops:")?;
        for l in &d.loops {
            writeln!(out, "  {}  (messages {})", l.description, join(&l.messages))?;
        }
    }
    for s in &d.spill_loops {
        writeln!(
            out,
            "\nspill loop on {}: {} re-spills{} (messages {})",
            s.origin,
            s.respilled,
            if s.ended_in_timeout {
                ", ended in a timeout"
            } else {
                ""
            },
            join(&s.messages)
        )?;
    }
    if !d.summary_losses.is_empty() {
        writeln!(out, "\nlost by summaries:")?;
        for l in &d.summary_losses {
            let kind = serde_json::to_value(l.kind)?;
            writeln!(
                out,
                "  compaction {} {:<12} {}  (messages {})",
                l.compaction,
                kind.as_str().unwrap_or_default(),
                l.value,
                join(&l.messages)
            )?;
        }
    }
    Ok(())
}

fn print_fleet(f: &Fleet) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{:<24} {:<6} {:<12} {:>5} {:>6} {:>7} {:>7} {:>6} {:>9}  verdict",
        "session", "sev", "format", "calls", "compac", "usable", "rereads", "rate", "cost"
    )?;
    for r in &f.sessions {
        writeln!(
            out,
            "{:<24} {:<6} {:<12} {:>5} {:>6} {:>7} {:>7} {:>5.0}% {:>9}  {}",
            r.session_id,
            r.severity.as_str(),
            r.format,
            r.calls,
            r.compactions,
            r.usable_summaries,
            r.rereads,
            r.reread_rate * 100.0,
            r.cost_usd
                .map(|c| format!("${c:.2}"))
                .unwrap_or_else(|| "-".into()),
            r.verdict
        )?;
    }
    let t = &f.totals;
    writeln!(
        out,
        "\n{} sessions ({} stuck, {} watch, {} ok), ${:.2} ({} without a price), {} compactions, usable summaries {}, re-read rate {:.0}% ({} of {} reads)",
        t.sessions,
        t.stuck_sessions,
        t.watch_sessions,
        t.ok_sessions,
        t.cost_usd,
        t.unpriced_sessions,
        t.compactions,
        t.usable_summary_rate
            .map(|r| format!("{:.0}%", r * 100.0))
            .unwrap_or_else(|| "n/a".into()),
        t.reread_rate * 100.0,
        t.rereads,
        t.reads
    )?;
    if t.shared.requests > 0 {
        writeln!(
            out,
            "{} requests held by more than one session (a transcript resumed into a new file) \
             counted once: ${:.2} not counted twice",
            t.shared.requests, t.shared.usd
        )?;
    }
    for p in &f.problems {
        writeln!(out, "problem: {}", p.message)?;
    }
    Ok(())
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
