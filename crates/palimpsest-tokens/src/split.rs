//! Pre-tokenisation: the text is cut into pieces by the encoding's pattern before any byte-pair
//! merge, exactly as tiktoken cuts it, so each piece can be counted alone ([`super::ranks`]).
//!
//! tiktoken's patterns end in `\s+(?!\S)|\s+`: a run of whitespace gives its last character to
//! the word after it. `regex-automata` has no look-ahead, so that alternative is written as a
//! pattern of its own, `\s+\s`, whose last character is dropped from the match (the rewrite
//! GitHub's `bpe-openai` made; its test suite and ours hold the counts equal to tiktoken's),
//! and a run that ends the text is matched by `\s+$`.

use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};

/// o200k_base: cased words with their contractions, digits by threes, punctuation runs (with
/// the newlines and slashes that follow), newlines, whitespace.
const O200K_WORDS: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// cl100k_base: contractions, words, digits by threes, punctuation runs, newlines, whitespace.
const CL100K_WORDS: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// The whitespace run that leaves its last character to what follows (its match drops it).
const SPACE_BEFORE: &str = r"\s+\s";
/// [`SPACE_BEFORE`]'s place among the patterns [`Splitter::new`] compiles.
const SPACE_BEFORE_AT: usize = 1;
/// Any other whitespace run.
const SPACE: &str = r"\s+";

/// One encoding's pattern, compiled (2–4 ms).
pub struct Splitter {
    regex: Regex,
}

impl Splitter {
    /// o200k_base's pattern.
    pub fn o200k() -> Splitter {
        Splitter::new(O200K_WORDS)
    }

    /// cl100k_base's pattern.
    pub fn cl100k() -> Splitter {
        Splitter::new(CL100K_WORDS)
    }

    fn new(words: &str) -> Splitter {
        let regex = Regex::new_many(&[words, SPACE_BEFORE, SPACE])
            .expect("the encodings' patterns compile");
        Splitter { regex }
    }

    /// The pieces of `text`, in order; together they are `text`.
    pub fn pieces<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        let mut at = 0;
        std::iter::from_fn(move || {
            if at >= text.len() {
                return None;
            }
            // Every character starts some alternative (`\s+` or a punctuation run), so an
            // anchored search always matches at least one.
            let m = self
                .regex
                .find(Input::new(&text[at..]).anchored(Anchored::Yes))?;
            let start = at;
            let mut end = at + m.end();
            if m.pattern().as_usize() == SPACE_BEFORE_AT {
                let last = text[start..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
                end -= last;
            }
            at = end;
            Some(&text[start..end])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_leaves_its_last_character_to_the_next_word() {
        let s = Splitter::o200k();
        assert_eq!(
            s.pieces("a   b").collect::<Vec<_>>(),
            ["a", "  ", " b"],
            "tiktoken's \\s+(?!\\S): the run keeps all but the space before the word"
        );
        assert_eq!(
            s.pieces("x  ").collect::<Vec<_>>(),
            ["x", "  "],
            "a run that ends the text stays whole"
        );
        assert_eq!(
            Splitter::cl100k()
                .pieces("I'll pay 12345")
                .collect::<Vec<_>>(),
            ["I", "'ll", " pay", " ", "123", "45"],
            "cl100k: contractions apart, digits by threes"
        );
    }
}
