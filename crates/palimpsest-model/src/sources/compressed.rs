//! Session files stored compressed: Codex writes rollouts as `rollout-….jsonl.zst` too. Every
//! byte-level reader of `scan` and `jsonl` opens files through [`open`], so a compressed file
//! reads as its text; which reader claims it is still decided from that text. When a plain
//! file sits beside its compressed twin (`x.jsonl` and `x.jsonl.zst`), the plain one is read and
//! the twin skipped ([`has_plain_twin`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// True when `path` is zstd-compressed by its name (`….zst`).
pub fn is_zst(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zst"))
}

/// `path` without its `.zst`: the plain twin's name.
pub fn plain_name(path: &Path) -> Option<PathBuf> {
    is_zst(path).then(|| path.with_extension(""))
}

/// True when `path` is compressed and its plain twin exists: the twin is read instead.
pub fn has_plain_twin(path: &Path) -> bool {
    plain_name(path).is_some_and(|p| p.is_file())
}

/// `path`'s text: the file itself, or its decompressed stream.
pub fn open(path: &Path) -> Result<Box<dyn Read + Send>> {
    let file = crate::sources::open_file(path)?;
    if !is_zst(path) {
        return Ok(Box::new(file));
    }
    let decoder = zstd::stream::read::Decoder::new(file).map_err(|e| Error::io(path, e))?;
    Ok(Box::new(decoder))
}
