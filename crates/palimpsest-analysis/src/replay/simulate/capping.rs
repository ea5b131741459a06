//! A prepared session with its tool results capped on arrival (`Prepared::with_cap`), at one
//! cap or several (`with_caps`, the caps of a tune's grid). Only results over the cap are
//! counted again. A text cut to its head and tail is counted from the whole result's pieces,
//! found once for every cap (`tokens::cut`): counting each cut string anew was three quarters
//! of a first `tune`. Where the cap cuts is `cap`'s; running the replay is the runners'.

use std::collections::HashMap;

use serde_json::Value;

use super::{Prepared, TOOL_RESULT, cw, sizes};
use crate::model::{Message, Part};
use crate::replay::Counter;
use crate::replay::cap::{self, Bound};
use crate::tokens::Encoding;
use crate::tokens::cut::Profile;

/// Each long result's pieces, by stored message and part, kept across caps.
type Profiles = HashMap<(u32, usize), Profile>;

impl Prepared<'_> {
    /// The same session with tool results capped on arrival at `max_bytes` (0 = off).
    pub fn with_cap(&self, max_bytes: usize, counter: Counter<'_>) -> Self {
        self.capped(max_bytes, counter, &mut Profiles::new())
    }

    /// [`Prepared::with_cap`] at each of `caps`, in order, each long result's pieces found once.
    pub fn with_caps(&self, caps: &[usize], counter: Counter<'_>) -> Vec<Self> {
        let mut profiles = Profiles::new();
        caps.iter()
            .map(|&c| self.capped(c, counter, &mut profiles))
            .collect()
    }

    fn capped(&self, max_bytes: usize, counter: Counter<'_>, profiles: &mut Profiles) -> Self {
        let mut p = self.clone();
        p.cap_bytes = max_bytes;
        if max_bytes == 0 {
            return p;
        }
        // coworker sizes results by their stored JSON too: it takes the capped copy.
        let pieces = counter.encoding().filter(|_| !p.json_sizes);
        for e in p.entries.iter_mut().filter(|e| e.flags & TOOL_RESULT != 0) {
            let m = &self.session().messages[e.source as usize];
            if let Some(enc) = pieces
                && let Some(tokens) =
                    cut_tokens(m, e.source, e.tokens, max_bytes, enc, counter, profiles)
            {
                e.tokens = tokens;
                continue;
            }
            if let Some(capped) = capped_message(m, max_bytes) {
                (e.tokens, e.canon_len, e.out_len) = if p.json_sizes {
                    sizes(&capped, &cw::stored_value(&capped, None), counter)
                } else {
                    (counter.count(&capped), 0, 0)
                };
            }
        }
        p
    }
}

/// The tokens of message `m` (stored `source`, `tokens` uncapped) with its results capped at
/// `max_bytes`, each cut counted from its text's pieces; `None` when a result is a JSON
/// object the cap rewrites (it is counted as written).
fn cut_tokens(
    m: &Message,
    source: u32,
    tokens: u64,
    max_bytes: usize,
    enc: Encoding,
    counter: Counter<'_>,
    profiles: &mut Profiles,
) -> Option<u64> {
    let mut t = tokens;
    for (k, part) in m.parts.iter().enumerate() {
        let Part::ToolResult { text, .. } = part else {
            continue;
        };
        if !cap::may_exceed(text.len(), max_bytes) {
            continue;
        }
        let body = text.text();
        match cap::bound_cut(&body, max_bytes) {
            None => {}
            Some(Bound::Json(_)) => return None,
            Some(Bound::Cut(c)) => {
                let p = profiles.entry((source, k)).or_insert_with(|| {
                    counter.profile(&body).unwrap_or_else(|| enc.profile(&body))
                });
                // The uncapped count holds the whole text's, which its pieces sum to.
                t = t.saturating_sub(p.total())
                    + enc.count_cut(&body, p, c.head, &c.marker, c.tail);
            }
        }
    }
    Some(t)
}

/// A copy of `m` with every tool result bounded at `max_bytes`; `None` when all fit. Only the
/// parts are copied (without the uncut texts), since the copy exists to be counted.
pub fn capped_message(m: &Message, max_bytes: usize) -> Option<Message> {
    // Measured as the cap measures (an object as `json.dumps` writes it), not by stored bytes;
    // each result bounded once.
    let bounded: Vec<Option<String>> = m
        .parts
        .iter()
        .map(|p| match p {
            Part::ToolResult { text, .. } => cap::bound_body(text, max_bytes),
            _ => None,
        })
        .collect();
    if bounded.iter().all(Option::is_none) {
        return None;
    }
    let parts = m
        .parts
        .iter()
        .zip(bounded)
        .map(|(p, b)| match p {
            Part::ToolResult {
                call_id,
                text,
                is_error,
                ..
            } => Part::ToolResult {
                call_id: call_id.clone(),
                text: b.map_or_else(|| text.clone(), Into::into),
                is_error: *is_error,
                raw: Value::Null.into(),
            },
            other => other.clone(),
        })
        .collect();
    let mut c = Message::new(m.index, m.role, parts);
    c.kind = m.kind;
    Some(c)
}
