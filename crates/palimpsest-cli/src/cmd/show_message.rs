//! `palimpsest show PATH --message N [--json] [--index]`: one message whole, as Markdown (what
//! the window's "Copy as Markdown" copies) or as the inspector gets it (`{message, raw, edits,
//! from_index}`). With `--index` it is read by its records' byte offsets through the fleet
//! index when the index holds the file as it is, without reading the session.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use palimpsest_core::views::MessageDetail;

/// Run `show --message N`.
pub fn run(
    target: &super::Target,
    n: usize,
    json: bool,
    index: Option<Option<&Path>>,
) -> anyhow::Result<ExitCode> {
    let s = target.serve(super::asked(index), "show")?;
    let d: MessageDetail = s.answer(s.svc.message(&s.path, &s.id, n, json))?;
    if json {
        crate::output::json(&d)?;
    } else {
        write!(
            crate::output::stdout(),
            "{}",
            palimpsest_core::markdown::message(&d.message)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
