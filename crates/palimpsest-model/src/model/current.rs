//! A session that changes while it is read: one copy shared by the reader that keeps it up to
//! date (a transcript followed live, `sources::claude::resume`) and the callers that read it
//! (the app's window), instead of a copy each.
//!
//! A caller takes the session as it is now ([`Current::now`]) and keeps that for as long as it
//! reads: a change never happens under it. The writer takes the session out to change it and
//! puts the changed one back as a new `Arc`, so results kept for the old one (keyed by it) are
//! not taken for the new one. When nobody holds the old one, no copy is made; when a reader
//! still does, the writer changes a copy and the reader's goes when it lets go. That copy
//! shares every message with the reader's (a pointer each, [`Session::messages`]): only the
//! messages the change reaches are copied, so a reader that holds a 2 GB session for seconds
//! does not make the next line wait for a copy of it. What a change is, and when it comes, is
//! the writer's.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::Session;

/// The session as it is now.
#[derive(Debug)]
pub struct Current(Mutex<Arc<Session>>);

impl Current {
    /// A session as first read.
    pub fn new(session: Session) -> Arc<Current> {
        Arc::new(Current(Mutex::new(Arc::new(session))))
    }

    /// The session as it is now; a later change goes to a new copy, never to this one. Waits
    /// while the writer changes it (a line's worth of work, or the read of a file its change
    /// sent back to the start).
    pub fn now(&self) -> Arc<Session> {
        Arc::clone(&self.lock())
    }

    /// Change the session: `change` gets it to own (taken out, not copied, when no reader
    /// holds it) and gives back what it is now. Readers wait meanwhile, so none sees it half
    /// made.
    pub fn change<T>(&self, change: impl FnOnce(Session) -> (Session, T)) -> T {
        let mut held = self.lock();
        // Taken out, so the lock's handle is not one more holder of it (a reader holding it
        // keeps it, and only then is it copied); its listing stands in meanwhile.
        let stand_in = Session {
            meta: held.meta.clone(),
            messages: Vec::new(),
            compactions: Vec::new(),
        };
        let taken = std::mem::replace(&mut *held, Arc::new(stand_in));
        let (now, out) = change(Arc::unwrap_or_clone(taken));
        *held = Arc::new(now);
        out
    }

    fn lock(&self) -> MutexGuard<'_, Arc<Session>> {
        // A writer that panicked left its stand-in: a listing without messages, safe to read.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
