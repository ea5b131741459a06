//! `palimpsest compactions PATH [--session ID] [--json] [--no-index]`: every compaction cut of a session,
//! taken apart (cut, trigger, tokens, summary health, kept tail, dropped span, preserved
//! message). Text output is one line per cut. `--cut N` prints one cut whole as Markdown
//! (dropped, summary, kept verbatim: the window's "Copy cut as Markdown"), `--summary` only its
//! summary, `--json` with it the cut view's detail.
//! The anatomy itself is `palimpsest_core::compaction`'s; this only prints it.

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::compaction::{CompactionAnatomy, CompactionsView, HealthIssue};
use palimpsest_core::rpc::MarkdownOf;
use palimpsest_core::views::cuts::SessionCuts;
use serde::Serialize;

/// Arguments of `compactions`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Print JSON: {"compactions": [{cut_index, trigger, pre_tokens, ...}], "cuts", "lint",
    /// "profile", "carriers", "request_list", ...}: the cut view the window receives.
    #[arg(long)]
    json: bool,
    /// One cut, numbered from 1 as the window names them: as Markdown, or with --json the cut
    /// view's detail {anatomy, dropped, kept, cleared, summary_text, files, ...}.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    cut: Option<u64>,
    /// With --cut: only the cut's summary, as the model receives it.
    #[arg(long, requires = "cut")]
    summary: bool,
    /// Read the file even when the fleet index holds it as it is (by default such a file is
    /// answered from the cut view the index keeps, counted in BPE when it was indexed).
    #[arg(long)]
    no_index: bool,
}

/// `compactions --json`: every key of the cut view the window receives (`SessionCuts`), beside
/// the keys this command printed first (`compactions`, and `requests` as a count, so the
/// window's list of requests is `request_list`).
#[derive(Serialize)]
struct Out<'a> {
    session: &'a str,
    compactions: Vec<&'a CompactionAnatomy>,
    requests: usize,
    /// Every cut whole, as an opened cut shows it.
    cuts: &'a [palimpsest_core::views::cuts::CutDetail],
    /// Every request with its context size; the last one is the next request.
    request_list: &'a [palimpsest_core::compaction::RequestInfo],
    profile: &'a palimpsest_core::compaction::HealthProfile,
    carriers: &'a [palimpsest_core::views::cuts::FileCarrier],
    /// Pairing lint under OpenAI's rules, then Anthropic's.
    lint: &'a [palimpsest_core::compaction::lint::LintReport],
}

impl<'a> Out<'a> {
    fn of(session: &'a str, cuts: &'a SessionCuts) -> Self {
        Out {
            session,
            compactions: cuts.cuts.iter().map(|c| &c.anatomy).collect(),
            requests: cuts.requests.len(),
            cuts: &cuts.cuts,
            request_list: &cuts.requests,
            profile: &cuts.profile,
            carriers: &cuts.carriers,
            lint: &cuts.lint,
        }
    }
}

/// Run `compactions`. A file the user's index holds as it is now is answered from its cut
/// view (counted in BPE when it was indexed), unread; a cut as Markdown needs the messages.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let s = a.target.serve(super::existing_unless(a.no_index), "read")?;
    // A cut as Markdown quotes its messages: the session whole.
    if let (Some(n), false) = (a.cut, a.json) {
        let session = s.answer(s.svc.session(&s.path, &s.id))?;
        return one_cut(&session, usize::try_from(n - 1)?, a.summary);
    }
    let cuts = s.answer(s.svc.cut_view(&s.path, &s.id))?;
    match a.cut {
        Some(n) => print_cut(&s.id, &cuts, usize::try_from(n - 1)?),
        None if a.json => json(&s.id, &cuts),
        None => print(&s.id, &api::compactions_of((*cuts).clone())),
    }
}

/// The cut view of session `id` as JSON.
fn json(id: &str, cuts: &SessionCuts) -> anyhow::Result<ExitCode> {
    crate::output::json(&Out::of(id, cuts))?;
    Ok(ExitCode::SUCCESS)
}

/// The compactions of session `id`, one line each.
fn print(id: &str, view: &CompactionsView) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    if view.compactions.is_empty() {
        writeln!(out, "{id}: no compactions")?;
        return Ok(ExitCode::SUCCESS);
    }
    for c in &view.compactions {
        writeln!(out, "{}", line(c))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--cut N --json`: the cut view's detail of cut `at` (0-based).
fn print_cut(id: &str, cuts: &SessionCuts, at: usize) -> anyhow::Result<ExitCode> {
    let Some(c) = cuts.cuts.get(at) else {
        anyhow::bail!(
            "session `{id}` has no cut {} (it holds {})",
            at + 1,
            cuts.cuts.len()
        );
    };
    crate::output::json(c)?;
    Ok(ExitCode::SUCCESS)
}

/// `--cut N`: the cut as Markdown, or only its summary.
fn one_cut(
    session: &palimpsest_core::model::Session,
    at: usize,
    summary: bool,
) -> anyhow::Result<ExitCode> {
    let of = if summary {
        MarkdownOf::Summary(at)
    } else {
        MarkdownOf::Cut(at)
    };
    write!(
        crate::output::stdout(),
        "{}",
        api::markdown(session, of, super::session_counts(session).as_ref())?
    )?;
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
        "cut {:>5}  {trigger:<8} {tokens}  summary {} ({} chars) [{health}]  kept [{}]  dropped {dropped}  preserved {preserved}{}",
        c.cut_index,
        opt(c.summary_index),
        opt(c.summary_chars),
        runs(&c.kept_tail),
        if c.chained_summaries.is_empty() {
            String::new()
        } else {
            format!("  chains {:?}", c.chained_summaries)
        }
    )
}

/// Message indexes as runs (`3, 5..=9`): a microcompact keeps hundreds in a row, which a line
/// listing each one buries.
fn runs(indexes: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indexes.len() {
        let start = indexes[i];
        let mut end = start;
        while i + 1 < indexes.len() && indexes[i + 1] == end + 1 {
            i += 1;
            end = indexes[i];
        }
        out.push(if end == start {
            start.to_string()
        } else {
            format!("{start}..={end}")
        });
        i += 1;
    }
    out.join(", ")
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
