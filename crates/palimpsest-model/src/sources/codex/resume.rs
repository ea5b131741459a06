//! A Codex rollout read so far, that a later read (another process's, from a snapshot) goes on
//! from: what was appended is fed to the same builder a whole read feeds, line by line, so the
//! messages are those a whole read makes; billing and usage are put on a copy at each read
//! (`super::finish`), as the last answer that carries the unbilled counts moves on.
//!
//! A file that is not the one read with lines appended (shorter, or its first bytes changed)
//! is not resumed: the caller reads it again. A snapshot holds the builder and where the read
//! stopped, in the frame of `sources::kept`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::build::Builder;
use crate::error::Result;
use crate::model::Session;
use crate::sources::jsonl::Growing;
use crate::sources::kept::{self, Framed, refused};

/// A rollout read so far.
pub struct Resumable {
    path: PathBuf,
    id: String,
    /// What the lines made, before billing and usage are put on the messages.
    builder: Builder,
    /// Where the read stopped, and the file's first bytes.
    growing: Growing,
    /// The session as the last read finished it, when one was.
    session: Option<Arc<Session>>,
}

#[derive(Serialize)]
struct Out<'a> {
    builder: &'a Builder,
    growing: &'a Growing,
}

#[derive(Deserialize)]
struct In {
    builder: Builder,
    growing: Growing,
}

impl Resumable {
    /// Read rollout `path` (session `id`) up to its last line end (a line still being written
    /// is left for the next read).
    pub fn open(path: &Path, id: &str) -> Result<Self> {
        let mut builder = Builder::default();
        builder.path = path.to_owned();
        let mut r = Resumable {
            path: path.to_owned(),
            id: id.to_owned(),
            builder,
            growing: Growing::default(),
            session: None,
        };
        r.read()?;
        r.session = Some(Arc::new(r.finished()));
        Ok(r)
    }

    /// The session as read so far.
    pub fn session(&self) -> Arc<Session> {
        match &self.session {
            Some(s) => Arc::clone(s),
            None => Arc::new(self.finished()),
        }
    }

    /// Read what was appended since the last read: the first message that changed (a new one,
    /// the answer a count reports on, every one a compaction reaches, the answer the unbilled
    /// counts moved from), or `None` when the file is not the one read with lines appended.
    pub fn extend(&mut self) -> Result<Option<usize>> {
        if !self.growing.appended(&self.path)? {
            return Ok(None);
        }
        let before = self.builder.messages.len();
        let billed = self.builder.billed_from(&self.builder.messages);
        self.builder.take_touched();
        self.read()?;
        let now_billed = self.builder.billed_from(&self.builder.messages);
        let from = [
            Some(before),
            billed,
            now_billed,
            self.builder.take_touched(),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(before);
        self.session = Some(Arc::new(self.finished()));
        Ok(Some(from))
    }

    fn read(&mut self) -> Result<()> {
        let b = &mut self.builder;
        self.growing.read(&self.path, |line| {
            b.push(line);
            true
        })
    }

    fn finished(&self) -> Session {
        super::finish(
            &self.builder,
            self.builder.messages.clone(),
            &self.path,
            &self.id,
        )
    }

    /// Write what this reader keeps to `to`.
    pub fn save(&self, to: &mut dyn Write) -> Result<()> {
        let out = Out {
            builder: &self.builder,
            growing: &self.growing,
        };
        kept::write(to, "codex", &self.path, &self.id, &out)
    }

    /// The reader whose state follows the header in `r` (read back by
    /// [`crate::sources::Resumable::restore`]).
    pub(crate) fn restore_body(
        r: Framed<'_>,
        snapshot: &Path,
        file: &Path,
        id: &str,
    ) -> Result<Self> {
        let saved: In = r.body(snapshot)?;
        if saved.builder.lines.len() != saved.builder.messages.len() {
            return Err(refused(
                snapshot,
                "its parts do not agree on the number of messages",
            ));
        }
        Ok(Resumable {
            path: file.to_owned(),
            id: id.to_owned(),
            builder: saved.builder,
            growing: saved.growing,
            session: None,
        })
    }
}
