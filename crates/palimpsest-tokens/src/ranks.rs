//! A vocabulary's ranks, read where `build.rs` put them in the binary ([`super::table`] holds
//! the layout), and the byte-pair merge that turns one pre-tokenised piece into its count.
//!
//! The merge is BPE's own rule, as tiktoken applies it: start from single bytes, and merge the
//! adjacent pair whose joined bytes have the lowest rank (the leftmost of equal ones) until no
//! joined pair is a token. Short pieces, nearly all of them, rescan their pairs after each merge;
//! long ones (a run of one letter, a base64 blob) keep their pairs in a heap so the work stays
//! O(n log n). Splitting text into pieces is [`super::split`]'s.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::table::{HEADER_WORDS, hash};

/// Pieces up to this many bytes are merged by rescanning; the heap pays off beyond.
const SCAN_MAX: usize = 64;

/// One vocabulary's rank table, borrowed from the binary.
pub struct Ranks {
    tokens: usize,
    offsets: &'static [u8],
    slots: &'static [u8],
    mask: usize,
    blob: &'static [u8],
}

fn word(bytes: &[u8], i: usize) -> usize {
    let w: [u8; 4] = bytes[i * 4..i * 4 + 4]
        .try_into()
        .expect("a four-byte slice");
    u32::from_le_bytes(w) as usize
}

impl Ranks {
    /// The table `table::write` made.
    pub fn new(data: &'static [u8]) -> Ranks {
        let tokens = word(data, 0);
        let slots = word(data, 1);
        let offsets_at = HEADER_WORDS * 4;
        let slots_at = offsets_at + (tokens + 1) * 4;
        let blob_at = slots_at + slots * 4;
        Ranks {
            tokens,
            offsets: &data[offsets_at..slots_at],
            slots: &data[slots_at..blob_at],
            mask: slots - 1,
            blob: &data[blob_at..],
        }
    }

    /// How many tokens the vocabulary has.
    pub fn len(&self) -> usize {
        self.tokens
    }

    /// Whether the vocabulary is empty (never, for a real one).
    pub fn is_empty(&self) -> bool {
        self.tokens == 0
    }

    /// The bytes of token `id`.
    pub fn bytes(&self, id: usize) -> &'static [u8] {
        &self.blob[word(self.offsets, id)..word(self.offsets, id + 1)]
    }

    /// The rank of `bytes`, when they are a token.
    pub fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let mut at = (hash(bytes) as usize) & self.mask;
        loop {
            let id = word(self.slots, at);
            if id == 0 {
                return None;
            }
            if self.bytes(id - 1) == bytes {
                return Some((id - 1) as u32);
            }
            at = (at + 1) & self.mask;
        }
    }

    fn pair(&self, bytes: &[u8]) -> u32 {
        self.rank(bytes).unwrap_or(u32::MAX)
    }

    /// The number of tokens one piece encodes to.
    pub fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        if self.rank(piece).is_some() {
            return 1;
        }
        if piece.len() <= SCAN_MAX {
            self.count_by_scan(piece)
        } else {
            self.count_by_heap(piece)
        }
    }

    /// The merge, rescanning every pair after each merge: `starts` are the parts' first bytes
    /// (and the end), `pairs[k]` the rank of part `k` joined with part `k + 1`.
    pub(crate) fn count_by_scan(&self, piece: &[u8]) -> usize {
        let mut starts: Vec<usize> = (0..=piece.len()).collect();
        let mut pairs: Vec<u32> = (0..piece.len() - 1)
            .map(|i| self.pair(&piece[i..i + 2]))
            .collect();
        loop {
            let Some((at, _)) = pairs
                .iter()
                .enumerate()
                .filter(|(_, r)| **r != u32::MAX)
                .min_by_key(|(i, r)| (**r, *i))
            else {
                return starts.len() - 1;
            };
            starts.remove(at + 1);
            pairs.remove(at);
            let joined = |k: usize| match starts.get(k + 2) {
                Some(&end) => self.pair(&piece[starts[k]..end]),
                None => u32::MAX,
            };
            if at < pairs.len() {
                pairs[at] = joined(at);
            }
            if at > 0 {
                pairs[at - 1] = joined(at - 1);
            }
        }
    }

    /// The same merge with the pairs in a heap, each entry `(rank, start, end)` of the joined
    /// bytes; an entry whose parts have changed since it was pushed is skipped. The heap's
    /// order (rank, then start) picks the pair the scan would.
    pub(crate) fn count_by_heap(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // `next[i]`: where the part starting at byte `i` ends; `prev[i]`: where the part before
        // it starts. A byte that no longer starts a part has `next[i] == 0`.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.saturating_sub(1)).collect();
        let mut heap: BinaryHeap<Reverse<(u32, usize, usize)>> = (0..n - 1)
            .filter_map(|i| {
                let r = self.pair(&piece[i..i + 2]);
                (r != u32::MAX).then_some(Reverse((r, i, i + 2)))
            })
            .collect();
        let mut parts = n;
        while let Some(Reverse((_, start, end))) = heap.pop() {
            let mid = next[start];
            if mid == 0 || mid >= n || next[mid] != end {
                continue;
            }
            next[start] = end;
            next[mid] = 0;
            if end < n {
                prev[end] = start;
            }
            parts -= 1;
            if start > 0 {
                let before = prev[start];
                let r = self.pair(&piece[before..end]);
                if r != u32::MAX {
                    heap.push(Reverse((r, before, end)));
                }
            }
            if end < n {
                let after = next[end];
                let r = self.pair(&piece[start..after]);
                if r != u32::MAX {
                    heap.push(Reverse((r, start, after)));
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use crate::Encoding;

    #[test]
    fn scan_and_heap_merge_the_same_pairs() {
        // Pieces that share many equal-ranked pairs ("aaaa…", "abab…") test the tie rule
        // (leftmost first); the mixed ones test the general order. Lengths 2..=200.
        let ranks = Encoding::O200kBase.ranks();
        let seeds = [
            "a",
            "ab",
            "abc",
            "Hello",
            "=-",
            "é",
            " x",
            "0Z_",
            "über",
            "\u{1F600}",
        ];
        for seed in seeds {
            for n in 2..=200usize {
                let piece: Vec<u8> = seed.bytes().cycle().take(n).collect();
                assert_eq!(
                    ranks.count_by_scan(&piece),
                    ranks.count_by_heap(&piece),
                    "{seed:?} × {n} bytes: both merges end in the same parts"
                );
            }
        }
    }
}
