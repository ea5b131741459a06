//! A tool result's text, held compressed in memory when it is long.
//!
//! Tool results are the bulk of a long session: a Read's file, a test run's output, a search's
//! hits. On a 210 MB Claude Code transcript their text made 27 MB of the 97 MB a loaded session
//! kept, while most views only count it or show one result at a time. So a text of at least
//! [`PACK_FROM`] bytes is kept zstd-compressed (level 1: about a third of its size on such
//! outputs, and fast both ways), and given back on demand by [`Body::text`]. Its length is kept
//! beside it, so what only needs the size (timeline rows, caps) does not unpack it. Serialized,
//! it is the plain string, so `show --json`, the index and the app's types do not change.
//! Which texts a reader puts here is the reader's business.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Texts shorter than this stay plain: packing them saves little and costs a call each.
pub const PACK_FROM: usize = 1024;

/// A tool result's text (see the module docs).
#[derive(Clone)]
pub struct Body {
    /// Length of the text in bytes.
    len: usize,
    held: Held,
}

#[derive(Clone)]
enum Held {
    Plain(Box<str>),
    /// zstd frame of the text; `len` is its unpacked size.
    Packed(Box<[u8]>),
}

thread_local! {
    // One context per thread: making one per call costs more than packing a short text.
    static PACKER: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static UNPACKER: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

fn pack(text: &str) -> Option<Box<[u8]>> {
    PACKER.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            *p = zstd::bulk::Compressor::new(1).ok();
        }
        let packed = p.as_mut()?.compress(text.as_bytes()).ok()?;
        // A text that does not shrink (already compressed, random) stays plain.
        (packed.len() < text.len()).then(|| packed.into_boxed_slice())
    })
}

fn unpack(packed: &[u8], len: usize) -> String {
    let bytes = UNPACKER.with(|u| {
        let mut u = u.borrow_mut();
        if u.is_none() {
            *u = zstd::bulk::Decompressor::new().ok();
        }
        u.as_mut().and_then(|u| u.decompress(packed, len).ok())
    });
    // The frame was made here from a `str`, so it unpacks to valid UTF-8 of `len` bytes; the
    // fallbacks only keep a broken invariant from panicking in a viewer.
    bytes
        .map(|b| {
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
        .unwrap_or_default()
}

impl Body {
    /// A body holding `text` plain, never packed: for a message made only to be counted and
    /// dropped at once, where packing would cost more than the message lives.
    pub fn plain(text: String) -> Self {
        Self {
            len: text.len(),
            held: Held::Plain(text.into_boxed_str()),
        }
    }

    /// A body holding `text`, packed when it is long and shrinks.
    pub fn new(text: String) -> Self {
        let len = text.len();
        let held = match (len >= PACK_FROM).then(|| pack(&text)).flatten() {
            Some(packed) => Held::Packed(packed),
            None => Held::Plain(text.into_boxed_str()),
        };
        Self { len, held }
    }

    /// The text (unpacked afresh when it is held packed).
    pub fn text(&self) -> Cow<'_, str> {
        match &self.held {
            Held::Plain(s) => Cow::Borrowed(s),
            Held::Packed(p) => Cow::Owned(unpack(p, self.len)),
        }
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        match self.held {
            Held::Plain(s) => s.into_string(),
            Held::Packed(p) => unpack(&p, self.len),
        }
    }

    /// Length of the text in bytes, without unpacking it.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes this body keeps in memory for its text.
    pub fn held_bytes(&self) -> usize {
        self.held().len()
    }

    /// The text as held: itself, or its zstd frame when packed. One text is always held the
    /// same way (packing is deterministic), so these bytes identify it, for a fingerprint that
    /// need not unpack it.
    pub fn held(&self) -> &[u8] {
        match &self.held {
            Held::Plain(s) => s.as_bytes(),
            Held::Packed(p) => p,
        }
    }
}

impl Body {
    /// Whether the text is held packed ([`Body::held`] is then a zstd frame).
    pub fn is_packed(&self) -> bool {
        matches!(self.held, Held::Packed(_))
    }

    /// A body from what [`Body::held`] and [`Body::is_packed`] gave, as a snapshot keeps it
    /// (`super::snap`): `None` when plain bytes are not UTF-8. A frame is trusted to unpack to
    /// `len` bytes, as one made here does.
    pub(crate) fn from_held(len: usize, packed: bool, bytes: Vec<u8>) -> Option<Self> {
        let held = if packed {
            Held::Packed(bytes.into_boxed_slice())
        } else {
            Held::Plain(String::from_utf8(bytes).ok()?.into_boxed_str())
        };
        Some(Self { len, held })
    }
}

impl Default for Body {
    fn default() -> Self {
        Self::new(String::new())
    }
}

impl From<String> for Body {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&str> for Body {
    fn from(text: &str) -> Self {
        Self::new(text.to_owned())
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        match (&self.held, &other.held) {
            (Held::Plain(a), Held::Plain(b)) => a == b,
            // zstd at one level gives one frame for one text, so two packed bodies compare
            // by their frames, unpacking neither (the loop finder compares every result).
            (Held::Packed(a), Held::Packed(b)) => a == b,
            _ => self.text() == other.text(),
        }
    }
}

impl PartialEq<str> for Body {
    fn eq(&self, other: &str) -> bool {
        self.len == other.len() && self.text() == other
    }
}

impl PartialEq<&str> for Body {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

impl fmt::Display for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl Serialize for Body {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long() -> String {
        (0..400)
            .map(|i| format!("line {i}: cargo test passed\n"))
            .collect()
    }

    #[test]
    fn a_long_text_is_held_packed_and_given_back_whole() {
        let text = long();
        let body = Body::new(text.clone());
        assert!(
            body.held_bytes() * 3 < text.len(),
            "a repetitive output packs to under a third: {} of {}",
            body.held_bytes(),
            text.len()
        );
        assert_eq!(body.text(), text, "the text comes back byte for byte");
        assert_eq!(
            body.len(),
            text.len(),
            "the length is the text's, not the packed size"
        );
        assert_eq!(body.into_string(), text, "owned, too");
    }

    #[test]
    fn a_short_or_incompressible_text_stays_plain() {
        let short = Body::from("ok");
        assert_eq!(short.held_bytes(), 2, "a short text is kept as is");
        let noise: String = (0..4000u32)
            .map(|i| char::from_u32(0x4e00 + (i.wrapping_mul(2_654_435_761) % 20_000)).unwrap())
            .collect();
        let body = Body::new(noise.clone());
        assert_eq!(
            body.text(),
            noise,
            "an incompressible text comes back whole"
        );
        assert!(
            body.held_bytes() <= noise.len(),
            "and is never held bigger than it is"
        );
    }

    #[test]
    fn it_serializes_as_the_plain_string_and_compares_by_text() {
        let text = long();
        let body = Body::new(text.clone());
        let json = serde_json::to_string(&body).unwrap();
        assert_eq!(
            json,
            serde_json::to_string(&text).unwrap(),
            "the JSON is the string's"
        );
        let back: Body = serde_json::from_str(&json).unwrap();
        assert_eq!(back, body, "read back, it is the same text");
        assert!(body == text.as_str(), "a body equals its text");
        let (a, b) = (
            Body::new(text.clone()),
            Body::new(text.replace("line 7:", "line 8:")),
        );
        assert_eq!(a, body, "two packed bodies of one text are equal");
        assert_ne!(a, b, "packed bodies of different texts differ");
        assert_ne!(
            Body::new(format!("{text}!")),
            body,
            "texts of different lengths differ"
        );
    }
}
