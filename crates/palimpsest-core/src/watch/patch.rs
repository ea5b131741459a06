//! What a caller that keeps a followed session in memory (the app) does to its copy after a
//! change, instead of reading the session again: a [`Patch`] from [`super::Tracker`].
//!
//! A transcript that grew by a line gives the messages from the first one that changed on,
//! with the listing entry and the cuts' records; the copy keeps everything before. Anything
//! else (a session read whole again) gives the whole session. A patch that does not fit the
//! copy (it was read at another moment) says so, and the caller reads the session again.

use std::sync::Arc;

use crate::model::{CompactionRecord, Message, Session, SessionMeta};

/// A change to one session, as a copy of it takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Patch {
    /// The session as it is now.
    Whole(Arc<Session>),
    /// Messages from a given one on replaced.
    Tail(Box<Tail>),
}

/// Messages from `from` on replaced, for a copy that held `base_len` messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Tail {
    /// The session id.
    pub session_id: String,
    /// How many messages the copy held.
    pub base_len: usize,
    /// The first message that changed.
    pub from: usize,
    /// The messages from `from` to the end, as they are now.
    pub messages: Vec<Message>,
    /// The listing entry now.
    pub meta: SessionMeta,
    /// The cuts now (a record may have learnt its size after).
    pub compactions: Vec<CompactionRecord>,
}

impl Patch {
    /// The session it is for.
    pub fn session_id(&self) -> &str {
        match self {
            Patch::Whole(s) => &s.meta.id,
            Patch::Tail(t) => &t.session_id,
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
            Patch::Tail(t) => {
                let Tail {
                    session_id,
                    base_len,
                    from,
                    messages,
                    meta,
                    compactions,
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
