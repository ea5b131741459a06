//! A tool call's arguments, held packed in memory when long.
//!
//! Most calls' arguments are a command or a path, but a Write carries a whole file and an Edit
//! two passages of one. On a 210 MB Claude Code transcript the arguments took 13 MB held as
//! JSON values, 5.6 MB of their text in the tenth of calls whose arguments are 1 KiB or more.
//! Those are kept as their compact JSON text in a [`Body`] (zstd-packed, as a long tool
//! result is) and made into a value again when read; the others stay values, read in place.
//! Serialized, both are the same JSON value, so `show --json`, the index and the app's types
//! do not change. What a call's arguments mean is the reader's and the analyses' business.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::Body;

/// Arguments whose strings (keys included) hold fewer bytes than this stay a value: packing
/// saves little, and every read of a packed one parses it again.
pub const PACK_FROM: usize = 1024;

/// A tool call's arguments (see the module docs).
#[derive(Clone)]
pub struct Arguments(Held);

#[derive(Clone)]
enum Held {
    Value(Value),
    /// Boxed so that a call's part is no bigger than it was with a bare value.
    Packed(Box<Body>),
}

impl Arguments {
    /// Arguments holding `v`, packed when its text is long and shrinks.
    pub fn new(v: Value) -> Self {
        // Measured by their strings first: most calls are far below, and writing each as text
        // to find out took a tenth of a transcript's read.
        if strings_reach(&v, PACK_FROM) {
            let body = Body::new(v.to_string());
            if body.held_bytes() < body.len() {
                return Self(Held::Packed(Box::new(body)));
            }
        }
        Self(Held::Value(v))
    }

    /// The value: borrowed when held as one, else made from the packed text.
    pub fn value(&self) -> Cow<'_, Value> {
        match &self.0 {
            Held::Value(v) => Cow::Borrowed(v),
            // The text was written from a `Value` by `new`, so it reads back; null only keeps a
            // broken invariant from panicking in a viewer.
            Held::Packed(b) => Cow::Owned(serde_json::from_str(&b.text()).unwrap_or(Value::Null)),
        }
    }

    /// The value, owned.
    pub fn into_value(self) -> Value {
        match self.0 {
            Held::Value(v) => v,
            Held::Packed(_) => self.value().into_owned(),
        }
    }

    /// The compact JSON text (`Value::to_string`'s), without building the value when packed.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Held::Value(v) => Cow::Owned(v.to_string()),
            Held::Packed(b) => b.text(),
        }
    }

    /// Length of the compact JSON text in bytes, without unpacking it when packed.
    pub fn text_len(&self) -> usize {
        match &self.0 {
            Held::Value(v) => v.to_string().len(),
            Held::Packed(b) => b.len(),
        }
    }

    /// The string under `key` when the arguments are an object holding one there.
    pub fn str_of(&self, key: &str) -> Option<Cow<'_, str>> {
        match self.value() {
            Cow::Borrowed(v) => v.get(key)?.as_str().map(Cow::Borrowed),
            Cow::Owned(mut v) => match v.get_mut(key)?.take() {
                Value::String(s) => Some(Cow::Owned(s)),
                _ => None,
            },
        }
    }

    /// Whether the arguments are held packed.
    pub fn is_packed(&self) -> bool {
        matches!(self.0, Held::Packed(_))
    }
}

/// Whether the strings (keys included) in `v` hold `n` bytes or more; stops once they do.
fn strings_reach(v: &Value, n: usize) -> bool {
    fn walk(v: &Value, left: &mut usize) -> bool {
        match v {
            Value::String(s) => {
                *left = left.saturating_sub(s.len());
                *left == 0
            }
            Value::Array(a) => a.iter().any(|x| walk(x, left)),
            Value::Object(m) => m.iter().any(|(k, x)| {
                *left = left.saturating_sub(k.len());
                *left == 0 || walk(x, left)
            }),
            _ => false,
        }
    }
    let mut left = n;
    walk(v, &mut left)
}

impl Default for Arguments {
    fn default() -> Self {
        Self(Held::Value(Value::Null))
    }
}

impl From<Value> for Arguments {
    fn from(v: Value) -> Self {
        Self::new(v)
    }
}

impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Held::Value(a), Held::Value(b)) => a == b,
            // One text packs to one frame, so two packed ones compare by their frames.
            (Held::Packed(a), Held::Packed(b)) => a == b,
            _ => self.value() == other.value(),
        }
    }
}

impl PartialEq<Value> for Arguments {
    fn eq(&self, other: &Value) -> bool {
        *self.value() == *other
    }
}

impl fmt::Debug for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.value(), f)
    }
}

impl fmt::Display for Arguments {
    /// The compact JSON text, as a value displays.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Held::Value(v) => fmt::Display::fmt(v, f),
            Held::Packed(b) => f.write_str(&b.text()),
        }
    }
}

impl Serialize for Arguments {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_call() -> Value {
        let body: String = (0..200)
            .map(|i| format!("line {i} of the file\n"))
            .collect();
        json!({"file_path": "/src/big.rs", "content": body})
    }

    #[test]
    fn a_whole_file_write_is_held_packed_and_reads_back_as_it_was() {
        let v = write_call();
        let a = Arguments::new(v.clone());
        assert!(
            a.is_packed(),
            "4 KiB of repeated lines shrink, so they are packed"
        );
        assert_eq!(*a.value(), v, "the value reads back");
        assert_eq!(
            a.text(),
            v.to_string(),
            "the text is the value's compact JSON"
        );
        assert_eq!(
            a.text_len(),
            v.to_string().len(),
            "its length, known without unpacking"
        );
        assert_eq!(
            a.to_string(),
            v.to_string(),
            "and displays as the value does"
        );
        assert_eq!(
            a.str_of("file_path").as_deref(),
            Some("/src/big.rs"),
            "one key reads back"
        );
        assert_eq!(a.str_of("missing"), None, "a key it does not hold");
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            v,
            "it serializes as the value"
        );
        assert_eq!(
            a,
            Arguments::new(v.clone()),
            "equal to the same arguments packed again"
        );
        assert_eq!(a, v, "and to the value");
        assert_eq!(a.into_value(), v, "owned, the same value");
    }

    #[test]
    fn short_arguments_stay_a_value_borrowed_in_place() {
        let a = Arguments::new(json!({"command": "cargo test", "description": "Run the tests"}));
        assert!(!a.is_packed(), "under PACK_FROM bytes");
        assert!(matches!(a.value(), Cow::Borrowed(_)), "read without a copy");
        assert_eq!(
            a.str_of("command").as_deref(),
            Some("cargo test"),
            "its strings read in place"
        );
        let s = Arguments::new(Value::String("x".repeat(4000)));
        assert!(
            s.is_packed(),
            "unparsed text a reader kept as a string is packed too"
        );
        assert_eq!(s.str_of("command"), None, "and holds no key");
        assert_eq!(*s.value(), Value::String("x".repeat(4000)), "it reads back");
    }

    #[test]
    fn a_call_part_is_no_bigger_than_with_a_bare_value() {
        assert_eq!(
            std::mem::size_of::<Arguments>(),
            std::mem::size_of::<Value>(),
            "the packed variant fits in the value's niche, so every part keeps its size"
        );
    }
}
