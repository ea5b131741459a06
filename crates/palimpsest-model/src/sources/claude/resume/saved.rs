//! A [`Resumable`] written to a file and read back by another process, so a transcript that
//! grew since is read from where the last read stopped, not from its first line: the CLI's
//! `index` of a session an agent is still writing.
//!
//! Everything the reader keeps is written: the builder (per-message nodes, the uuid table,
//! counts, titles), the walk of the active chain, the usage sums, where the read stopped and
//! the file's first bytes (`jsonl::Growing`), and the session itself, its packed texts as
//! their bytes (`model::snap`). MessagePack, positional, in the frame of `sources::kept`
//! (header, then a checksum: a snapshot cut short, damaged, or of another build is refused,
//! and the caller reads the transcript whole). Where snapshots live and which are kept is the
//! index's business (`index::snapshots`).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Resumable;
use crate::error::{Error, Result};
use crate::model::snap::{MessageIn, MessagesOut};
use crate::model::{CompactionRecord, Current, Session, SessionMeta};
use crate::sources::claude::build::Builder;
use crate::sources::claude::chain::Chain;
use crate::sources::claude::finish::UsageSums;
use crate::sources::claude::listing::Head;
use crate::sources::jsonl::Growing;
use crate::sources::kept::{self, Framed, refused};

#[derive(Serialize)]
struct Out<'a> {
    parent: &'a Option<String>,
    builder: &'a Builder,
    meta: String,
    messages: MessagesOut<'a, std::sync::Arc<crate::model::Message>>,
    compactions: String,
    chain: &'a Option<Chain>,
    sums: &'a UsageSums,
    compactors: &'a [PathBuf],
    listing_head: &'a Option<Head>,
    growing: &'a Growing,
}

#[derive(Deserialize)]
struct In {
    parent: Option<String>,
    builder: Builder,
    meta: String,
    messages: Vec<MessageIn>,
    compactions: String,
    chain: Option<Chain>,
    sums: UsageSums,
    compactors: Vec<PathBuf>,
    listing_head: Option<Head>,
    growing: Growing,
}

impl Resumable {
    /// Write what this reader keeps to `to` (see the module docs).
    pub fn save(&self, to: &mut dyn Write) -> Result<()> {
        let session = self.current.now();
        let bad = |e: String| Error::format(&self.path, format!("writing its snapshot: {e}"));
        let out = Out {
            parent: &self.parent,
            builder: &self.builder,
            meta: serde_json::to_string(&session.meta).map_err(|e| bad(e.to_string()))?,
            messages: MessagesOut(&session.messages),
            compactions: serde_json::to_string(&session.compactions)
                .map_err(|e| bad(e.to_string()))?,
            chain: &self.chain,
            sums: &self.sums,
            compactors: &self.compactors,
            listing_head: &self.listing_head,
            growing: &self.growing,
        };
        kept::write(to, "claude", &self.path, &self.id, &out)
    }

    /// The reader whose state follows the header in `r` (read back by
    /// [`crate::sources::Resumable::restore`]).
    pub(crate) fn restore_body(
        r: Framed<'_>,
        snapshot: &Path,
        file: &Path,
        id: &str,
    ) -> Result<Self> {
        let bad = |e: &str| refused(snapshot, e);
        let saved: In = r.body(snapshot)?;
        let meta: SessionMeta =
            serde_json::from_str(&saved.meta).map_err(|e| bad(&e.to_string()))?;
        let compactions: Vec<CompactionRecord> =
            serde_json::from_str(&saved.compactions).map_err(|e| bad(&e.to_string()))?;
        let messages: Vec<_> = saved.messages.into_iter().map(|m| m.0).collect();
        // What `extend` indexes by must agree, or a damaged snapshot would panic there.
        let n = messages.len();
        let agrees = saved.builder.nodes.len() == n
            && saved.builder.messages.is_empty()
            && saved.sums.len() == n
            && saved.chain.as_ref().is_none_or(|c| c.marks.len() == n)
            && compactions.iter().all(|c| c.cut_index < n);
        if !agrees {
            return Err(bad("its parts do not agree on the number of messages"));
        }
        Ok(Resumable {
            path: file.to_owned(),
            id: id.to_owned(),
            parent: saved.parent,
            builder: saved.builder,
            current: Current::new(Session {
                meta,
                messages,
                compactions,
            }),
            chain: saved.chain,
            sums: saved.sums,
            compactors: saved.compactors,
            listing_head: saved.listing_head,
            growing: saved.growing,
        })
    }
}
