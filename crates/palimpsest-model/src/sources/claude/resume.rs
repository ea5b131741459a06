//! A Claude Code transcript followed live: read whole once, then only from where the last read
//! stopped, each time the file grows, and finished only where the new lines changed it.
//!
//! Most changes are lines that add messages at the end (or another block of a response already
//! read). For those the new messages alone are finished (usage, branch marks, links) and the
//! listing entry is made again from running totals; the walk of the active chain goes on from
//! its last leaf (`chain::Chain`), which also checks that no earlier message changed. A line
//! that changes what earlier messages are to the model (a boundary, a summary, a replacement or
//! collapse record, a rewind, a compactor run appearing) is rare: then the file is read whole
//! again, as the first time. So a line appended to a 200 MB transcript costs that line, not the transcript.
//!
//! A file that is not the one read with lines appended (shorter, or its first bytes changed)
//! is not resumed: the caller reads it again.
//!
//! The session lives in a [`Current`] that a caller keeping it in memory shares
//! ([`Resumable::shared`]) instead of holding a copy of its own beside this one.

mod saved;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Result;
use crate::model::{Current, LinkKind, Part, Session};
use crate::sources::jsonl::Growing;

use super::build::{Builder, Marks};
use super::chain::{self, Chain};
use super::finish::{self, UsageSums};
use super::listing::{self, Head};
use super::visibility;

/// A transcript read so far.
pub struct Resumable {
    path: PathBuf,
    id: String,
    parent: Option<String>,
    /// What the lines made, its messages finished (they live in `current` between reads).
    builder: Builder,
    /// The session, shared with callers that read it ([`Resumable::shared`]).
    current: Arc<Current>,
    /// The walk of the active chain the messages were marked by (none for a subagent's run,
    /// which has no branches).
    chain: Option<Chain>,
    /// The running totals of recorded usage, for the listing entry.
    sums: UsageSums,
    /// The compactor runs beside the file when it was last read whole.
    compactors: Vec<PathBuf>,
    /// The file's head as the listing reads it, once the file is longer than that head.
    listing_head: Option<Head>,
    /// Where the read stopped, and the file's first bytes.
    growing: Growing,
}

/// What an [`Resumable::extend`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extended {
    /// Messages from `from` on are new or changed; those before it are as they were, their
    /// visibility included. The listing entry and the cuts' records are made again.
    From(usize),
    /// The file was read whole again: anything may have changed.
    Whole,
}

impl Resumable {
    /// Read `path` (session `id`, a subagent's when `parent` is set) whole: its lines up to the
    /// last line end (a line still being written is left for the next read), and the session
    /// they make ([`Resumable::session`]).
    pub fn open(path: &Path, id: &str, parent: Option<String>) -> Result<Self> {
        Self::read_whole(path, id, parent, None).map(|(reader, _)| reader)
    }

    /// [`Resumable::open`] into `current` when there is one already: the session is then
    /// returned for its caller, which is changing `current`, to put there. Without one, a new
    /// one holds it.
    fn read_whole(
        path: &Path,
        id: &str,
        parent: Option<String>,
        current: Option<Arc<Current>>,
    ) -> Result<(Self, Option<Session>)> {
        let (mut builder, mut read) = (Builder::default(), Growing::default());
        read_into(path, &mut builder, &mut read)?;
        let main = parent.is_none();
        // The walk a whole finish marks by, made before it marks.
        let chain = main.then(|| Chain::new(&builder));
        let head = listing::head(path)?;
        let (meta, compactions, sums) =
            finish::finish_in_place(path, id, parent.clone(), &mut builder, Some(&head))?;
        let session = Session {
            meta,
            messages: std::mem::take(&mut builder.messages),
            compactions,
        };
        let (current, session) = match current {
            Some(c) => (c, Some(session)),
            None => (Current::new(session), None),
        };
        let reader = Resumable {
            path: path.to_owned(),
            id: id.to_owned(),
            parent,
            builder,
            current,
            chain,
            sums,
            compactors: if main {
                finish::compactor_runs(path)
            } else {
                Vec::new()
            },
            listing_head: (read.at.offset > listing::HEAD_BYTES as u64).then_some(head),
            growing: read,
        };
        Ok((reader, session))
    }

    /// The session as read so far (see [`Current::now`]).
    pub fn session(&self) -> Arc<Session> {
        self.current.now()
    }

    /// Where the session lives, for a caller that keeps it in memory too: what this reader
    /// reads next shows there, and it holds no copy of its own.
    pub fn shared(&self) -> Arc<Current> {
        Arc::clone(&self.current)
    }

    /// Read what was appended since the last read; `None` when the file is not the one read
    /// with lines appended (then read it again with [`Resumable::open`]).
    pub fn extend(&mut self) -> Result<Option<Extended>> {
        if !self.growing.appended(&self.path)? {
            return Ok(None);
        }
        let current = Arc::clone(&self.current);
        current.change(|mut session| {
            let done = self.extend_in(&mut session);
            // What was read stays read, whatever comes next.
            if !matches!(done, Ok(Some(_))) {
                session.messages = std::mem::take(&mut self.builder.messages);
            }
            match done {
                Ok(Some(changed_from)) => (session, Ok(Some(Extended::From(changed_from)))),
                Ok(None) => {
                    // Readers wait for this read rather than read the file themselves.
                    let cell = Some(Arc::clone(&self.current));
                    match Self::read_whole(&self.path, &self.id, self.parent.clone(), cell) {
                        Ok((reader, Some(whole))) => {
                            *self = reader;
                            (whole, Ok(Some(Extended::Whole)))
                        }
                        Ok((_, None)) => unreachable!("a session read into a given place"),
                        Err(e) => (session, Err(e)),
                    }
                }
                // The next change starts over.
                Err(e) => (session, Err(e)),
            }
        })
    }

    /// [`Resumable::extend`] on `session` taken out of where it lives: the first message that
    /// changed, or `None` when the file must be read whole again (its messages are then left
    /// in the builder).
    fn extend_in(&mut self, session: &mut Session) -> Result<Option<usize>> {
        let before = session.messages.len();
        self.builder.messages = std::mem::take(&mut session.messages);
        self.builder.take_marks();
        self.read()?;
        let marks = self.builder.take_marks();
        let from = marks.merged_from.map_or(before, |m| m.min(before));
        let changed = self.finish_from(session, from, &marks)?;
        if changed.is_some() {
            session.messages = std::mem::take(&mut self.builder.messages);
        }
        Ok(changed)
    }

    /// Bytes read so far (up to the last whole line).
    pub fn offset(&self) -> u64 {
        self.growing.at.offset
    }

    fn read(&mut self) -> Result<()> {
        read_into(&self.path, &mut self.builder, &mut self.growing)
    }

    /// Finish the messages from `from` on (the builder holds them all, those before `from`
    /// finished), when nothing the new lines did reaches earlier messages. Returns the first
    /// message that changed, or `None` when the file must be read whole again.
    fn finish_from(
        &mut self,
        session: &mut Session,
        from: usize,
        marks: &Marks,
    ) -> Result<Option<usize>> {
        let main = self.parent.is_none();
        let b = &mut self.builder;
        // Anything that reaches back into the model's view, or a message merged into one a
        // cut's record was made from.
        let last_cut = session
            .compactions
            .iter()
            .flat_map(|c| [Some(c.cut_index), c.summary_index, c.applied_index])
            .flatten()
            .max();
        if marks.structural || last_cut.is_some_and(|c| from <= c) {
            return Ok(None);
        }
        // Messages read before keep their marks (a merged one too: its flags were set by them).
        if let Some(chain) = self.chain.as_mut()
            && !chain.extend(b, from)
        {
            return Ok(None);
        }
        // A boundary's logical parent that a new line supplied, or a compactor run that appeared.
        let logical_now_found = session.compactions.iter().any(|c| {
            let found = |l: &str| b.parents.contains_key(l);
            b.nodes[c.cut_index]
                .logical_parent
                .as_deref()
                .is_some_and(found)
                && b.messages[c.cut_index]
                    .detail("logical_parent")
                    .and_then(|d| d.pointer("/found").and_then(serde_json::Value::as_bool))
                    == Some(false)
        });
        if logical_now_found || (main && finish::compactor_runs(&self.path) != self.compactors) {
            return Ok(None);
        }
        finish::fill_usage(&mut b.messages[from..]);
        if let Some(chain) = &self.chain {
            for (m, off) in b.messages[from..].iter_mut().zip(&chain.marks[from..]) {
                if let Some(why) = off {
                    chain::mark_off(Arc::make_mut(m), *why);
                }
            }
        }
        let mut changed_from = from;
        if main {
            let dir = finish::runs_dir(&self.path);
            // Messages whose Task call learnt its subagent now, besides the new ones.
            let mut relink: Vec<usize> = (from..b.messages.len()).collect();
            for call in &marks.calls {
                let owner = b.messages.iter().rposition(|m| {
                    m.parts
                        .iter()
                        .any(|p| matches!(p, Part::ToolCall { id, .. } if id == call))
                });
                if let Some(i) = owner.filter(|&i| i < from) {
                    relink.push(i);
                    changed_from = changed_from.min(i);
                }
            }
            for i in relink {
                let links = finish::task_links(&dir, &b.agent_of_call, &b.messages[i]);
                let m = Arc::make_mut(&mut b.messages[i]);
                // A Task call's links are all made here (a compactor run links a boundary).
                m.links.retain(|l| l.kind != LinkKind::Subagent);
                m.links.extend(links);
            }
        }
        visibility::post_from_usage(&mut session.compactions, &b.messages);
        self.sums.update(&b.messages, from);
        let head = self.head_for_listing()?;
        let b = &self.builder;
        session.meta = finish::meta(
            &self.path,
            &self.id,
            self.parent.clone(),
            b,
            self.sums.usage(&b.messages),
            session.compactions.len(),
            &head,
        );
        Ok(Some(changed_from))
    }

    /// The head the listing reads (256 KiB), read again only while the file is shorter.
    fn head_for_listing(&mut self) -> Result<Head> {
        if let Some(h) = &self.listing_head {
            return Ok(h.clone());
        }
        let h = listing::head(&self.path)?;
        if self.growing.at.offset > listing::HEAD_BYTES as u64 {
            self.listing_head = Some(h.clone());
        }
        Ok(h)
    }
}

/// Feed the lines of `path` from where `read` stopped to `b` (up to the last line end).
fn read_into(path: &Path, b: &mut Builder, read: &mut Growing) -> Result<()> {
    read.read(path, |line| {
        b.push(line);
        true
    })?;
    b.settle();
    Ok(())
}
