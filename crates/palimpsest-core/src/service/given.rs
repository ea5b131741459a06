//! What of the session the window keeps the index may take instead of reading its file: the
//! copy as read, or the live follower's read on to the file's end (`slot::Kept::given`). Part of
//! [`SessionService`]; when the index is updated is `indexing`'s.

use super::SessionService;
use super::slot::Kept;

impl SessionService {
    /// Session `id` under `path` as the slot holds it read from its file, for the index
    /// (`Kept::given`); `None` while a read holds the slot.
    pub fn given(&self, path: &str, id: &str) -> Option<super::indexing::Read> {
        let slot = self.loaded.try_lock().ok()?;
        read_of(slot.as_ref().filter(|k| k.is(path, id))?)
    }

    /// The session the window keeps, as the index may take it instead of reading its file
    /// (`Kept::given`, upgraded): none while a read holds the slot (never waits).
    pub fn given_kept(&self) -> Vec<crate::index::Given> {
        let slot = self.loaded.try_lock().ok();
        slot.as_ref()
            .and_then(|s| read_of(s.as_ref()?))
            .and_then(super::indexing::Read::upgrade)
            .into_iter()
            .collect()
    }
}

/// What the index may take of `kept` (`Kept::given`), with a weak handle on the session.
fn read_of(kept: &Kept) -> Option<super::indexing::Read> {
    let (file, print, session) = kept.given()?;
    Some(super::indexing::Read {
        id: kept.id().to_owned(),
        file: file.into(),
        print,
        session,
    })
}
