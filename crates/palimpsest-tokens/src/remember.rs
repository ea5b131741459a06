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
    /// Counts found at once by [`Counter::recall`], by their sources' keys.
    recalled: Mutex<std::collections::HashMap<Key, u64>>,
}

impl Remembering {
    /// `counted`, with `cache` (when there is one) behind the texts it does not hold.
    pub fn new(counted: Counted, cache: Option<TokenCache>) -> Remembering {
        Remembering {
            encoding: counted.encoding(),
            counted,
            cache: cache.map(Mutex::new),
            fresh: Mutex::new(Vec::new()),
            recalled: Mutex::default(),
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
        if t.len() < CACHE_MIN_BYTES {
            return self.encoding.count(t);
        }
        self.remembered(Key::of(t), || self.encoding.count(t))
    }

    /// The count kept under `key` (recalled at once, or looked up), else `count()`, kept to
    /// be written. Without a cache, `count()`.
    fn remembered(&self, key: Key, count: impl FnOnce() -> u64) -> u64 {
        let Some(cache) = self.cache.as_ref() else {
            return count();
        };
        let recalled = self.recalled.lock().ok().and_then(|r| r.get(&key).copied());
        let hit = recalled.or_else(|| {
            cache
                .lock()
                .ok()
                .and_then(|c| c.get_many(self.encoding, std::slice::from_ref(&key)).ok())
                .and_then(|v| v.into_iter().next().flatten())
        });
        hit.unwrap_or_else(|| {
            let n = count();
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

    fn recall(&self, sources: &[&[u8]]) {
        let Some(cache) = self.cache.as_ref() else {
            return;
        };
        let keys: Vec<Key> = sources
            .iter()
            .filter(|s| s.len() >= CACHE_MIN_BYTES)
            .map(|s| Key::of_source(s))
            .collect();
        let Some(hits) = cache
            .lock()
            .ok()
            .and_then(|c| c.get_many(self.encoding, &keys).ok())
        else {
            return;
        };
        if let Ok(mut recalled) = self.recalled.lock() {
            recalled.extend(
                keys.into_iter()
                    .zip(hits)
                    .filter_map(|(k, n)| Some((k, n?))),
            );
        }
    }

    fn count_from(&self, source: &[u8], probe: &dyn Fn() -> Message) -> u64 {
        if source.len() < CACHE_MIN_BYTES {
            return self.count(&probe());
        }
        self.remembered(Key::of_source(source), || self.count(&probe()))
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::testkit::{result, seed_five_session};

    fn counter(dir: &std::path::Path) -> Remembering {
        let s = seed_five_session();
        let counted = Counted::from_tokens(&s, &[0; 5], Encoding::O200kBase);
        Remembering::new(counted, Some(TokenCache::open(dir).unwrap()))
    }

    #[test]
    fn a_message_known_by_its_source_is_counted_once_and_then_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let text = "collected 12 items\n".repeat(20);
        let want = Encoding::O200kBase.count(&text);
        let made = Cell::new(0);
        let probe = || {
            made.set(made.get() + 1);
            result(4, "c9", &text)
        };
        let source = vec![7u8; CACHE_MIN_BYTES];
        let first = counter(dir.path());
        assert_eq!(first.count_from(&source, &probe), want);
        assert_eq!(made.get(), 1);
        first.keep();

        // The next view finds it under its source, one by one or all at once, and never
        // makes the message again.
        let never = || -> Message { panic!("made again") };
        let next = counter(dir.path());
        assert_eq!(next.count_from(&source, &never), want);
        let recalled = counter(dir.path());
        recalled.recall(&[&source[..], &[1u8; CACHE_MIN_BYTES][..]]);
        assert_eq!(recalled.recalled.lock().unwrap().len(), 1);
        assert_eq!(recalled.count_from(&source, &never), want);

        // Another source is another message; a short one is not kept at all.
        let other = counter(dir.path());
        assert_eq!(other.count_from(&[8u8; CACHE_MIN_BYTES], &probe), want);
        assert_eq!(other.count_from(&[7u8; 16], &probe), want);
        other.keep();
        assert_eq!(made.get(), 3);
        let again = counter(dir.path());
        assert_eq!(again.count_from(&[7u8; 16], &probe), want);
        assert_eq!(made.get(), 4);
    }
}
