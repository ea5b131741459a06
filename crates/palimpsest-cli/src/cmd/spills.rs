//! `palimpsest spills PATH [--session ID] [--json] [--no-index]`: every spill file of a session, with its size,
//! whether it exists, the capped result beside it and the calls that read it later. Files
//! outside the session's folders (and `--root` folders) are listed as needing confirmation and
//! never opened.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use palimpsest_core::analysis::SpillStatus;
use palimpsest_core::api::DiagnoseOptions;

/// Arguments of `spills`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Print JSON: {"session_id", "roots", "suggested_roots", "problems", "spills": [...],
    /// "present", "missing", …}.
    #[arg(long)]
    json: bool,
    /// A folder whose spill files may be opened too (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<PathBuf>,
    /// An extra spill-marker pattern: a regex with a named group `path`.
    #[arg(long, value_name = "REGEX")]
    spill_pattern: Option<String>,
    /// Include up to this many bytes of each present spill file's text (JSON `spill_text`).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    text: usize,
    /// Read the session from its file even when the index holds it as it is (otherwise the
    /// spill files the index found in it are looked at on disk, without reading the file).
    #[arg(long)]
    no_index: bool,
}

/// Run `spills`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let opts = DiagnoseOptions {
        spill_pattern: a.spill_pattern,
        extra_roots: a.roots,
        max_text_bytes: a.text,
        ..Default::default()
    };
    // Only an index that exists is asked: reviewing one file creates none.
    let s = a
        .target
        .serve(super::existing_unless(a.no_index), "review spills of")?;
    let review = s.answer(s.svc.spills(&s.path, &s.id, &opts))?;
    if a.json {
        crate::output::json(&review)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{}: {} spill files ({} present, {} missing, {} not saved, {} need confirmation{}), {} bytes present",
        review.session_id,
        review.spills.len(),
        review.present,
        review.missing,
        review.not_saved,
        review.needs_confirmation,
        if review.stored > 0 {
            format!(", {} pruned outputs kept in the session", review.stored)
        } else {
            String::new()
        },
        review.total_bytes
    )?;
    for r in &review.suggested_roots {
        writeln!(
            out,
            "not trusted (recorded by the session; add --root {r} to read spill files there): {r}"
        )?;
    }
    for p in &review.problems {
        writeln!(out, "note: {p}")?;
    }
    for s in &review.spills {
        let status = match s.status {
            SpillStatus::Present => "present",
            SpillStatus::Missing => "MISSING",
            SpillStatus::NotSaved => "not saved",
            SpillStatus::NeedsConfirmation => "confirm?",
            SpillStatus::Unreadable => "unreadable",
            SpillStatus::Stored => "stored",
        };
        let at = s
            .message_index
            .map(|i| format!("[{i:>5}]"))
            .unwrap_or_else(|| "[  -  ]".into());
        let size = s.size_bytes.map(|b| format!("{b} B")).unwrap_or_default();
        writeln!(
            out,
            "{at} {status:<10} {:>9}  {}{}",
            size,
            s.resolved.as_deref().or(s.path.as_deref()).unwrap_or(
                if s.status == SpillStatus::Stored {
                    "(kept whole in the session: the message)"
                } else {
                    "(full text not saved)"
                }
            ),
            if s.read_by.is_empty() {
                String::new()
            } else {
                format!("  read by {:?}", s.read_by)
            }
        )?;
        if let (Some(o), Some(t)) = (s.omitted_bytes, s.total_bytes) {
            writeln!(
                out,
                "          {o} of {t} bytes elided from the model's view"
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
