//! Heavy results kept per loaded session (the post-mortem, the token report): a tab visited
//! again, or opened by a second view, answers at once instead of computing again. An entry
//! belongs to one loaded copy of a session; when the session is read again (it changed on disk)
//! the entries of the old copy are dropped. What is computed is the api's.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use crate::model::Session;
use crate::rpc::IpcError;

type Entry = Arc<dyn Any + Send + Sync>;

/// The session the results belong to (weakly: the app's state owns it), which session it is
/// (its path and id), and its results by key.
type Slot = (Weak<Session>, (String, String), HashMap<String, Entry>);

fn which(session: &Session) -> (String, String) {
    (session.meta.path.clone(), session.meta.id.clone())
}

/// Results for the session loaded last.
#[derive(Default)]
pub struct Memo {
    inner: Mutex<Option<Slot>>,
}

impl Memo {
    /// `key`'s result for `session`, computed by `make` the first time (an error is not kept).
    pub fn get<T: Clone + Send + Sync + 'static>(
        &self,
        session: &Arc<Session>,
        key: &str,
        make: impl FnOnce() -> Result<T, IpcError>,
    ) -> Result<T, IpcError> {
        if let Some(hit) = self.lookup::<T>(session, key) {
            return Ok(hit);
        }
        // Computed without the lock: another view's result may be asked meanwhile.
        let value = make()?;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let same = inner
            .as_ref()
            .is_some_and(|(w, ..)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(session)));
        if !same {
            *inner = Some((Arc::downgrade(session), which(session), HashMap::new()));
        }
        if let Some((.., map)) = inner.as_mut() {
            map.insert(key.to_owned(), Arc::new(value.clone()));
        }
        Ok(value)
    }

    /// [`Memo::get`] for a result that may not exist yet (`None`: not kept, asked again next
    /// time): once it exists it is kept like any other.
    pub fn get_some<T: Clone + Send + Sync + 'static>(
        &self,
        session: &Arc<Session>,
        key: &str,
        make: impl FnOnce() -> Option<T>,
    ) -> Option<T> {
        if let Some(hit) = self.lookup::<T>(session, key) {
            return Some(hit);
        }
        let value = make()?;
        self.get(session, key, || Ok(value)).ok()
    }

    /// Carry `key`'s result, kept for an earlier copy of `session` (one the live follower
    /// has changed since, gone or not), over to `session`; the other results stay behind.
    /// Only for a result that holds for every copy of a session: the token counts answer per
    /// message by what its texts hash to, so the views need not count it again after a line.
    pub fn carry(&self, session: &Arc<Session>, key: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Some((w, who, map)) = inner.as_ref() else {
            return;
        };
        if std::ptr::eq(w.as_ptr(), Arc::as_ptr(session)) || *who != which(session) {
            return;
        }
        let Some(value) = map.get(key).cloned() else {
            return;
        };
        let results = HashMap::from([(key.to_owned(), value)]);
        *inner = Some((Arc::downgrade(session), which(session), results));
    }

    fn lookup<T: Clone + 'static>(&self, session: &Arc<Session>, key: &str) -> Option<T> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (w, _, map) = inner.as_ref()?;
        // A dropped copy's address may be reused: the weak pointer must still be alive.
        let alive = w.upgrade()?;
        if !Arc::ptr_eq(&alive, session) {
            return None;
        }
        map.get(key)?.downcast_ref::<T>().cloned()
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Session, SourceFormat};

    use super::*;

    fn session(id: &str) -> Arc<Session> {
        Arc::new(Session::in_memory(
            id,
            SourceFormat::ClaudeCode,
            Vec::new(),
            Vec::new(),
        ))
    }

    #[test]
    fn a_result_that_holds_for_every_copy_is_carried_to_a_later_copy_of_the_same_session() {
        let memo = Memo::default();
        let (old, later, other) = (session("a"), session("a"), session("b"));
        memo.get(&old, "session_counts", || Ok(7_u32)).unwrap();
        memo.get(&old, "post_mortem", || Ok(1_u32)).unwrap();
        memo.carry(&other, "session_counts");
        assert_eq!(
            memo.get_some::<u32>(&other, "session_counts", || None),
            None,
            "another session's counts are not carried to it"
        );
        drop(old);
        memo.carry(&later, "session_counts");
        assert_eq!(
            memo.get_some::<u32>(&later, "session_counts", || None),
            Some(7),
            "the counts go across, though the earlier copy is gone"
        );
        assert_eq!(
            memo.get_some::<u32>(&later, "post_mortem", || None),
            None,
            "a result made from the earlier copy's messages does not"
        );
    }
}
