//! Our token count (pattern split + byte-pair merge over the rank tables build.rs writes) is
//! tiktoken's on every text of the real sessions, and `bpe-openai`'s on pieces too long for
//! tiktoken's quadratic merge; the rank tables hold every token of both vocabularies.

use palimpsest_core::tokens::Encoding;
use serde_json::Value;

use crate::tokens::tiktoken;

fn bpe_openai(enc: Encoding) -> &'static bpe_openai::Tokenizer {
    match enc {
        Encoding::O200kBase => bpe_openai::o200k_base(),
        Encoding::Cl100kBase => bpe_openai::cl100k_base(),
    }
}

/// Every string anywhere in a JSON value (message texts, tool inputs and outputs, ids, paths).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Every string of every record of the real Claude Code transcripts and the Codex rollout.
fn real_texts() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["claude-code", "codex"] {
        let dir = palimpsest_fixtures::real_data(dir);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            for line in std::fs::read_to_string(&f).unwrap().lines() {
                if let Ok(v) = serde_json::from_str::<Value>(line) {
                    strings(&v, &mut out);
                }
            }
        }
    }
    out
}

#[test]
fn every_real_text_counts_as_tiktoken_counts_it() {
    let texts = real_texts();
    assert!(
        texts.len() > 50_000,
        "the real sessions hold tens of thousands of strings, got {}",
        texts.len()
    );
    for enc in Encoding::ALL {
        let mut total = 0;
        for (i, t) in texts.iter().enumerate() {
            let ours = enc.count(t);
            assert_eq!(
                ours,
                tiktoken(enc, t),
                "{enc}: real text {i} ({} bytes, starting {:?}) must count as tiktoken does",
                t.len(),
                t.chars().take(60).collect::<String>()
            );
            total += ours;
        }
        assert!(total > 1_000_000, "{enc}: {total} tokens in all");
    }
}

#[test]
fn long_pieces_count_as_bpe_openai_counts_them() {
    // One piece each: a run of one letter, letters with no digit or space (a base64 blob
    // without its digits), a long punctuation run and whitespace. Merging these rescans
    // quadratically; the heap keeps them linear-ish, and must still pick the pairs tiktoken
    // picks.
    let mut letters = String::new();
    let mut x: u32 = 7;
    while letters.len() < 60_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        letters.push(char::from(
            b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[(x >> 16) as usize % 52],
        ));
    }
    let long = [
        "a".repeat(100_000),
        letters,
        "=-".repeat(30_000),
        " ".repeat(50_000),
        "\n".repeat(20_000),
        "é".repeat(20_000),
    ];
    for enc in Encoding::ALL {
        for t in &long {
            assert_eq!(
                enc.count(t),
                bpe_openai(enc).count(t.as_str()) as u64,
                "{enc}: a {}-byte piece starting {:?} counts as bpe-openai counts it",
                t.len(),
                &t.chars().take(8).collect::<String>()
            );
        }
    }
}

#[test]
fn the_rank_tables_hold_every_token_at_its_rank() {
    for enc in Encoding::ALL {
        let ranks = enc.ranks();
        let theirs = &bpe_openai(enc).bpe;
        assert_eq!(
            ranks.len(),
            theirs.num_tokens(),
            "{enc}: the table has the vocabulary's every token"
        );
        for id in 0..ranks.len() {
            let bytes = theirs.token_bytes(id as u32);
            assert_eq!(
                ranks.bytes(id),
                bytes,
                "{enc}: token {id}'s bytes are the vocabulary's"
            );
            assert_eq!(
                ranks.rank(bytes),
                Some(id as u32),
                "{enc}: token {id} is found at its own rank"
            );
        }
        assert_eq!(
            ranks.rank("palimpsest-not-a-token ".as_bytes()),
            None,
            "{enc}: bytes that are no token have no rank"
        );
    }
}
