//! A tool call's arguments, held as compact text in memory.
//!
//! Most calls' arguments are a command or a path, but a Write carries a whole file and an Edit
//! two passages of one. On a 210 MB Claude Code transcript the arguments took 13 MB held as
//! JSON values: 5.6 MB of their text in the tenth of calls whose strings hold 1 KiB or more,
//! and about 5.5 MB the maps of the others (an object of two short strings is a few hundred
//! bytes of map as a value). So they are kept as their compact JSON text: the long ones in a
//! [`Body`] (zstd-packed, as a long tool result is), the others as [`CompactJson`] (packed
//! against its dictionary of shapes), and made into a value again when read. Serialized, they
//! are the same JSON value, so `show --json`, the index and the app's types do not change.
//! What a call's arguments mean is the reader's and the analyses' business.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{Body, CompactJson};

/// Arguments whose strings (keys included) hold this many bytes or more are kept in a
/// [`Body`]: packed alone, with zstd's usual level, rather than against the details'
/// dictionary, which fits short JSON.
pub const PACK_FROM: usize = 1024;

/// A tool call's arguments (see the module docs).
#[derive(Clone)]
pub struct Arguments(Held);

#[derive(Clone)]
enum Held {
    Json(CompactJson),
    /// Boxed: a handful of calls carry one, and a call's part stays small.
    Long(Box<Body>),
}

impl Arguments {
    /// Arguments holding `v`.
    pub fn new(v: Value) -> Self {
        // Measured by their strings first: most calls are far below, and writing each as text
        // to find out took a tenth of a transcript's read.
        if strings_reach(&v, PACK_FROM) {
            let body = Body::new(v.to_string());
            if body.held_bytes() < body.len() {
                return Self(Held::Long(Box::new(body)));
            }
        }
        Self(Held::Json(CompactJson::new(&v)))
    }

    /// The value, made afresh from the text held.
    pub fn value(&self) -> Value {
        match &self.0 {
            Held::Json(j) => j.value(),
            // The text was written from a `Value` by `new`, so it reads back; null only keeps a
            // broken invariant from panicking in a viewer.
            Held::Long(b) => serde_json::from_str(&b.text()).unwrap_or(Value::Null),
        }
    }

    /// The compact JSON text (`Value::to_string`'s), without building the value.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Held::Json(j) => j.text(),
            Held::Long(b) => b.text(),
        }
    }

    /// Length of the compact JSON text in bytes, without unpacking it.
    pub fn text_len(&self) -> usize {
        match &self.0 {
            Held::Json(j) => j.text_len(),
            Held::Long(b) => b.len(),
        }
    }

    /// The string under `key` when the arguments are an object holding one there (read
    /// without building the other keys when short).
    pub fn str_of(&self, key: &str) -> Option<String> {
        let v = match &self.0 {
            Held::Json(j) => j.get(key)?,
            Held::Long(_) => self.value().get_mut(key)?.take(),
        };
        match v {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// How they are held, for a snapshot (`super::snap`).
    pub(crate) fn held(&self) -> Result<&CompactJson, &Body> {
        match &self.0 {
            Held::Json(j) => Ok(j),
            Held::Long(b) => Err(b),
        }
    }

    /// Arguments held as [`Arguments::held`] gave them.
    pub(crate) fn from_held(held: Result<CompactJson, Body>) -> Self {
        Self(match held {
            Ok(j) => Held::Json(j),
            Err(b) => Held::Long(Box::new(b)),
        })
    }

    /// Whether the arguments are long ones, held in a [`Body`].
    pub fn is_long(&self) -> bool {
        matches!(self.0, Held::Long(_))
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
        Self::new(Value::Null)
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
            (Held::Json(a), Held::Json(b)) => a == b,
            // One text packs to one frame, so two long ones compare by their frames.
            (Held::Long(a), Held::Long(b)) => a == b,
            _ => self.value() == other.value(),
        }
    }
}

impl PartialEq<Value> for Arguments {
    fn eq(&self, other: &Value) -> bool {
        self.value() == *other
    }
}

impl fmt::Debug for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value(), f)
    }
}

impl fmt::Display for Arguments {
    /// The compact JSON text, as a value displays.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
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
    fn a_whole_file_write_is_held_long_and_reads_back_as_it_was() {
        let v = write_call();
        let a = Arguments::new(v.clone());
        assert!(
            a.is_long(),
            "4 KiB of repeated lines shrink, so they are held in a packed body"
        );
        assert_eq!(a.value(), v, "the value reads back");
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
        let back: Arguments = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, a, "read back from its JSON, the same arguments");
        assert_eq!(a, v, "and to the value");
    }

    #[test]
    fn short_arguments_are_compact_text_and_read_back() {
        let v = json!({"command": "cargo test", "description": "Run the tests", "n": [1, 2.5]});
        let a = Arguments::new(v.clone());
        assert!(!a.is_long(), "under PACK_FROM bytes of strings");
        assert_eq!(a.value(), v, "the value reads back");
        assert_eq!(a.text(), v.to_string(), "the text is the compact JSON");
        assert_eq!(a.text_len(), v.to_string().len(), "and its length");
        assert_eq!(
            a.str_of("command").as_deref(),
            Some("cargo test"),
            "one key reads back"
        );
        assert_eq!(a.str_of("n"), None, "a key holding no string");
        assert_eq!(a, v, "equal to the value");
        assert_eq!(
            Arguments::new(Value::Null).to_string(),
            "null",
            "no arguments read back as null"
        );
        let s = Arguments::new(Value::String("x".repeat(4000)));
        assert!(
            s.is_long(),
            "unparsed text a reader kept as a string is a long one too"
        );
        assert_eq!(s.str_of("command"), None, "and holds no key");
        assert_eq!(s.value(), Value::String("x".repeat(4000)), "it reads back");
    }

    #[test]
    fn a_call_part_is_no_bigger_than_with_a_bare_value() {
        assert!(
            std::mem::size_of::<Arguments>() <= std::mem::size_of::<Value>(),
            "arguments take no more room in a part than a value did"
        );
    }
}
