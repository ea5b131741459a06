//! Token counts of a text cut to its head and tail around a marker (what a tool-result cap
//! stores), from one pass over the whole text instead of one per cut: a replay tuned at five
//! caps counted every long result again at each, three quarters of a first `tune`.
//!
//! The count is exact, not an estimate. The encoding's pattern cuts a text into pieces left to
//! right, each decided by the characters of its own run and a few after it, and each piece is
//! counted alone; so the cut text's pieces are the whole text's up to a piece boundary a margin
//! before the head's end, then pieces of a small window (the head's last bytes, the marker, the
//! tail's first bytes) until the window's cutting meets a boundary of the whole text's again,
//! then the whole text's to the end. Where the text is cut is the cap's (`replay::cap`).

use super::Encoding;

/// Bytes before the head's end where the whole text's pieces stop being trusted, and before a
/// window's end where its own pieces do: a piece's decision looks a few characters past it.
const MARGIN: usize = 64;
/// The tail's bytes a window first takes; doubled until its pieces meet the whole text's.
const WINDOW: usize = 512;
/// Pieces between two marks of a [`Profile`]: a mark costs 12 bytes, and finding a boundary
/// between marks cuts at most this many pieces again.
const EVERY: usize = 32;

/// Where a text's pieces end, every `EVERY`th, with the tokens before each, and its total
/// ([`Encoding::profile`]): about a byte for every 30 of text, so a tune can keep one for every
/// long result of a session while it runs.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    marks: Vec<(u32, u64)>,
    total: u64,
}

impl Profile {
    /// A profile of a text's count alone, without marks (a text too short to cut: a cut of it
    /// would be counted from its start).
    pub fn whole(total: u64) -> Profile {
        Profile {
            marks: Vec::new(),
            total,
        }
    }

    /// The whole text's tokens.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The last mark at or before byte `at`.
    fn mark(&self, at: usize) -> (usize, u64) {
        let k = self.marks.partition_point(|&(e, _)| e as usize <= at);
        match k {
            0 => (0, 0),
            k => (self.marks[k - 1].0 as usize, self.marks[k - 1].1),
        }
    }
}

impl Encoding {
    /// `text`'s profile: one count's work, kept for its cuts.
    pub fn profile(self, text: &str) -> Profile {
        let (ranks, splitter) = self.parts();
        let mut p = Profile::default();
        let mut at = 0usize;
        for (k, piece) in splitter.pieces(text).enumerate() {
            at += piece.len();
            p.total += ranks.count_piece(piece.as_bytes()) as u64;
            if (k + 1) % EVERY == 0 {
                p.marks
                    .push((u32::try_from(at).unwrap_or(u32::MAX), p.total));
            }
        }
        p
    }

    /// The last piece boundary of `text` at or before byte `at`, and the tokens before it.
    fn boundary_before(self, text: &str, profile: &Profile, at: usize) -> (usize, u64) {
        let (ranks, splitter) = self.parts();
        let (mut off, mut tokens) = profile.mark(at);
        // Cut again from the mark, a boundary: the pieces after it are the whole text's.
        for piece in splitter.pieces(&text[off..]) {
            if off + piece.len() > at {
                break;
            }
            off += piece.len();
            tokens += ranks.count_piece(piece.as_bytes()) as u64;
        }
        (off, tokens)
    }

    /// The tokens before byte `x` of `text` when a piece of it ends there.
    fn tokens_at_boundary(self, text: &str, profile: &Profile, x: usize) -> Option<u64> {
        let (ranks, splitter) = self.parts();
        let (mut off, from) = profile.mark(x);
        // The pieces are found first and counted only when one ends at `x` (cutting `text`
        // there instead would change the last ones: a run at the end of a text stays whole).
        let mut pieces = Vec::new();
        for piece in splitter.pieces(&text[off..]) {
            if off >= x {
                break;
            }
            off += piece.len();
            pieces.push(piece);
        }
        (off == x).then(|| {
            from + pieces
                .iter()
                .map(|piece| ranks.count_piece(piece.as_bytes()) as u64)
                .sum::<u64>()
        })
    }

    /// The tokens of `text[..head] + marker + text[tail..]`, as [`Encoding::count`] counts
    /// that string, from `text`'s [`Encoding::profile`]. `head` and `tail` are character
    /// boundaries; `head` may pass `tail` (a short text's halves overlap).
    pub fn count_cut(
        self,
        text: &str,
        profile: &Profile,
        head: usize,
        marker: &str,
        tail: usize,
    ) -> u64 {
        let (from, before) = self.boundary_before(text, profile, head.saturating_sub(MARGIN));
        let (ranks, splitter) = self.parts();
        let mut width = WINDOW;
        loop {
            let mut end = (tail + width).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let whole = end == text.len();
            let window = [&text[from..head], marker, &text[tail..end]].concat();
            // Where the tail starts in the window.
            let tail_at = head - from + marker.len();
            let mut at = 0usize;
            let mut counted = 0u64;
            for piece in splitter.pieces(&window) {
                at += piece.len();
                counted += ranks.count_piece(piece.as_bytes()) as u64;
                if at <= tail_at {
                    continue;
                }
                let x = tail + (at - tail_at);
                // A boundary the window's pieces share with the whole text's, far enough from
                // the window's end not to depend on where it ends: the rest is the text's own.
                if (whole || x + MARGIN <= end)
                    && let Some(upto) = self.tokens_at_boundary(text, profile, x)
                {
                    return before + counted + (profile.total - upto);
                }
            }
            if whole {
                return before + counted;
            }
            width *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cut of texts shaped like tool results counts as the cut string does.
    #[test]
    fn a_cut_counts_as_the_cut_text() {
        let lines: String = (0..120)
            .map(|i| format!("{i:>5}\tfn item_{i}(x: u32) -> u32 {{ x * {i} }}   // naïve — ok\n"))
            .collect();
        let texts = [
            lines.as_str(),
            "short",
            "   leading and trailing runs   \n\n\n   ",
            "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
            "==================================================================================================================================== done",
        ];
        let marker =
            "\n[... 100 bytes omitted here; this result was 200 bytes; full text not saved ...]\n";
        for enc in Encoding::ALL {
            for text in texts {
                let p = enc.profile(text);
                assert_eq!(p.total(), enc.count(text));
                let bounds: Vec<usize> = (0..=text.len())
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                // About forty heads, and forty tails after each, across the text.
                let step = (bounds.len() / 40).max(1);
                for (k, &head) in bounds.iter().enumerate().step_by(step) {
                    for &tail in bounds.iter().skip(k.saturating_sub(3)).step_by(step + 1) {
                        let cut = [&text[..head], marker, &text[tail..]].concat();
                        assert_eq!(
                            enc.count_cut(text, &p, head, marker, tail),
                            enc.count(&cut),
                            "{enc}: head {head}, tail {tail} of a {}-byte text",
                            text.len()
                        );
                    }
                }
            }
        }
    }
}
