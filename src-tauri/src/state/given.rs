//! What of the session the window keeps the index may take instead of reading its file: the
//! copy as read, or the live follower's read on to the file's end (`slot::Kept::given`). Part of
//! [`AppState`]; when the index is updated is `indexing`'s and the commands'.

use super::AppState;

impl AppState {
    /// Session `id` under `path` as the slot holds it read from its file, for the index
    /// ([`crate::slot::Kept::given`]); `None` while a read holds the slot.
    pub fn given(&self, path: &str, id: &str) -> Option<crate::indexing::Read> {
        let slot = self.loaded.try_lock().ok()?;
        let kept = slot.as_ref().filter(|k| k.is(path, id))?;
        let (file, print, session) = kept.given()?;
        Some(crate::indexing::Read {
            id: id.to_owned(),
            file: file.into(),
            print,
            session,
        })
    }

    /// The session the window keeps, as the index may take it instead of reading its file
    /// ([`AppState::given`], upgraded): none while a read holds the slot (never waits).
    pub fn given_kept(&self) -> Vec<palimpsest_core::index::Given> {
        let kept = self.loaded.try_lock().ok().and_then(|slot| {
            let k = slot.as_ref()?;
            Some((k.path().to_owned(), k.id().to_owned()))
        });
        kept.and_then(|(path, id)| self.given(&path, &id))
            .and_then(crate::indexing::Read::upgrade)
            .into_iter()
            .collect()
    }
}
