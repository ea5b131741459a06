//! `palimpsest show PATH --message N [--json] [--index]`: one message whole, as Markdown (what
//! the window's "Copy as Markdown" copies) or as the inspector gets it (`{message, raw, edits,
//! from_index}`). With `--index` it is read by its records' byte offsets through the fleet
//! index when the index holds the file as it is, without reading the session.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::rpc::MarkdownOf;
use palimpsest_core::views::MessageDetail;

/// Run `show --message N`.
pub fn run(
    target: &super::Target,
    n: usize,
    json: bool,
    index: Option<Option<&Path>>,
) -> anyhow::Result<ExitCode> {
    let detail: Option<MessageDetail> = target.ask_index(index, |ix| {
        api::message_indexed(ix, &target.path, target.session.as_deref(), n)
    })?;
    let mut out = crate::output::stdout();
    match (detail, json) {
        (Some(d), true) => crate::output::json(&d)?,
        (Some(d), false) => write!(out, "{}", palimpsest_core::markdown::message(&d.message))?,
        (None, true) => {
            let session = target.load("show")?;
            crate::output::json(&api::message_detail(&target.path, &session, n, true)?)?;
        }
        (None, false) => {
            let session = target.load("show")?;
            write!(
                out,
                "{}",
                // One message's Markdown counts nothing: no session counts.
                api::markdown(&session, MarkdownOf::Message(n), None)?
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
