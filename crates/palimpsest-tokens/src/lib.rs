//! Token accounting: real BPE counts for every piece of a session, by category, cached on disk.
//!
//! [`count_session`] splits a session into pieces ([`category`]), counts each with the chosen
//! vocabulary ([`bpe`]), reusing counts from the on-disk [`cache`] by content hash, and reports
//! progress and honours a cancel flag on the way. Above the session model only: what the counts
//! become on screen (the token report, its charts) is the analysis crate's `views::tokens` and
//! core's `charts`.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

// The layer below, under the names every module of this crate uses.
#[cfg(test)]
use palimpsest_model::testkit;
use palimpsest_model::{cachedb, env, error, model, tool};

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Session;

pub mod bpe;
pub mod cache;
pub mod category;
pub mod counter;
pub mod cut;
pub mod known;
pub mod ranks;
pub mod remember;
pub mod split;
pub mod table;
pub mod totals;

pub use bpe::Encoding;
pub use cache::TokenCache;
pub use category::{Category, ToolKind};
pub use counter::Counter;

/// Texts shorter than this are counted directly: hashing and a cache lookup cost about as much
/// as counting them, and they would bloat the cache.
pub const CACHE_MIN_BYTES: usize = 256;

/// How far counting has got; passed to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Progress {
    /// Bytes done (counted or found in the cache).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub done_bytes: u64,
    /// Bytes in the session's pieces.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total_bytes: u64,
    /// Pieces done.
    pub done_pieces: usize,
    /// Pieces in all.
    pub total_pieces: usize,
}

/// How many counts came from where.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CountStats {
    /// Pieces whose count came from the cache.
    pub cache_hits: usize,
    /// Pieces counted now (cacheable ones are then stored).
    pub counted: usize,
    /// Bytes tokenised now.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub counted_bytes: u64,
}

/// The count of one piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceCount {
    /// The message's index.
    pub message_index: usize,
    /// The part's position in the message.
    pub part_index: usize,
    /// Where it belongs.
    pub category: Category,
    /// The tool, for tool traffic.
    pub tool: Option<String>,
    /// What the tool does.
    pub tool_kind: Option<ToolKind>,
    /// Tokens.
    pub tokens: u64,
    /// Bytes of the counted text.
    pub bytes: usize,
}

/// Every piece of a session, counted.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCounts {
    /// The vocabulary used.
    pub encoding: Encoding,
    /// One entry per piece, in stored order.
    pub pieces: Vec<PieceCount>,
    /// Cache use.
    pub stats: CountStats,
    /// Why the cache stopped being used part way (a full disk, a file made read-only): the
    /// counts are whole all the same.
    pub cache_problem: Option<String>,
}

impl SessionCounts {
    /// The tokens of each message of `session` (its pieces summed), in stored order: what the
    /// index keeps per message.
    pub fn per_message(&self, session: &Session) -> Vec<u64> {
        let pos = session.positions();
        let mut out = vec![0; session.messages.len()];
        for p in &self.pieces {
            if let Some(&i) = pos.get(&p.message_index) {
                out[i] += p.tokens;
            }
        }
        out
    }
}

/// Bytes between two progress callbacks (and between two cache flushes, times 16).
const PROGRESS_STEP: u64 = 1 << 20;

/// Count every piece of `session` with `encoding`, reusing and filling `cache` when given.
///
/// `progress` is called at the start, about every MiB and at the end. `cancel` is checked
/// before each piece; when set, counts made so far are still stored in the cache (so a second
/// attempt resumes) and [`Error::Cancelled`] is returned.
pub fn count_session(
    session: &Session,
    encoding: Encoding,
    cache: Option<&TokenCache>,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<SessionCounts> {
    count_session_after(session, encoding, cache, progress, cancel, None)
}

/// What a count of the same session in the same vocabulary made of its first messages, kept
/// (the index keeps each message's piece counts with its row).
#[derive(Debug, Clone, Default)]
pub struct Earlier {
    /// The position of the first message not counted before: those before it are as they
    /// were when counted (an appended transcript read on from its last offset).
    pub before: usize,
    /// The pieces of the messages before it, in stored order.
    pub pieces: Vec<PieceCount>,
}

/// [`count_session`], taking the pieces of the messages before `earlier.before` as they were
/// counted: only the others are split and counted (or looked up in the cache). The taken
/// pieces count as cache hits.
pub fn count_session_after(
    session: &Session,
    encoding: Encoding,
    cache: Option<&TokenCache>,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
    earlier: Option<Earlier>,
) -> Result<SessionCounts> {
    let Earlier {
        before,
        pieces: taken,
    } = earlier.unwrap_or_default();
    let pieces = category::pieces_from(session, before);
    let total_bytes: u64 = pieces.iter().map(|p| p.text.len() as u64).sum();
    let mut prog = Progress {
        total_bytes,
        total_pieces: pieces.len(),
        ..Progress::default()
    };
    progress(prog);
    encoding.warm_up();

    // Keys of the cacheable pieces, and what the cache already knows of them.
    let keys: Vec<Option<cache::Key>> = pieces
        .iter()
        .map(|p| (cache.is_some() && p.text.len() >= CACHE_MIN_BYTES).then(|| p.text.key()))
        .collect();
    let mut known: HashMap<cache::Key, u64> = HashMap::new();
    // A cache that fails is left, not the count: counting needs no cache.
    let mut cache = cache;
    let mut cache_problem = None;
    if let Some(c) = cache {
        let wanted: Vec<cache::Key> = keys.iter().flatten().copied().collect();
        match c.get_many(encoding, &wanted) {
            Ok(hits) => {
                for (k, hit) in wanted.iter().zip(hits) {
                    if let Some(t) = hit {
                        known.insert(*k, t);
                    }
                }
            }
            Err(e) => {
                cache_problem = Some(e.to_string());
                cache = None;
            }
        }
    }
    let mut store = |cache: &mut Option<&TokenCache>, fresh: &[(cache::Key, u64)]| {
        if let Some(c) = *cache
            && let Err(e) = c.put_many(encoding, fresh)
        {
            cache_problem = Some(e.to_string());
            *cache = None;
        }
    };

    let mut stats = CountStats {
        cache_hits: taken.len(),
        ..CountStats::default()
    };
    let mut fresh: Vec<(cache::Key, u64)> = Vec::new();
    let mut fresh_bytes = 0u64;
    let mut next_report = PROGRESS_STEP;
    let mut out = taken;
    out.reserve(pieces.len());
    for (p, key) in pieces.iter().zip(&keys) {
        if cancel.load(Ordering::Relaxed) {
            store(&mut cache, &fresh);
            return Err(Error::Cancelled);
        }
        let tokens = match key.and_then(|k| known.get(&k).copied()) {
            Some(t) => {
                stats.cache_hits += 1;
                t
            }
            None => {
                let t = encoding.count(&p.text.get());
                stats.counted += 1;
                stats.counted_bytes += p.text.len() as u64;
                if let Some(k) = key {
                    // Identical texts later in the session (re-read files) reuse this count.
                    known.insert(*k, t);
                    fresh.push((*k, t));
                    fresh_bytes += p.text.len() as u64;
                }
                t
            }
        };
        out.push(PieceCount {
            message_index: p.message_index,
            part_index: p.part_index,
            category: p.category,
            tool: p.tool.map(str::to_owned),
            tool_kind: p.tool_kind,
            tokens,
            bytes: p.text.len(),
        });
        prog.done_bytes += p.text.len() as u64;
        prog.done_pieces += 1;
        if prog.done_bytes >= next_report {
            next_report = prog.done_bytes + PROGRESS_STEP;
            progress(prog);
        }
        if fresh_bytes >= 16 * PROGRESS_STEP && cache.is_some() {
            store(&mut cache, &fresh);
            fresh.clear();
            fresh_bytes = 0;
        }
    }
    store(&mut cache, &fresh);
    progress(prog);
    Ok(SessionCounts {
        encoding,
        pieces: out,
        stats,
        cache_problem,
    })
}
