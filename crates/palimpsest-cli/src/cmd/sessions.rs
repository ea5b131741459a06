//! `palimpsest sessions PATH [--json]`: the sessions in a file or folder.
//! Finding and reading them is the core readers' job (`palimpsest_core::api::list_sessions`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use palimpsest_core::api;

/// Arguments of `sessions`.
#[derive(clap::Args)]
pub struct Args {
    /// A session file, a database or a folder.
    path: PathBuf,
    /// Print JSON: an array of sessions (problems go to stderr).
    #[arg(long)]
    json: bool,
}

/// Run `sessions`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let list = api::list_sessions(&a.path)
        .with_context(|| format!("cannot list sessions in {}", a.path.display()))?;
    for p in &list.problems {
        eprintln!("palimpsest: warning: {}", p.message);
    }
    if list.sessions.is_empty() && list.problems.is_empty() {
        // An empty folder (or one named like a session file) must not answer with silence.
        eprintln!(
            "palimpsest: warning: {}: no session files found here",
            a.path.display()
        );
    }
    if a.json {
        crate::output::json(&list.sessions)?;
    } else {
        let mut out = crate::output::stdout();
        for s in &list.sessions {
            writeln!(
                out,
                "{:<40} {:<12} {:>6} msgs {:>3} cuts  {}",
                s.id,
                s.format.as_str(),
                s.message_count,
                s.compaction_count,
                s.name
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
