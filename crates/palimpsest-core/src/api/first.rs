//! The first screen of a big transcript no index holds yet: the rows of its first lines, read
//! in milliseconds, which a window shows while it reads the file whole (seconds on hundreds of
//! megabytes) and then replaces with the whole file's rows. Reading the lines is
//! `sources::claude::prefix`'s; when to show them and when to read the rest is the caller's.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::SourceFormat;
use crate::views::timeline::Timeline;

/// Files smaller than this are read whole for their first screen: that costs about as much as
/// the first lines do, and gives the final rows at once.
pub const FIRST_LINES_FROM: u64 = 16 << 20;
/// The most of a file read for its first lines (a transcript's first lines may be long).
const FIRST_LINES_MAX: u64 = 8 << 20;

/// The timeline of the first lines of session `id` under `path`, its first `limit` messages or
/// a few more, marked with the bytes left unread (`Timeline::unread_bytes`): for a Claude Code
/// transcript of [`FIRST_LINES_FROM`] or more, uncompressed. `None` for anything else, which is
/// read whole as before.
pub fn timeline_first_lines(path: &Path, id: &str, limit: usize) -> Result<Option<Timeline>> {
    let catalog = crate::sources::open(path)?;
    for source in &catalog.sources {
        if source.format() != SourceFormat::ClaudeCode {
            continue;
        }
        let Some(f) = source.session_files()?.into_iter().find(|f| f.id == id) else {
            continue;
        };
        let size = std::fs::metadata(&f.file)
            .map_err(|e| Error::io(&f.file, e))?
            .len();
        if !f.file.is_file()
            || size < FIRST_LINES_FROM
            || crate::sources::compressed::is_zst(&f.file)
        {
            return Ok(None);
        }
        // A subagent's run is named `<session>/<agent-…>`, as its source names it.
        let parent = id.split_once('/').map(|(p, _)| p.to_owned());
        let (loaded, read) = crate::sources::claude::prefix::load_prefix(
            &f.file,
            id,
            parent,
            limit,
            FIRST_LINES_MAX,
        )?;
        let mut t = crate::views::timeline::timeline(&loaded.session);
        t.unread_bytes = size.saturating_sub(read);
        return Ok(Some(t));
    }
    Ok(None)
}
