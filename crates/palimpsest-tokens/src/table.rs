//! The layout of a vocabulary's rank table: written once at build time by `build.rs` (which
//! includes this file) from `bpe-openai`'s vocabularies, and read in place by [`super::ranks`].
//!
//! Why a table of our own: loading a BPE library's vocabulary means decoding it into hash maps
//! and automata, 45–85 ms and 60 MB for `o200k_base` on every process start, which dominated a
//! short command such as re-indexing one appended message. This table is looked up where it
//! lies in the binary's read-only data, so it costs nothing to load, and only the pages a count
//! touches are ever read.
//!
//! Layout, little-endian `u32` words, then bytes:
//! - `[0]` number of tokens `n`, `[1]` number of hash slots `s` (a power of two);
//! - `n + 1` offsets: token `i`'s bytes are `blob[offset[i]..offset[i + 1]]`;
//! - `s` slots, open addressing with linear probing from `hash(bytes) & (s - 1)`: `id + 1`, or
//!   0 for an empty slot;
//! - the blob of every token's bytes, in rank order.
//!
//! A token's id is its rank (tiktoken's rank files list tokens by rank, and the tokenizers
//! number them so).

/// Words before the offsets.
pub const HEADER_WORDS: usize = 2;

/// FNV-1a over the bytes: tokens are short, and the table only needs an even spread.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The table of `tokens`, given in rank order. Slots are twice the tokens, rounded up to a
/// power of two, so a probe rarely goes past its first slot.
pub fn write(tokens: &[&[u8]]) -> Vec<u8> {
    let slots = (tokens.len() * 2).next_power_of_two().max(2);
    let mut table = vec![0u32; slots];
    let mut offsets = Vec::with_capacity(tokens.len() + 1);
    let mut blob = Vec::new();
    offsets.push(0u32);
    for (id, t) in tokens.iter().enumerate() {
        blob.extend_from_slice(t);
        offsets.push(u32::try_from(blob.len()).expect("a vocabulary under 4 GiB"));
        let mut at = (hash(t) as usize) & (slots - 1);
        while table[at] != 0 {
            at = (at + 1) & (slots - 1);
        }
        table[at] = u32::try_from(id + 1).expect("fewer than 2^32 tokens");
    }
    let words = [tokens.len() as u32, slots as u32]
        .into_iter()
        .chain(offsets)
        .chain(table);
    let mut out = Vec::with_capacity((HEADER_WORDS + tokens.len() + 1 + slots) * 4 + blob.len());
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&blob);
    out
}
