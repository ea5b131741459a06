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

/// The session a window opens first in the file at `path`, when it holds one conversation
/// (besides its subagents' runs, named `<session>/<run>`), named without listing it: a
/// transcript's session from its first lines. `None` for a folder, a file of several
/// conversations (a database), or one that does not open.
pub fn first_conversation(path: &Path) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    let catalog = crate::sources::open(path).ok()?;
    let mut ids = Vec::new();
    for source in &catalog.sources {
        let files = source.session_files().ok()?;
        ids.extend(
            files
                .into_iter()
                .map(|f| f.id)
                .filter(|id| !id.contains('/')),
        );
    }
    match ids.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The first lines of a big transcript read as a session of their own, with the bytes of the
/// file after them.
pub struct FirstLines {
    /// The session those lines make (provisional: see the module's doc).
    pub session: crate::model::Session,
    /// Bytes of the file not read.
    pub unread_bytes: u64,
}

impl FirstLines {
    /// Their timeline, marked with the bytes left unread.
    pub fn timeline(&self) -> Timeline {
        let mut t = crate::views::timeline::timeline(&self.session);
        t.unread_bytes = self.unread_bytes;
        t
    }
}

/// The timeline of the first lines of session `id` under `path` ([`first_lines`]).
pub fn timeline_first_lines(path: &Path, id: &str, limit: usize) -> Result<Option<Timeline>> {
    Ok(first_lines(path, id, limit)?.map(|f| f.timeline()))
}

/// The first lines of session `id` under `path`, its first `limit` messages or a few more:
/// for a Claude Code transcript of [`FIRST_LINES_FROM`] or more, uncompressed. `None` for
/// anything else, which is read whole as before.
pub fn first_lines(path: &Path, id: &str, limit: usize) -> Result<Option<FirstLines>> {
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
        return Ok(Some(FirstLines {
            session: loaded.session,
            unread_bytes: size.saturating_sub(read),
        }));
    }
    Ok(None)
}
