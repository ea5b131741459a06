//! `palimpsest lint PATH [--session ID] [--api openai|anthropic] [--json] [--no-index]`: tool-pairing
//! problems in the context of every request a session made (and of its next one), with the
//! error the provider would return. Exits 1 when there are findings, 0 when clean.
//! The lint and the error texts are `palimpsest_core::compaction`'s; this prints and exits.

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::compaction::Api;

/// Arguments of `lint`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Whose rules and error texts to apply.
    #[arg(long, value_enum, default_value = "openai")]
    api: ApiArg,
    /// Print JSON: {"findings": [{kind, message_index, call_id, caused_by_cut, error_text}]}.
    #[arg(long)]
    json: bool,
    /// Read the file even when the fleet index holds it as it is (by default such a file is
    /// answered from the cut view the index keeps, counted in BPE when it was indexed).
    #[arg(long)]
    no_index: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ApiArg {
    Openai,
    Anthropic,
}

/// Run `lint`. A file the user's index holds as it is now is answered from its cut view,
/// which keeps both rule sets' lint, unread.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let which = match a.api {
        ApiArg::Openai => Api::Openai,
        ApiArg::Anthropic => Api::Anthropic,
    };
    let s = a.target.serve(super::existing_unless(a.no_index), "read")?;
    let cuts = s.answer(s.svc.cut_view(&s.path, &s.id))?;
    let report = match api::lint_of((*cuts).clone(), which) {
        Some(r) => r,
        None => api::lint(&*s.answer(s.svc.session(&s.path, &s.id))?, which),
    };
    let id = s.id;
    let code = if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if a.json {
        crate::output::json(&report)?;
        return Ok(code);
    }
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{}: {} finding(s) over {} request(s), {} rules",
        id,
        report.findings.len(),
        report.requests,
        which.as_str()
    )?;
    for f in &report.findings {
        let kind = serde_json::to_value(f.kind)?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let cut = f
            .caused_by_cut
            .map_or_else(String::new, |c| format!(" caused by cut {c}"));
        let when = match (f.first_request, f.last_request) {
            (Some(a), Some(b)) if a == b => format!(" request {a}"),
            (Some(a), Some(b)) => format!(" requests {a}-{b}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "[{:>5}] {kind:<16} {}{when}{cut}",
            f.message_index, f.call_id
        )?;
        if let Some(t) = &f.error_text {
            let param = f
                .error_param
                .as_deref()
                .map_or_else(String::new, |p| format!(" (param {p})"));
            writeln!(out, "        {t}{param}")?;
        }
    }
    Ok(code)
}
