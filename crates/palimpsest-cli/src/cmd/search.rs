//! `palimpsest search QUERY [PATH…] [--regex] [--role R] [--part P] [--tool NAME] [--limit N]
//! [--json]`: every part of every session (without PATH: the default folders) holding QUERY —
//! a literal matched case-insensitively, or with `--regex` a regular expression — newest
//! session first. Exit 1 when nothing matches. The index is brought up to date first.
//! Searching is `palimpsest_core::index::search`'s; this only prints it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::index::search::Query;
use palimpsest_core::service::{IndexUse, SessionService};

/// Arguments of `search`.
#[derive(clap::Args)]
pub struct Args {
    /// What to find: a literal (case-insensitive), or a regex with `--regex`.
    query: String,
    /// Session files, databases or folders; none: the default folders of every agent.
    paths: Vec<PathBuf>,
    /// QUERY is a regular expression (Rust `regex` syntax; `(?i)` for case-insensitive).
    #[arg(long)]
    regex: bool,
    /// Only parts of this role (a tool result is `tool`, whichever message carried it).
    #[arg(long, value_parser = ["user", "assistant", "tool", "system"])]
    role: Option<String>,
    /// Only parts of this kind.
    #[arg(long, value_parser = ["text", "thinking", "tool_call", "tool_result", "summary"])]
    part: Option<String>,
    /// Only calls to and results of this tool (as stored, e.g. `Read`, `developer__shell`).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// At most this many hits.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// The index file (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// Print JSON: an array of {"session_id", "path", "format", "title", "index", "role",
    /// "part", "tool", "snippet", "match_start", "match_end", "cleared"} (offsets in characters;
    /// `cleared`: the hit is in a tool result a microcompact cleared, searched as stored).
    #[arg(long)]
    json: bool,
}

/// Run `search`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let q = Query {
        text: a.query.clone(),
        regex: a.regex,
        role: a.role.clone(),
        part: a.part.clone(),
        tool: a.tool.clone(),
        limit: a.limit,
    };
    // Without a usable index (a read-only or full cache folder, another user's cache) every
    // session is read and scanned instead, which finds the same; a bad query is the user's.
    let svc = SessionService::new(IndexUse::Asked(a.index.clone()));
    let searched = svc.search(&a.paths, &q);
    crate::output::notices(&svc.take_notices());
    let (hits, problems) = searched.with_context(|| format!("cannot search for {:?}", a.query))?;
    for p in &problems {
        eprintln!("palimpsest: problem: {}", p.message);
    }
    if a.json {
        crate::output::json(&hits)?;
    } else {
        let mut out = crate::output::stdout();
        for h in &hits {
            let chars: Vec<char> = h.snippet.chars().collect();
            let pre: String = chars[..h.match_start].iter().collect();
            let hit: String = chars[h.match_start..h.match_end].iter().collect();
            let post: String = chars[h.match_end..].iter().collect();
            writeln!(
                out,
                "{}  #{} {} {}{}{}\n    {pre}[{hit}]{post}",
                h.session_id,
                h.index,
                h.role,
                h.part,
                h.tool
                    .as_deref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default(),
                if h.cleared {
                    " [cleared: the model no longer sees it]"
                } else {
                    ""
                }
            )?;
        }
    }
    Ok(if hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
