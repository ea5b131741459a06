//! `palimpsest sources [--add PATH]... [--json]`: where sessions live on this machine — the
//! default folder of each agent family (existing or not) and the folders added with `--add`,
//! with session counts. Counting is left to `palimpsest_core::sources::discovery`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use palimpsest_core::api;

/// Arguments of `sources`.
#[derive(clap::Args)]
pub struct Args {
    /// A further folder (or file) to look in; repeat for several.
    #[arg(long = "add", value_name = "PATH")]
    add: Vec<PathBuf>,
    /// Print JSON: an array of {"family", "path", "exists", "session_count"}.
    #[arg(long)]
    json: bool,
}

/// Run `sources`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let locations = api::discover_sources(&a.add);
    if a.json {
        crate::output::json(&locations)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    for l in &locations {
        let count = if l.exists {
            format!("{:>6} sessions", l.session_count)
        } else {
            "       (missing)".to_owned()
        };
        writeln!(out, "{:<12} {count}  {}", l.family.as_str(), l.path)?;
    }
    Ok(ExitCode::SUCCESS)
}
