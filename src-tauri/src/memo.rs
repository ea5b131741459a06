//! Heavy results kept per loaded session (the post-mortem, the token report): a tab visited
//! again, or opened by a second view, answers at once instead of computing again. An entry
//! belongs to one loaded copy of a session; when the session is read again (it changed on disk)
//! the entries of the old copy are dropped. What is computed is core's.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use palimpsest_core::model::Session;
use palimpsest_core::rpc::IpcError;

type Entry = Arc<dyn Any + Send + Sync>;

/// The session the results belong to (weakly: the app's state owns it) and its results by key.
type Slot = (Weak<Session>, HashMap<String, Entry>);

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
            .is_some_and(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(session)));
        if !same {
            *inner = Some((Arc::downgrade(session), HashMap::new()));
        }
        if let Some((_, map)) = inner.as_mut() {
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

    /// `key`'s result for `session` when one is kept, computing nothing.
    pub fn peek<T: Clone + 'static>(&self, session: &Arc<Session>, key: &str) -> Option<T> {
        self.lookup(session, key)
    }

    fn lookup<T: Clone + 'static>(&self, session: &Arc<Session>, key: &str) -> Option<T> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (w, map) = inner.as_ref()?;
        // A dropped copy's address may be reused: the weak pointer must still be alive.
        let alive = w.upgrade()?;
        if !Arc::ptr_eq(&alive, session) {
            return None;
        }
        map.get(key)?.downcast_ref::<T>().cloned()
    }
}
