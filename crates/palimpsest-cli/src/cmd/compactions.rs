//! `palimpsest compactions PATH [--session ID] [--json]`: every compaction cut of a session,
//! taken apart (cut, trigger, tokens, summary health, kept tail, dropped span, preserved
//! message). Text output is one line per cut.
//! The anatomy itself is `palimpsest_core::compaction`'s; this only prints it.

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::compaction::{CompactionAnatomy, HealthIssue};
use serde::Serialize;

/// Arguments of `compactions`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Print JSON: {"compactions": [{cut_index, trigger, pre_tokens, ...}]}.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Out<'a> {
    session: &'a str,
    compactions: &'a [CompactionAnatomy],
    requests: usize,
}

/// Run `compactions`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let session = a.target.load("read")?;
    let view = api::compactions(&session);
    if a.json {
        crate::output::json(&Out {
            session: &session.meta.id,
            compactions: &view.compactions,
            requests: view.requests.len(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    if view.compactions.is_empty() {
        writeln!(out, "{}: no compactions", session.meta.id)?;
        return Ok(ExitCode::SUCCESS);
    }
    for c in &view.compactions {
        writeln!(out, "{}", line(c))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn line(c: &CompactionAnatomy) -> String {
    let trigger = c
        .trigger
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".into());
    let tokens = match (c.pre_tokens, c.post_tokens) {
        (None, None) => format!(
            "~{}→~{} tok ({})",
            c.pre_tokens_counted, c.post_tokens_counted, c.token_method
        ),
        (pre, post) => format!("{}→{} tok", opt(pre), opt(post)),
    };
    let dropped = c.dropped.map_or_else(
        || "none".to_owned(),
        |(a, b)| format!("{a}..={b} ({})", c.dropped_count),
    );
    let health = if c.health.is_empty() {
        "ok".to_owned()
    } else {
        c.health.iter().map(issue).collect::<Vec<_>>().join("; ")
    };
    let preserved = match c.preserved_index {
        Some(p) if c.preserved_duplicate => format!("{p} (DUPLICATE)"),
        Some(p) => p.to_string(),
        None => "-".into(),
    };
    format!(
        "cut {:>5}  {trigger:<8} {tokens}  summary {} ({} chars) [{health}]  kept {:?}  dropped {dropped}  preserved {preserved}{}",
        c.cut_index,
        opt(c.summary_index),
        opt(c.summary_chars),
        c.kept_tail,
        if c.chained_summaries.is_empty() {
            String::new()
        } else {
            format!("  chains {:?}", c.chained_summaries)
        }
    )
}

fn issue(i: &HealthIssue) -> String {
    match i {
        HealthIssue::Missing { message }
        | HealthIssue::Opaque { message }
        | HealthIssue::Empty { message }
        | HealthIssue::TooShort { message, .. }
        | HealthIssue::NoRequiredHeading { message }
        | HealthIssue::FewSections { message, .. }
        | HealthIssue::NextAction { message } => message.clone(),
    }
}
