//! `palimpsest context PATH [--session ID] --request N [--json] [--no-index]`: what the model
//! saw at request N — the stored indices and the messages of its context, rebuilt across
//! compactions. Requests are numbered from 1; one past the last answered request is the request
//! the agent would send next (`--request next` says the same). A transcript the index holds as
//! it is is answered from it, its messages read back by offset. `--recorded [--logs DIR]` sets
//! what the agent recorded it sent beside it (`recorded.rs`).
//! Which messages were visible when is `palimpsest_core::compaction::Eras`'; this only prints.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::compaction::Eras;
use palimpsest_core::service::IndexUse;

/// Arguments of `context`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// The request number (1-based), or `next`. With --recorded and no --request: every
    /// recorded request of the session.
    #[arg(long, required_unless_present = "recorded")]
    request: Option<String>,
    /// Compare with the request the agent recorded it sent (goose: logs/llm_request.*.jsonl;
    /// Aider: .aider.llm.history), marking every item in which they differ.
    #[arg(long)]
    recorded: bool,
    /// Where the request logs are (goose: default a `logs` folder beside the database, then
    /// goose's state folder; Aider: the request log file, default beside the chat log).
    #[arg(long, requires = "recorded")]
    logs: Option<std::path::PathBuf>,
    /// Print JSON: {"request", "answer_index", "indices", "messages", ...}; with --recorded the
    /// comparison {"request", "log", "rebuilt", "diff", "differences", ...}.
    #[arg(long)]
    json: bool,
    /// Read the session from its file even when the index holds it as it is (otherwise the
    /// context comes from the index, its messages read back by offset).
    #[arg(long)]
    no_index: bool,
}

/// Run `context`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    // `next` is numbered once the requests are known; a number is checked now.
    let asked = match a.request.as_deref() {
        None | Some("next") => None,
        Some(r) => Some(
            r.parse::<usize>()
                .with_context(|| format!("--request must be a number or `next`, not `{r}`"))?,
        ),
    };
    // Only an index that exists is asked: reading one file creates none.
    let index = if a.recorded {
        IndexUse::Off
    } else {
        super::existing_unless(a.no_index)
    };
    let s = a.target.serve(index, "read")?;
    if a.recorded {
        let session = s.answer(s.svc.session(&s.path, &s.id))?;
        let number = match a.request.as_deref() {
            Some("next") => Some(Eras::new(&session).request_count()),
            _ => asked,
        };
        return super::recorded::run(&session, number, a.logs, a.json);
    }
    let ctx = s.answer(s.svc.request_context(&s.path, &s.id, asked))?;
    if a.json {
        crate::output::json(&ctx)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    let answer = ctx.answer_index.map_or_else(
        || "next request".to_owned(),
        |i| format!("answered by [{i}]"),
    );
    let cut = ctx
        .after_cut
        .map_or_else(String::new, |c| format!(", after cut {c}"));
    writeln!(
        out,
        "request {} of {} ({answer}{cut}): {} messages, {} tokens ({})",
        ctx.request,
        ctx.requests,
        ctx.indices.len(),
        ctx.tokens_counted,
        ctx.token_method
    )?;
    for m in &ctx.messages {
        let role = serde_json::to_value(m.role)?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let kind = serde_json::to_value(m.kind)?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let parts: Vec<&str> = m.parts.iter().map(|p| p.type_name()).collect();
        let text: String = m
            .text()
            .chars()
            .take(80)
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        writeln!(
            out,
            "[{:>5}] {role:<9} {kind:<14} {:<24} {text}",
            m.index,
            parts.join(",")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
