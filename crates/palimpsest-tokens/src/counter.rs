//! The one abstraction every view counts a message's tokens through: [`Counter`]. Three kinds
//! stand behind it, each saying how it counts ([`Counter::method`]):
//! - [`CharEstimate`], characters / 4: the only estimate, used before a session is counted and
//!   labelled as one wherever it is shown;
//! - [`Counted`], the Tokens tab's BPE counts of a session's own messages (its pieces summed,
//!   what the index keeps per message), once the token cache holds them all ([`counted`]); a
//!   message made from a stored one (a restored or capped result) is counted afresh in BPE;
//! - [`super::known::Known`] and [`Bpe`], BPE of any message, for replays that count messages
//!   the session never held (summaries, capped results).
//!
//! Which texts a message has is [`super::known::texts`]; the vocabulary is [`super::bpe`].
//! Any `Fn(&Message) -> u64` is a counter too (tests and benches pass closures).

use super::Encoding;
use super::cache::{Key, TokenCache};
use crate::model::{Message, Part, Session};

/// Counts the tokens of one message as the model receives it.
pub trait Counter: Sync {
    /// How the counts are made, shown next to the numbers ("BPE o200k_base", or
    /// "estimate: characters / 4").
    fn method(&self) -> &str;
    /// The tokens of `m`.
    fn count(&self, m: &Message) -> u64;
    /// The BPE encoding every text is counted in, when the count is BPE's alone (a cut of a
    /// long text is then counted from its pieces, [`crate::cut`]); `None` otherwise.
    fn encoding(&self) -> Option<super::Encoding> {
        None
    }
    /// The profile of `text` this counter made while counting it, if it kept one (a long text
    /// counted afresh by a profiling [`crate::known::Known`]): its cuts are then counted
    /// without a second pass over it.
    fn profile(&self, _text: &str) -> Option<crate::cut::Profile> {
        None
    }
    /// The tokens of message `probe` makes, one the session does not hold (a cleared result
    /// with its stored text back), known by `source`: bytes the message is the one function
    /// of. A counter that remembers ([`crate::remember::Remembering`]) looks `source` up
    /// first, so a message counted once is not made again.
    fn count_from(&self, _source: &[u8], probe: &dyn Fn() -> Message) -> u64 {
        self.count(&probe())
    }
    /// Look up at once the counts of the messages known by `sources` that
    /// [`count_from`](Self::count_from) will ask for (one lookup each was most of a cut view
    /// of hundreds of microcompacts).
    fn recall(&self, _sources: &[&[u8]]) {}
}

/// The label of chars / 4.
pub const ESTIMATE: &str = "estimate: characters / 4";

/// The one estimate rule: `chars` characters are about `chars / 4` tokens, rounded up.
pub fn estimate(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

/// Characters / 4, rounded up, over every text the model reads in a message: an estimate,
/// labelled as one. Crude, but monotone and free.
#[derive(Debug, Clone, Copy, Default)]
pub struct CharEstimate;

impl Counter for CharEstimate {
    fn method(&self) -> &str {
        ESTIMATE
    }

    fn count(&self, m: &Message) -> u64 {
        let chars: usize = m
            .parts
            .iter()
            .flat_map(super::known::texts)
            .map(|t| t.chars().count())
            .sum();
        estimate(chars)
    }
}

/// BPE in one vocabulary, every text counted afresh.
#[derive(Debug, Clone)]
pub struct Bpe {
    encoding: Encoding,
    label: String,
}

impl Bpe {
    /// A counter in `encoding`.
    pub fn new(encoding: Encoding) -> Bpe {
        Bpe {
            encoding,
            label: format!("BPE {encoding}"),
        }
    }
}

impl Counter for Bpe {
    fn method(&self) -> &str {
        &self.label
    }

    fn encoding(&self) -> Option<Encoding> {
        Some(self.encoding)
    }

    fn count(&self, m: &Message) -> u64 {
        m.parts
            .iter()
            .flat_map(super::known::texts)
            .map(|t| self.encoding.count(&t))
            .sum()
    }
}

/// A closure is a counter whose method is not named.
impl<F: Fn(&Message) -> u64 + Sync> Counter for F {
    fn method(&self) -> &str {
        "custom"
    }

    fn count(&self, m: &Message) -> u64 {
        self(m)
    }
}

/// The Tokens tab's BPE counts of one session's messages, by stored index. A message is
/// answered from them only as the session stores it (its texts hash the same): a copy made
/// from it (a cleared result with its text restored, a capped result) is counted afresh in
/// the same vocabulary, never given the stored message's number.
#[derive(Debug, Clone)]
pub struct Counted {
    by_index: Vec<Option<(u64, u64)>>,
    bpe: Bpe,
}

/// What a message's texts hash to: tells the stored message from a copy with other content.
fn fingerprint(m: &Message) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in &m.parts {
        if let Part::ToolResult { text, .. } = p {
            // As held (its frame when packed): one text is held one way, so this tells texts
            // apart without unpacking every result of every message a sweep counts.
            h.update(text.held());
            h.update(&[0xfe]);
            continue;
        }
        for t in super::known::texts(p) {
            h.update(t.as_bytes());
            h.update(&[0xff]);
        }
    }
    h.digest()
}

/// Zero tokens and the fingerprint of each stored message, by its index.
fn printed(session: &Session) -> Vec<Option<(u64, u64)>> {
    let len = session
        .messages
        .iter()
        .map(|m| m.index + 1)
        .max()
        .unwrap_or(0);
    let mut by_index = vec![None; len];
    for m in &session.messages {
        by_index[m.index] = Some((0, fingerprint(m)));
    }
    by_index
}

impl Counted {
    /// The counts a whole count of `session` just made (`tokens[i]`: its `i`-th message's, as
    /// [`super::SessionCounts::per_message`] sums them), as [`counted`] would read them back
    /// from the cache it filled.
    pub fn from_tokens(session: &Session, tokens: &[u64], encoding: Encoding) -> Counted {
        let mut by_index = printed(session);
        for (m, n) in session.messages.iter().zip(tokens) {
            if let Some(Some((t, _))) = by_index.get_mut(m.index) {
                *t = *n;
            }
        }
        Counted {
            by_index,
            bpe: Bpe::new(encoding),
        }
    }

    /// The tokens of `m` when it is the session's message as stored (not a copy with other
    /// content); `None` for a message to count afresh.
    pub fn stored(&self, m: &Message) -> Option<u64> {
        match self.by_index.get(m.index) {
            Some(Some((n, print))) if *print == fingerprint(m) => Some(*n),
            _ => None,
        }
    }

    /// The encoding these counts are in.
    pub fn encoding(&self) -> Encoding {
        self.bpe.encoding
    }

    /// The tokens of the message stored at `index`, when the session holds it.
    pub fn of_index(&self, index: usize) -> Option<u64> {
        self.by_index.get(index).copied().flatten().map(|(n, _)| n)
    }
}

impl Counter for Counted {
    fn method(&self) -> &str {
        self.bpe.method()
    }

    fn count(&self, m: &Message) -> u64 {
        self.stored(m).unwrap_or_else(|| self.bpe.count(m))
    }
}

/// The session's BPE counts as the Tokens tab has them, when `cache` holds every long piece
/// (the tab or the index counted the session); `None` before that, so a view is never made to
/// wait for a whole count. Short pieces are counted here: they are never cached, and cost
/// about what a lookup does.
pub fn counted(session: &Session, encoding: Encoding, cache: &TokenCache) -> Option<Counted> {
    // A session never counted misses at once: its first long texts are asked for before the
    // session is split into pieces. Text, thinking and results are pieces whole, so their keys
    // are the pieces' keys.
    let probe: Vec<Key> = session
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Text { text } | Part::Thinking { text, .. } => Some(text.into()),
            Part::ToolResult { text, .. } if text.len() >= super::CACHE_MIN_BYTES => {
                Some(text.text())
            }
            _ => None,
        })
        .filter(|t: &std::borrow::Cow<str>| t.len() >= super::CACHE_MIN_BYTES)
        .take(16)
        .map(|t| Key::of(&t))
        .collect();
    if cache.get_many(encoding, &probe).ok()?.contains(&None) {
        return None;
    }
    let pieces = super::category::pieces(session);
    let keys: Vec<Key> = pieces
        .iter()
        .filter(|p| p.text.len() >= super::CACHE_MIN_BYTES)
        .map(|p| p.text.key())
        .collect();
    let mut hits = cache.get_many(encoding, &keys).ok()?.into_iter();
    let mut by_index = printed(session);
    for p in &pieces {
        let n = if p.text.len() >= super::CACHE_MIN_BYTES {
            hits.next()??
        } else {
            encoding.count(&p.text.get())
        };
        if let Some(Some((t, _))) = by_index.get_mut(p.message_index) {
            *t += n;
        }
    }
    Some(Counted {
        by_index,
        bpe: Bpe::new(encoding),
    })
}
