//! Token counts a session's texts already have in the on-disk cache, for the counters that
//! count message by message (replay, simulation, sweep): looked up once per session in one read,
//! so a sweep over a counted 200 MB session counts only what the cache never saw. A hit is the
//! exact count of the exact text (hash and length agree), so results are those of counting.
//! Which texts a session has is `model`'s; the cache is `cache`'s.

use std::collections::HashMap;
use std::sync::Mutex;

use super::cache::{Key, TokenCache};
use super::cut::Profile;
use super::{CACHE_MIN_BYTES, Encoding};
use crate::model::{Message, Part, Session};

/// The counts the cache holds for one session's long texts, in one vocabulary.
pub struct Known {
    encoding: Encoding,
    label: String,
    counts: HashMap<Key, u64>,
    /// With [`Known::profiling`]: each text counted afresh, by its key, with the profile of
    /// each long one.
    profiles: Option<Mutex<HashMap<Key, Profile>>>,
}

/// Texts this long get a profile when a profiling [`Known`] counts them: shorter ones are never
/// cut by a cap (it keeps at least 1 000 bytes).
pub const PROFILED_MIN: usize = 1_000;

/// The texts of a part the replay counts (a call: its name and its arguments as JSON); the one
/// rule every [`super::Counter`] counts by.
pub fn texts(p: &Part) -> Vec<std::borrow::Cow<'_, str>> {
    match p {
        Part::Text { text } | Part::Thinking { text, .. } => vec![text.as_str().into()],
        Part::ToolResult { text, .. } => vec![text.text()],
        Part::ToolCall {
            name, arguments, ..
        } => vec![name.as_str().into(), arguments.to_string().into()],
        Part::Image { .. } | Part::Other { .. } => Vec::new(),
    }
}

impl Known {
    /// What `cache` knows of `session`'s texts of at least [`CACHE_MIN_BYTES`] (none without a
    /// cache, or when it cannot be read: counting then does all the work, as before).
    pub fn of(session: &Session, encoding: Encoding, cache: Option<&TokenCache>) -> Known {
        let mut counts = HashMap::new();
        if let Some(c) = cache {
            let keys: Vec<Key> = session
                .messages
                .iter()
                .flat_map(|m| m.parts.iter())
                .flat_map(texts)
                .filter(|t| t.len() >= CACHE_MIN_BYTES)
                .map(|t| Key::of(&t))
                .collect();
            if let Ok(hits) = c.get_many(encoding, &keys) {
                counts.extend(
                    keys.into_iter()
                        .zip(hits)
                        .filter_map(|(k, h)| Some((k, h?))),
                );
            }
        }
        Known {
            encoding,
            label: format!("BPE {encoding}"),
            counts,
            profiles: None,
        }
    }

    /// Keep the profile of every long text counted afresh ([`super::Counter::profile`]), for a
    /// replay that cuts them at several caps (a tune): one pass over each instead of two.
    pub fn profiling(mut self) -> Known {
        self.profiles = Some(Mutex::default());
        self
    }

    /// The tokens of `text`: the cache's count when it has one, else counted now.
    pub fn count(&self, text: &str) -> u64 {
        if text.len() >= CACHE_MIN_BYTES
            && let Some(&n) = self.counts.get(&Key::of(text))
        {
            return n;
        }
        // A profiling counter also keeps what it counted, so a replay's preparation and its
        // cost basis, which count the same texts, count each once.
        if let Some(kept) = &self.profiles
            && text.len() >= CACHE_MIN_BYTES
        {
            let key = Key::of(text);
            if let Some(p) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
                return p.total();
            }
            let p = if text.len() >= PROFILED_MIN {
                self.encoding.profile(text)
            } else {
                Profile::whole(self.encoding.count(text))
            };
            let n = p.total();
            kept.lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, p);
            return n;
        }
        self.encoding.count(text)
    }

    /// The tokens of a message, as [`super::counter::Bpe`] counts them.
    pub fn message(&self, m: &Message) -> u64 {
        m.parts.iter().flat_map(texts).map(|t| self.count(&t)).sum()
    }

    /// How many texts the cache answered.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when the cache answered none.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

impl super::Counter for Known {
    fn method(&self) -> &str {
        &self.label
    }

    fn count(&self, m: &Message) -> u64 {
        self.message(m)
    }

    // The cache holds exact counts, so a text's pieces count what its cached count says.
    fn encoding(&self) -> Option<Encoding> {
        Some(self.encoding)
    }

    fn profile(&self, text: &str) -> Option<Profile> {
        let kept = self.profiles.as_ref()?;
        kept.lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&Key::of(text))
            .cloned()
    }
}
