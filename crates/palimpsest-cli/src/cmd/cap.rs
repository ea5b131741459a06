//! `palimpsest cap PATH [--session ID] [--tool-result-cap N] [--json]`: the text coworker's
//! tool-result cap (`replay::cap`, the harness's `bound_tool_result`) makes of each result it
//! changes, so a cap can be checked from outside before a replay uses it.

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::replay::cap;

/// Arguments of `cap`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// The cap in UTF-8 bytes, 0 = off (the default is coworker's own).
    #[arg(long, default_value_t = cap::DEFAULT_MAX_BYTES)]
    tool_result_cap: usize,
    /// Print JSON: [{index, call_id, bytes_before, bytes_after, text}].
    #[arg(long)]
    json: bool,
}

/// Run `cap`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let session = a.target.load("read")?;
    let changed = cap::capped(&session, a.tool_result_cap);
    if a.json {
        crate::output::json(&changed)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    if a.tool_result_cap == 0 {
        writeln!(out, "a cap of 0 is off: no tool result changes")?;
    } else if changed.is_empty() {
        writeln!(out, "no tool result is over {} bytes", a.tool_result_cap)?;
    }
    for c in &changed {
        writeln!(
            out,
            "#{} {}: {} → {} bytes\n{}\n",
            c.index, c.call_id, c.bytes_before, c.bytes_after, c.text
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
