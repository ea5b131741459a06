//! A Claude Code transcript followed live: read whole once, then only from where the last read
//! stopped, each time the file grows. The lines read are kept as the builder has them (before
//! visibility, cuts and links, which depend on the whole file and are applied again to a copy,
//! `super::finish`), so a session grown by one line costs that line and a copy, not a new
//! parse of hundreds of megabytes. A file that is not the one read with lines appended (shorter,
//! or its first bytes changed) is not resumed: the caller reads it again.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::Session;
use crate::sources::jsonl::{self, Resume};

use super::build::Builder;

/// How many first bytes must be unchanged for a file to count as appended.
const HEAD: usize = 4096;

/// A transcript read so far.
pub struct Resumable {
    path: PathBuf,
    id: String,
    parent: Option<String>,
    builder: Builder,
    at: Resume,
    head: Vec<u8>,
}

impl Resumable {
    /// Read `path` (session `id`, a subagent's when `parent` is set) whole: its lines up to the
    /// last line end (a line still being written is left for the next read), and the session
    /// they make.
    pub fn open(path: &Path, id: &str, parent: Option<String>) -> Result<(Self, Session)> {
        let mut r = Resumable {
            path: path.to_owned(),
            id: id.to_owned(),
            parent,
            builder: Builder::default(),
            at: Resume::default(),
            head: Vec::new(),
        };
        r.read()?;
        let session = r.session()?;
        Ok((r, session))
    }

    /// The session with what was appended since the last read; `None` when the file is not
    /// the one read with lines appended (then read it again with [`Resumable::open`]).
    pub fn extend(&mut self) -> Result<Option<Session>> {
        let len = std::fs::metadata(&self.path)
            .map_err(|e| Error::io(&self.path, e))?
            .len();
        if len < self.at.offset || head(&self.path, self.head.len())? != self.head {
            return Ok(None);
        }
        self.read()?;
        self.session().map(Some)
    }

    /// Bytes read so far (up to the last whole line).
    pub fn offset(&self) -> u64 {
        self.at.offset
    }

    fn read(&mut self) -> Result<()> {
        let b = &mut self.builder;
        self.at = jsonl::read_from(&self.path, self.at, true, |line| {
            b.push(line);
            true
        })?;
        if self.head.len() < HEAD {
            let want = HEAD.min(usize::try_from(self.at.offset).unwrap_or(HEAD));
            self.head = head(&self.path, want)?;
        }
        Ok(())
    }

    fn session(&self) -> Result<Session> {
        super::finish(
            &self.path,
            &self.id,
            self.parent.clone(),
            self.builder.clone(),
        )
        .map(|l| l.session)
    }
}

/// The first `n` bytes of `path` (fewer when it is shorter).
fn head(path: &Path, n: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = Vec::with_capacity(n);
    f.take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    Ok(buf)
}
