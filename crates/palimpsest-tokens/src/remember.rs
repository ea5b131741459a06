//! A session's counts ([`Counted`]) for a view that also counts texts the session does not hold
//! as they are (a cleared result's stored text, a capped result): each such long text is looked
//! up in the token cache, and what had to be counted afresh is written there when the view is
//! made ([`Remembering::keep`]). The index makes a session's cut view at every update; without
//! this, a session of hundreds of microcompacts counted every cleared result again each time.
//! Which texts a message has is `known`'s; the cache is `cache`'s.

use std::sync::Mutex;

use super::cache::{Key, TokenCache};
use super::counter::{Counted, Counter};
use super::{CACHE_MIN_BYTES, Encoding};
use crate::model::Message;

/// [`Counted`], with a token cache behind what it counts afresh.
pub struct Remembering {
    counted: Counted,
    encoding: Encoding,
    /// The cache; a connection is used by one thread at a time.
    cache: Option<Mutex<TokenCache>>,
    /// Long texts counted here, to write to the cache.
    fresh: Mutex<Vec<(Key, u64)>>,
}

impl Remembering {
    /// `counted`, with `cache` (when there is one) behind the texts it does not hold.
    pub fn new(counted: Counted, cache: Option<TokenCache>) -> Remembering {
        Remembering {
            encoding: counted.encoding(),
            counted,
            cache: cache.map(Mutex::new),
            fresh: Mutex::new(Vec::new()),
        }
    }

    /// Write what was counted afresh to the cache. A cache that cannot be written costs the
    /// next update the same count again, never a wrong number.
    pub fn keep(self) {
        let fresh = self.fresh.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(cache) = self.cache {
            let cache = cache.into_inner().unwrap_or_else(|e| e.into_inner());
            let _ = cache.put_many(self.encoding, &fresh);
        }
    }

    fn text(&self, t: &str) -> u64 {
        let Some(cache) = self.cache.as_ref().filter(|_| t.len() >= CACHE_MIN_BYTES) else {
            return self.encoding.count(t);
        };
        let key = Key::of(t);
        let hit = cache
            .lock()
            .ok()
            .and_then(|c| c.get_many(self.encoding, std::slice::from_ref(&key)).ok())
            .and_then(|v| v.into_iter().next().flatten());
        hit.unwrap_or_else(|| {
            let n = self.encoding.count(t);
            if let Ok(mut fresh) = self.fresh.lock() {
                fresh.push((key, n));
            }
            n
        })
    }
}

impl Counter for Remembering {
    fn method(&self) -> &str {
        self.counted.method()
    }

    fn count(&self, m: &Message) -> u64 {
        self.counted.stored(m).unwrap_or_else(|| {
            m.parts
                .iter()
                .flat_map(super::known::texts)
                .map(|t| self.text(&t))
                .sum()
        })
    }
}
