//! What a caller that keeps a followed session in memory (the app) does to its copy after a
//! change, instead of reading the session again: a [`Patch`] from [`super::Tracker`].
//!
//! A transcript that grew by a line gives the messages from the first one that changed on,
//! with the listing entry and the cuts' records; the copy keeps everything before. Anything
//! else (a session read whole again) gives the whole session. A patch that does not fit the
//! copy (it was read at another moment) says so, and the caller reads the session again.
//!
//! A transcript the tracker keeps to read on from also comes with where the tracker keeps it
//! ([`Current`]): a caller may read that instead of keeping a copy of its own (the app does,
//! so a followed 200 MB session is in memory once, not twice), and, when the read reached the
//! file's end, the file's fingerprint then ([`Printed`]): while the file stays so, that session
//! is the file's, and the index may take it instead of reading the file.

use std::sync::Arc;

use crate::index::fingerprint::Fingerprint;
use crate::model::{CompactionRecord, Current, Message, Session, SessionMeta};

/// The file a followed transcript was read from and its fingerprint once the read reached its
/// end (a line still being written leaves none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    /// The transcript.
    pub file: String,
    /// Its fingerprint right after the read, whose size is what was read.
    pub print: Fingerprint,
}

/// A change to one session, as a copy of it takes it.
#[derive(Debug, Clone)]
pub enum Patch {
    /// The session as it is now, the caller's to keep (the tracker keeps none).
    Whole(Arc<Session>),
    /// Messages from a given one on replaced.
    Tail(Box<Tail>),
    /// A transcript the tracker keeps, read whole: where it keeps it.
    Shared {
        /// The session id.
        session_id: String,
        /// The session as the tracker keeps it.
        current: Arc<Current>,
        /// The file as read, when the read reached its end.
        printed: Option<Printed>,
    },
}

/// Messages from `from` on replaced, for a copy that held `base_len` messages.
#[derive(Debug, Clone)]
pub struct Tail {
    /// The session id.
    pub session_id: String,
    /// How many messages the copy held.
    pub base_len: usize,
    /// The first message that changed.
    pub from: usize,
    /// The messages from `from` to the end, as they are now (shared with the session).
    pub messages: Vec<std::sync::Arc<Message>>,
    /// The listing entry now.
    pub meta: SessionMeta,
    /// The cuts now (a record may have learnt its size after).
    pub compactions: Vec<CompactionRecord>,
    /// The session as the tracker keeps it, this change made.
    pub current: Arc<Current>,
    /// The file as read, when the read reached its end.
    pub printed: Option<Printed>,
}

impl Patch {
    /// The session it is for.
    pub fn session_id(&self) -> &str {
        match self {
            Patch::Whole(s) => &s.meta.id,
            Patch::Tail(t) => &t.session_id,
            Patch::Shared { session_id, .. } => session_id,
        }
    }

    /// Where the tracker keeps the session, when it keeps it: a caller may read it there
    /// instead of applying the patch to a copy of its own.
    pub fn current(&self) -> Option<&Arc<Current>> {
        match self {
            Patch::Whole(_) => None,
            Patch::Tail(t) => Some(&t.current),
            Patch::Shared { current, .. } => Some(current),
        }
    }

    /// The file the session was read from and its fingerprint, when the read reached the
    /// file's end: what the index needs to take the session kept in [`Patch::current`].
    pub fn printed(&self) -> Option<&Printed> {
        match self {
            Patch::Whole(_) => None,
            Patch::Tail(t) => t.printed.as_ref(),
            Patch::Shared { printed, .. } => printed.as_ref(),
        }
    }

    /// Apply it to `copy`; false (and `copy` untouched) when it does not fit: another
    /// session, or a copy read at another moment than the one the patch starts from.
    pub fn apply(&self, copy: &mut Session) -> bool {
        match self {
            Patch::Whole(s) => {
                if s.meta.id != copy.meta.id {
                    return false;
                }
                *copy = Session::clone(s);
                true
            }
            Patch::Shared {
                session_id,
                current,
                printed: _,
            } => {
                if *session_id != copy.meta.id {
                    return false;
                }
                *copy = Session::clone(&current.now());
                true
            }
            Patch::Tail(t) => {
                let Tail {
                    session_id,
                    base_len,
                    from,
                    messages,
                    meta,
                    compactions,
                    current: _,
                    printed: _,
                } = &**t;
                if *session_id != copy.meta.id
                    || copy.messages.len() != *base_len
                    || *from > *base_len
                {
                    return false;
                }
                copy.messages.truncate(*from);
                copy.messages.extend(messages.iter().cloned());
                copy.meta = meta.clone();
                copy.compactions = compactions.clone();
                true
            }
        }
    }
}
