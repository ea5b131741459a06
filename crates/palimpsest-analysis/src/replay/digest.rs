//! A goose sweep's input kept between runs: a session reduced to what goose's run reads (the
//! [`Prepared`] form without the session behind it: per message its tokens after the cap, its
//! role flags, the call it answers and the files it delivers) and what the sweep's parameters
//! take from the session (context limit, continuation wording and its tokens). The index keeps
//! one per transcript, cap and fingerprint (`index::digests`), so a sweep of an unchanged
//! transcript reads no transcript and counts nothing: on a 30 000-message session the parse
//! it skips is seconds, the sweep itself tens of milliseconds.
//!
//! Making the entries is `simulate`'s; storing them is the index's; which sessions get one
//! (single-file transcripts, goose's policy) is `api::sweep_cached`'s. coworker's policy sizes
//! messages as the harness stores them and reads the session; it has no digest.

use serde::{Deserialize, Serialize};

use super::goose::Wording;
use super::simulate::{Entry, Prepared};
use crate::model::Session;

/// Bump when what a digest holds, or how `simulate` makes its entries, changes: older
/// digests are then never read (their key carries the version).
pub const VERSION: u32 = 1;

/// Bytes of one packed entry: source u32, tokens u64, flags u8, call_pos u32, reads 2 × u32.
const ENTRY_BYTES: usize = 25;

/// One session at one tool-result cap, as goose's sweep reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    /// The session's name (the heatmap's title).
    pub name: String,
    /// The session's own context limit, if it records one.
    pub context_limit: Option<u64>,
    /// The continuation wording the session would get.
    pub wording: Wording,
    /// The BPE vocabulary the tokens were counted in.
    pub encoding: String,
    /// The cap the entries were prepared with (0 = off).
    pub cap_bytes: usize,
    /// Tokens of the system prompt.
    pub system_tokens: u64,
    /// Tokens of goose's three continuation texts in `wording`.
    pub continuation: [u64; 3],
    /// The files read, by id.
    pub file_names: Vec<String>,
    /// Recorded summaries: (entries before it, text, tokens).
    pub recorded: Vec<(usize, String, u64)>,
    #[serde(skip)]
    entries: Vec<Entry>,
    #[serde(skip)]
    reads: Vec<u32>,
}

impl Digest {
    /// The digest of `prep` (goose's tokens-only form of `session`), whose continuation texts
    /// in `wording` count `continuation` tokens.
    pub fn of(
        prep: &Prepared<'_>,
        session: &Session,
        wording: Wording,
        encoding: &str,
        continuation: [u64; 3],
    ) -> Digest {
        let mut recorded: Vec<(usize, String, u64)> = prep
            .recorded
            .iter()
            .map(|(k, (t, n))| (*k, t.clone(), *n))
            .collect();
        recorded.sort_by_key(|r| r.0);
        Digest {
            name: session.meta.name.clone(),
            context_limit: session.meta.context_limit,
            wording,
            encoding: encoding.to_owned(),
            cap_bytes: prep.cap_bytes,
            system_tokens: prep.system_tokens,
            continuation,
            file_names: prep.file_names.clone(),
            recorded,
            entries: prep.entries.clone(),
            reads: prep.reads.clone(),
        }
    }

    /// The prepared form goose's run and the sweep read, without a session.
    pub fn prepared(&self) -> Prepared<'static> {
        Prepared::from_parts(
            self.entries.clone(),
            self.reads.clone(),
            self.file_names.clone(),
            self.system_tokens,
            self.recorded
                .iter()
                .map(|(k, t, n)| (*k, (t.clone(), *n)))
                .collect(),
            self.cap_bytes,
            self.continuation,
        )
    }

    /// Messages replayed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is replayed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries and reads packed little-endian: fixed-width, so reading them back is a copy,
    /// not a parse (a JSON array of 30 000 entries would cost more than the sweep).
    pub fn body(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(8 + self.entries.len() * ENTRY_BYTES + self.reads.len() * 4);
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.reads.len() as u32).to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.source.to_le_bytes());
            out.extend_from_slice(&e.tokens.to_le_bytes());
            out.push(e.flags);
            out.extend_from_slice(&e.call_pos.to_le_bytes());
            out.extend_from_slice(&e.reads.0.to_le_bytes());
            out.extend_from_slice(&e.reads.1.to_le_bytes());
        }
        for r in &self.reads {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out
    }

    /// The header as stored beside the body.
    pub fn header_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A digest read back from its header and body; `None` when either is not one this
    /// version wrote (the caller then prepares the session again).
    pub fn from_stored(header: &str, body: &[u8]) -> Option<Digest> {
        let mut d: Digest = serde_json::from_str(header).ok()?;
        let mut at = 0usize;
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = body.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
        let n = u32_of(take(4)?) as usize;
        let r = u32_of(take(4)?) as usize;
        if body.len() != 8 + n * ENTRY_BYTES + r * 4 {
            return None;
        }
        d.entries = Vec::with_capacity(n);
        for _ in 0..n {
            let b = take(ENTRY_BYTES)?;
            d.entries.push(Entry {
                source: u32_of(&b[0..4]),
                tokens: u64::from_le_bytes(b[4..12].try_into().ok()?),
                canon_len: 0,
                out_len: 0,
                flags: b[12],
                call_pos: u32_of(&b[13..17]),
                reads: (u32_of(&b[17..21]), u32_of(&b[21..25])),
            });
        }
        d.reads = (0..r).map(|_| take(4).map(u32_of)).collect::<Option<_>>()?;
        // A read range past the reads would index out of bounds in the run.
        let bad = d
            .entries
            .iter()
            .any(|e| e.reads.0 > e.reads.1 || e.reads.1 as usize > d.reads.len());
        let bad_file = d.reads.iter().any(|&f| f as usize >= d.file_names.len());
        (!bad && !bad_file).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Part, Role, SourceFormat};

    fn session() -> Session {
        let call = Part::ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: serde_json::json!({"path": "src/a.rs"}).into(),
        };
        let result = Part::ToolResult {
            call_id: "c1".into(),
            text: "fn main() {}\n".repeat(400).into(),
            is_error: false,
            raw: serde_json::Value::Null.into(),
        };
        let messages = vec![
            Message::new(
                0,
                Role::User,
                vec![Part::Text {
                    text: "fix a.rs".into(),
                }],
            ),
            Message::new(1, Role::Assistant, vec![call]),
            Message::new(2, Role::Tool, vec![result]),
            Message::new(
                3,
                Role::Assistant,
                vec![Part::Text {
                    text: "done".into(),
                }],
            ),
        ];
        Session::in_memory("digest", SourceFormat::GooseLegacy, messages, Vec::new())
    }

    #[test]
    fn a_digest_read_back_sweeps_as_the_session_does() {
        let s = session();
        let counter = crate::tokens::counter::CharEstimate;
        let prep = Prepared::tokens_only(&s, &counter).with_cap(1000, &counter);
        let d = Digest::of(&prep, &s, Wording::Since20260216, "o200k_base", [7, 8, 9]);
        let back = Digest::from_stored(&d.header_json(), &d.body())
            .expect("a digest this version wrote reads back");
        assert_eq!(back, d, "header, entries and reads survive the round trip");
        let again = back.prepared();
        assert_eq!(again.entries.len(), 4, "every message is an entry");
        assert_eq!(
            again.entries[2].tokens, prep.entries[2].tokens,
            "the capped result keeps its capped count"
        );
        assert_eq!(again.reads, vec![0], "the result delivers file 0, src/a.rs");
        assert_eq!(
            again.file_names,
            vec!["src/a.rs".to_string()],
            "the file read"
        );
        assert_eq!(
            again.continuation,
            Some([7, 8, 9]),
            "continuations come along"
        );
    }

    #[test]
    fn a_torn_or_foreign_body_is_refused() {
        let s = session();
        let counter = crate::tokens::counter::CharEstimate;
        let d = Digest::of(
            &Prepared::tokens_only(&s, &counter),
            &s,
            Wording::Since20260216,
            "o200k_base",
            [1, 1, 1],
        );
        let body = d.body();
        assert!(
            Digest::from_stored(&d.header_json(), &body[..body.len() - 1]).is_none(),
            "a body one byte short is not a digest"
        );
        assert!(
            Digest::from_stored("{}", &body).is_none(),
            "a header without the fields is not one"
        );
    }
}
