//! The first lines of a big Claude Code transcript read as a session of their own: what a
//! window shows at once while it reads the file whole behind them. The session is provisional
//! — a compaction, a rewind or a later block of a response further on may change what these
//! messages are — and the caller replaces it with the whole file's. Reading lines is `jsonl`'s,
//! building messages `build`'s, finishing them `finish`'s, exactly as for the whole file.

use std::path::Path;

use super::{Loaded, build, finish};
use crate::error::Result;
use crate::sources::jsonl::{self, Resume};

/// Read `path`'s first whole lines (session `id`, a subagent's when `parent` is set) until they
/// make more than `messages` messages or reach `max_bytes`, and finish them as a session.
/// Returns it with the bytes read.
pub fn load_prefix(
    path: &Path,
    id: &str,
    parent: Option<String>,
    messages: usize,
    max_bytes: u64,
) -> Result<(Loaded, u64)> {
    let mut b = build::Builder::default();
    let at = jsonl::read_from(path, Resume::default(), true, |line| {
        let end = line.offset;
        b.push(line);
        b.messages.len() <= messages && end < max_bytes
    })?;
    Ok((finish::finish(path, id, parent, b)?, at.offset))
}
