//! The BPE vocabularies and the one function that turns text into a token count.
//!
//! A count is tiktoken's: the text cut into pieces by the encoding's pattern ([`super::split`]),
//! each piece merged byte pair by byte pair by rank ([`super::ranks`]), over the rank files
//! OpenAI publishes (taken at build time from `bpe-openai`, which embeds them). The tests hold
//! the counts equal to `tiktoken-rs` and `bpe-openai` on code, prose, Unicode and every text of
//! the real transcripts. Nothing is loaded: the ranks are read in place, where a tokenizer
//! library decodes its vocabulary first (45–85 ms per process; `benches/tokens.rs`). Which
//! encoding a session uses is decided from its model in [`Encoding::for_model`]; caching and
//! categories live in sibling modules.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::ranks::Ranks;
use super::split::Splitter;

/// A BPE vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// `o200k_base`: GPT-4o, o-series, GPT-4.1/5; also the default estimate for other vendors.
    #[default]
    O200kBase,
    /// `cl100k_base`: GPT-4 and GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    /// Every encoding, in the order the CLI lists them.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The name tiktoken uses (`o200k_base`, `cl100k_base`).
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Parse a tiktoken encoding name.
    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The encoding a session's model used, as far as its name tells: GPT-4 (not 4o / 4.1) and
    /// GPT-3.5 used `cl100k_base`; everything else, including unknown and non-OpenAI models
    /// (whose own tokenizers are not public), is estimated with `o200k_base`.
    pub fn for_model(model: Option<&str>) -> Encoding {
        let Some(model) = model else {
            return Encoding::O200kBase;
        };
        // Providers prefix models ("openai:gpt-4", "openai/gpt-4-turbo"); look at the last segment.
        let name = model
            .rsplit(['/', ':'])
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        let gpt4_classic =
            name.starts_with("gpt-4") && !name.starts_with("gpt-4o") && !name.starts_with("gpt-4.");
        if gpt4_classic || name.starts_with("gpt-3.5") || name.starts_with("gpt-35") {
            Encoding::Cl100kBase
        } else {
            Encoding::O200kBase
        }
    }

    /// The vocabulary's ranks and pattern: the ranks are read where they lie in the binary,
    /// and the pattern compiles in a few milliseconds on first use.
    pub(crate) fn parts(self) -> (&'static Ranks, &'static Splitter) {
        static O200K: LazyLock<(Ranks, Splitter)> = LazyLock::new(|| {
            let ranks = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.ranks"));
            (Ranks::new(ranks), Splitter::o200k())
        });
        static CL100K: LazyLock<(Ranks, Splitter)> = LazyLock::new(|| {
            let ranks = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.ranks"));
            (Ranks::new(ranks), Splitter::cl100k())
        });
        let (ranks, splitter) = match self {
            Encoding::O200kBase => &*O200K,
            Encoding::Cl100kBase => &*CL100K,
        };
        (ranks, splitter)
    }

    /// The vocabulary's rank table (every token's bytes, by rank).
    pub fn ranks(self) -> &'static Ranks {
        self.parts().0
    }

    /// Compile the pattern now (2–4 ms) instead of on the first count.
    pub fn warm_up(self) {
        let _ = self.parts();
    }

    /// Number of tokens in `text`, as tiktoken's `encode_ordinary(text).len()` (special tokens
    /// are treated as plain text, which is what a transcript holds).
    pub fn count(self, text: &str) -> u64 {
        let (ranks, splitter) = self.parts();
        splitter
            .pieces(text)
            .map(|piece| ranks.count_piece(piece.as_bytes()) as u64)
            .sum()
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_choose_the_encoding() {
        let cases = [
            (Some("gpt-4"), Encoding::Cl100kBase),
            (Some("gpt-4-turbo-2024-04-09"), Encoding::Cl100kBase),
            (Some("openai:gpt-3.5-turbo"), Encoding::Cl100kBase),
            (Some("azure/gpt-35-turbo"), Encoding::Cl100kBase),
            (Some("gpt-4o-mini"), Encoding::O200kBase),
            (Some("gpt-4.1"), Encoding::O200kBase),
            (Some("gpt-5-codex"), Encoding::O200kBase),
            (Some("claude-sonnet-4-5"), Encoding::O200kBase),
            (None, Encoding::O200kBase),
        ];
        for (model, want) in cases {
            assert_eq!(
                Encoding::for_model(model),
                want,
                "{model:?}: GPT-4/3.5 use cl100k, everything else is estimated with o200k"
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(
                Encoding::from_name(e.as_str()),
                Some(e),
                "the CLI parses the names it prints"
            );
        }
        assert_eq!(
            Encoding::from_name("p50k_base"),
            None,
            "unsupported encodings are refused, not guessed"
        );
    }
}
