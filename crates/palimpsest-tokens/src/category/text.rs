//! The text of a counted piece ([`super::Piece`]) without holding it: a part's text is
//! borrowed, and what is made from a part (a call's arguments as JSON, a tool result unpacked)
//! is made again each time it is read. Held made, every call's arguments of a 210 MB transcript
//! took 7 MB at once while `tokens` counted it. How a part splits into pieces is the parent module's.

use std::borrow::Cow;

use serde_json::Value;

use super::{ToolKind, split_arguments};
use crate::cache::Key;
use crate::model::{Arguments, Body};

/// The text of a `Piece`: borrowed from its part, or made again each time it is read (a tool
/// result's [`Body`] unpacked, a call's arguments as JSON), so splitting a session never holds
/// every result's or every call's text at once.
#[derive(Debug, Clone)]
pub enum PieceText<'a> {
    /// Text borrowed from the part (or made from it, when short).
    Text(Cow<'a, str>),
    /// A tool result's text.
    Body(&'a Body),
    /// The `which`-th piece `split_call` makes of a call, whose key (and length) is `key`.
    Call {
        /// The tool's name.
        name: &'a str,
        /// What it does.
        kind: ToolKind,
        /// Its arguments.
        arguments: &'a Arguments,
        /// Which of the call's pieces.
        which: usize,
        /// The piece's cache key, taken when it was first made: the counts cache is asked by
        /// it, so a piece counted before is never made again.
        key: Key,
    },
    /// A value as JSON (a part this reader does not model), and its key.
    Json(&'a Value, Key),
}

impl PartialEq for PieceText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.get() == other.get()
    }
}

impl PieceText<'_> {
    /// Length in bytes, without unpacking a body.
    pub fn len(&self) -> usize {
        match self {
            PieceText::Text(t) => t.len(),
            PieceText::Body(b) => b.len(),
            PieceText::Call { key, .. } | PieceText::Json(_, key) => key.bytes,
        }
    }

    /// Its key in the counts cache, without making it again when it was made before.
    pub fn key(&self) -> Key {
        match self {
            PieceText::Call { key, .. } | PieceText::Json(_, key) => *key,
            _ => Key::of(&self.get()),
        }
    }

    /// True when the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text (a body unpacked afresh, a call's piece made again).
    pub fn get(&self) -> Cow<'_, str> {
        match self {
            PieceText::Text(t) => Cow::Borrowed(t),
            PieceText::Body(b) => b.text(),
            PieceText::Call {
                name,
                kind,
                arguments,
                which,
                ..
            } => split_arguments(name, *kind, arguments)
                .into_iter()
                .nth(*which)
                .map_or(Cow::Borrowed(""), |(_, t)| t),
            PieceText::Json(v, _) => Cow::Owned(v.to_string()),
        }
    }
}

/// A text made from a part (arguments as JSON) this long or shorter is kept made; a longer one
/// is made again when read: about what a reference to what it is made from takes.
pub(super) const MADE_KEPT: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::category::pieces;
    use crate::model::{Message, Part, Role};
    use crate::testkit;
    use serde_json::json;

    #[test]
    fn a_call_made_again_reads_as_split_call_made_it() {
        let body = "x".repeat(500);
        let args = json!({"file_path": "/w/a.py", "old_string": body, "new_string": "y"});
        let call = Part::ToolCall {
            id: "c1".into(),
            name: "Edit".into(),
            arguments: args.clone().into(),
        };
        let session = testkit::session(vec![Message::new(0, Role::Assistant, vec![call])], vec![]);
        let got = pieces(&session);
        let want = super::super::split_call("Edit", ToolKind::Edit, &args);
        assert_eq!(
            got.len(),
            want.len(),
            "one piece per piece split_call makes"
        );
        for (p, (category, text)) in got.iter().zip(&want) {
            assert_eq!(p.category, *category, "same category");
            assert_eq!(p.text.len(), text.len(), "its length without making it");
            assert_eq!(p.text.get(), *text, "the same text when made again");
            assert_eq!(p.text.key(), Key::of(text), "the key of that text");
        }
        assert!(
            matches!(got[1].text, PieceText::Call { which: 1, .. }),
            "the 500-byte edit body is not held made: {:?}",
            got[1].text
        );
        assert!(
            matches!(got[2].text, PieceText::Text(_)),
            "a short one is kept made"
        );
    }

    #[test]
    fn a_part_kept_as_json_reads_as_its_json() {
        let raw = json!({"subtype": "turn_duration", "note": "z".repeat(100)});
        let t = PieceText::Json(&raw, Key::of(&raw.to_string()));
        assert_eq!(t.get(), raw.to_string(), "the value as JSON");
        assert_eq!(t.len(), t.get().len(), "its length as made");
        assert_eq!(t.key(), Key::of(&t.get()), "its key is the made text's");
    }
}
