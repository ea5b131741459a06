//! A transcript read ahead for a [`Tracker`], so the first line appended to it costs that line.
//!
//! A tracker reads a growing Claude Code transcript whole the first time it changes (it has
//! read nothing yet to go on from): 3 s on 200 MB. A caller that knows which session will be
//! watched (the app, for the session it shows while an agent writes it) reads it ahead on its
//! own thread ([`Primed::read`]) and hands it to the tracker ([`Tracker::adopt`]), which then
//! goes on from there. The tracker takes it only when its baseline describes the same state of
//! the file, so no change is lost or reported twice.

use std::path::Path;
use std::sync::Arc;

use super::{RESUMABLE, Seen, Tracker, fingerprint};
use crate::api;
use crate::error::Result;
use crate::index::fingerprint::Fingerprint;
use crate::model::{Current, Session, SessionMeta, SourceFormat};
use crate::sources::claude::resume::Resumable;

/// A transcript read whole, with what a tracker remembers of it.
pub struct Primed {
    id: String,
    reader: Resumable,
    /// What a tracker remembers of it, the listing of the file as it was read included.
    seen: Seen,
}

impl Primed {
    /// Read the transcript of session `meta` whole, as a tracker would at its first change.
    /// `None` for a session that is not a Claude Code transcript (nothing to read on from), or
    /// when the file changed while it was read (a tracker then reads it itself).
    pub fn read(meta: &SessionMeta) -> Result<Option<Primed>> {
        Self::read_with(meta, |_, _| {})
    }

    /// [`Primed::read`], giving `first` where the session lives as soon as it is read, before
    /// what a tracker remembers of it is made (a listing of the file, every message's
    /// fingerprint): a caller that keeps it too (the app's window) has it that much sooner,
    /// and shares it with the tracker that adopts this read instead of copying it. `first` also
    /// gets the file's fingerprint from before the read, for an index update to take this copy
    /// while the file is still as it was ([`crate::index::Given`]).
    pub fn read_with(
        meta: &SessionMeta,
        first: impl FnOnce(Arc<Current>, Option<Fingerprint>),
    ) -> Result<Option<Primed>> {
        if meta.format != SourceFormat::ClaudeCode {
            return Ok(None);
        }
        let path = Path::new(&meta.path);
        let size = || std::fs::metadata(path).map(|m| m.len()).ok();
        let print = Fingerprint::of(path).ok();
        let before = print.as_ref().map(|p| p.size);
        let reader = Resumable::open(path, &meta.id, meta.parent_id.clone())?;
        first(reader.shared(), print);
        // The listing the tracker compares with (from the index when it holds the file as it
        // is, as the tracker's own), of these same bytes. A listing of the file itself too: the
        // tracker lists the grown file at its first change, and a big file's count then goes
        // on from this one's instead of reading it all (`sources::claude::tally`).
        api::list_sessions(path)?;
        let listed = api::list_sessions_indexed(path)?
            .sessions
            .into_iter()
            .find(|m| m.id == meta.id);
        let (Some(listed), true) = (listed, before.is_some() && size() == before) else {
            return Ok(None);
        };
        let session = reader.session();
        let seen = Seen {
            listing: (listed.message_count, listed.updated),
            file: super::stamp(&meta.path),
            fingerprints: Some(session.iter().map(fingerprint).collect()),
            visibility: session
                .messages
                .iter()
                .map(|m| (m.agent_visible, m.user_visible))
                .collect(),
            compactions: session.compactions.len(),
            provisional: false,
        };
        Ok(Some(Primed {
            id: meta.id.clone(),
            reader,
            seen,
        }))
    }

    /// The session read.
    pub fn session_id(&self) -> &str {
        &self.id
    }

    /// The session as the read made it: the same as loading it whole.
    pub fn session(&self) -> Arc<Session> {
        self.reader.session()
    }
}

impl Tracker {
    /// Go on from `primed` at the session's next change instead of reading it whole. Taken
    /// only when the tracker has not read the session yet and its baseline listing is the one
    /// the primed read made (no change since, so nothing is skipped), or its baseline is the
    /// index's older one ([`Tracker::following`]: the caller shows the primed read itself);
    /// returns whether it was.
    pub fn adopt(&mut self, primed: Primed) -> bool {
        let Primed { id, reader, seen } = primed;
        let fits = self.seen.get(&id).is_some_and(|s| {
            s.fingerprints.is_none() && (s.listing == seen.listing || s.provisional)
        });
        if !fits || self.resumable.iter().any(|(i, _)| *i == id) {
            return false;
        }
        self.seen.insert(id.clone(), seen);
        if self.resumable.len() >= RESUMABLE {
            self.resumable.remove(0);
        }
        self.resumable.push((id, reader));
        true
    }
}
