//! A JSON value held as its compact text: a message's format-specific details and a tool
//! result's stored block.
//!
//! Readers put in `details` what a source stores beside the content (Claude Code's usage
//! object, line numbers and byte offsets, a short `toolUseResult`; goose's metadata; Codex's
//! extra usage), and in a tool result's `raw` the block as stored, for the raw view. Held as
//! `serde_json::Value`, details alone made about half of what a loaded 210 MB transcript kept
//! (2.2 KB a message for about 350 bytes of JSON: every key a `String`, every object a map).
//! So they are kept as compact text and read back on demand: one key with
//! [`CompactJson::get`] (the others are skipped without being built), the whole with
//! [`CompactJson::value`]. Serialized, they are the same JSON value as before, so `show
//! --json` and the app's types do not change. A text of [`PACK_FROM`] bytes or more is held
//! zstd-packed against a dictionary of the shapes readers write ([`pack`]): the details of a
//! 210 MB transcript took 11 MB as text. Which keys a format writes is its reader's business.

mod pack;

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Texts shorter than this stay plain: a frame's header and a call each cost more than the
/// few bytes packing would save (`{"lines":[12],"offsets":[3456]}` is 31).
pub const PACK_FROM: usize = 48;

/// A JSON value kept as compact text (see the module docs): the text's UTF-8 bytes, or a zstd
/// frame of them (told apart by the frame's magic, which no JSON text starts with).
#[derive(Clone)]
pub struct CompactJson(Box<[u8]>);

impl CompactJson {
    /// CompactJson holding `v`, packed when it is long.
    pub fn new(v: &Value) -> Self {
        let mut c = Self::plain(v);
        c.pack();
        c
    }

    /// CompactJson holding `v` as plain text, for a value that is about to be edited again
    /// (a reader growing the details of the message it is building); [`pack`](Self::pack) it
    /// when it is settled.
    pub fn plain(v: &Value) -> Self {
        Self(v.to_string().into_bytes().into_boxed_slice())
    }

    /// Hold the text packed, when it is plain, long enough and shrinks.
    pub fn pack(&mut self) {
        if self.is_packed() || self.0.len() < PACK_FROM {
            return;
        }
        if let Some(packed) = pack::pack(&self.0) {
            self.0 = packed;
        }
    }

    /// The text as held: its UTF-8 bytes, or their zstd frame. Packing is deterministic, so
    /// these bytes identify the value, for a key that need not unpack it.
    pub fn held(&self) -> &[u8] {
        &self.0
    }

    /// A value from what [`CompactJson::held`] gave (a snapshot, `super::snap`): `None` when
    /// plain bytes are not UTF-8.
    pub(crate) fn from_held(bytes: Vec<u8>) -> Option<Self> {
        let ok = bytes.starts_with(&pack::MAGIC) || std::str::from_utf8(&bytes).is_ok();
        ok.then(|| Self(bytes.into_boxed_slice()))
    }

    /// Whether the text is held packed.
    pub fn is_packed(&self) -> bool {
        self.0.starts_with(&pack::MAGIC)
    }

    /// The compact JSON text (unpacked when it is held packed).
    pub fn text(&self) -> Cow<'_, str> {
        if self.is_packed() {
            // The frame was made here from a `str`; "null" only keeps a broken invariant from
            // panicking in a viewer.
            return Cow::Owned(pack::unpack(&self.0).unwrap_or_else(|| "null".into()));
        }
        // Written from a `String` by `new`.
        String::from_utf8_lossy(&self.0)
    }

    /// Length of the compact JSON text in bytes, without unpacking it (a frame's header
    /// holds it).
    pub fn text_len(&self) -> usize {
        if self.is_packed() {
            return pack::unpacked_len(&self.0).unwrap_or(4);
        }
        self.0.len()
    }

    /// The whole value, built afresh.
    pub fn value(&self) -> Value {
        // The text was written from a `Value`, so it reads back.
        serde_json::from_str(&self.text()).unwrap_or(Value::Null)
    }

    /// The value under `key` when the value is an object holding it; the other keys are
    /// skipped, not built.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.pick(key)
    }

    /// Whether the value is an object holding `key` (its value skipped, not built).
    pub fn has(&self, key: &str) -> bool {
        self.pick::<IgnoredAny>(key).is_some()
    }

    /// The value under `key`, read as `T`; the other keys are skipped.
    fn pick<T: for<'de> Deserialize<'de>>(&self, key: &str) -> Option<T> {
        pick_in(&self.text(), key)
    }

    /// Change the value in place (read, changed by `f`, written back).
    /// It stays packed or plain as it was.
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut Value) -> R) -> R {
        let mut v = self.value();
        let r = f(&mut v);
        *self = if self.is_packed() {
            Self::new(&v)
        } else {
            Self::plain(&v)
        };
        r
    }

    /// Set `key`, making the value an object when it was not one.
    pub fn set(&mut self, key: &str, value: Value) {
        // A key an object does not hold yet goes at its end, as `Map::insert` puts it: spliced
        // into the text, without building the value (passes mark thousands of messages).
        let text = self.text();
        if text.starts_with('{') && pick_in::<IgnoredAny>(&text, key).is_none() {
            let mut t = text.into_owned();
            t.pop();
            if t.len() > 1 {
                t.push(',');
            }
            t.push_str(&Value::from(key).to_string());
            t.push(':');
            t.push_str(&value.to_string());
            t.push('}');
            let packed = self.is_packed();
            self.0 = t.into_bytes().into_boxed_slice();
            if packed {
                self.pack();
            }
            return;
        }
        self.edit(|v| match v {
            Value::Object(o) => {
                o.insert(key.into(), value);
            }
            _ => *v = serde_json::json!({ key: value }),
        });
    }
}

impl From<Value> for CompactJson {
    fn from(v: Value) -> Self {
        Self::new(&v)
    }
}

impl PartialEq for CompactJson {
    /// Equal as JSON values (an object's keys in another order are still equal).
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.value() == other.value()
    }
}

impl fmt::Debug for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl Serialize for CompactJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Built again so a pretty printer indents it like any other value.
        self.value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for CompactJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| Self::new(&v))
    }
}

/// The value under `key` in the JSON `text`, read as `T`; the other keys are skipped.
fn pick_in<T: for<'de> Deserialize<'de>>(text: &str, key: &str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(Pick(key, std::marker::PhantomData))
        .ok()
        .flatten()
}

/// Reads an object's value under one key as `T`, skipping the rest.
struct Pick<'k, T>(&'k str, std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Pick<'_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(hit) = map.next_key_seed(KeyIs(self.0))? {
            if hit && found.is_none() {
                found = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    // CompactJson that are not an object hold no key.
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Whether a map key equals the one sought, without allocating it when it has no escapes.
struct KeyIs<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<bool, E> {
        Ok(k == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_reads_back_and_the_rest_is_skipped() {
        let d =
            CompactJson::new(&json!({"lines": [3, 4], "usage": {"input_tokens": 12}, "t\"x": 1}));
        assert_eq!(
            d.get("usage"),
            Some(json!({"input_tokens": 12})),
            "a nested value"
        );
        assert_eq!(d.get("t\"x"), Some(json!(1)), "a key with an escape");
        assert_eq!(d.get("model"), None, "a key it does not hold");
        assert!(d.has("usage") && d.has("t\"x"), "keys it holds are had");
        assert!(!d.has("model"), "a key it does not hold is not");
        assert!(
            CompactJson::new(&json!({"k": null})).has("k"),
            "a key holding null is still held"
        );
        assert_eq!(
            CompactJson::new(&json!([1])).get("lines"),
            None,
            "not an object"
        );
    }

    #[test]
    fn it_serializes_as_the_value_it_holds() {
        let v = json!({"b": 1, "a": {"c": [1, 2.5, "x"]}});
        let d = CompactJson::new(&v);
        assert_eq!(
            serde_json::to_string_pretty(&d).unwrap(),
            serde_json::to_string_pretty(&v).unwrap(),
            "pretty output is the value's, keys in their order"
        );
        let back: CompactJson = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d, "it reads back");
    }

    #[test]
    fn edits_and_sets_write_back() {
        let mut d = CompactJson::new(&json!({"lines": [1]}));
        d.edit(|v| v["lines"].as_array_mut().unwrap().push(json!(2)));
        d.set("offsets", json!([0, 10]));
        assert_eq!(
            d.value(),
            json!({"lines": [1, 2], "offsets": [0, 10]}),
            "both changes kept"
        );
        let mut n = CompactJson::new(&Value::Null);
        n.set("k", json!(true));
        assert_eq!(
            n.value(),
            json!({"k": true}),
            "a non-object becomes an object"
        );
    }

    #[test]
    fn a_long_value_is_held_packed_and_reads_back_whole() {
        let v = json!({"lines": [6, 7], "message_id": "msg_01EEiRWuVvwAmenNJXZcerPY",
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 17842,
                      "service_tier": "standard"}, "offsets": [2508, 3350]});
        let d = CompactJson::new(&v);
        assert!(
            d.0.starts_with(&pack::MAGIC) && d.0.len() < v.to_string().len(),
            "over PACK_FROM bytes and shrinking, it is held as a frame"
        );
        assert_eq!(d.text(), v.to_string(), "its text is the compact JSON");
        assert_eq!(
            d.text_len(),
            v.to_string().len(),
            "and its length, from the header"
        );
        assert_eq!(
            d.get("usage"),
            Some(v["usage"].clone()),
            "one key reads back"
        );
        assert!(
            d.has("offsets") && !d.has("model"),
            "held keys are had, others not"
        );
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            v,
            "it serializes as the value"
        );
        let mut e = d;
        e.set("branch", json!("inactive"));
        assert_eq!(e.get("branch"), Some(json!("inactive")), "an edit is kept");
        assert_eq!(e.get("lines"), Some(json!([6, 7])), "beside the rest");
        let short = CompactJson::new(&json!({"lines": [12]}));
        assert_eq!(
            &*short.0, b"{\"lines\":[12]}",
            "a short one stays plain text"
        );
    }

    #[test]
    fn equal_values_are_equal_whatever_their_key_order() {
        let a = CompactJson::new(&json!({"a": 1, "b": 2}));
        let b = CompactJson::new(&json!({"b": 2, "a": 1}));
        assert_eq!(a, b, "the same object");
        assert_ne!(
            a,
            CompactJson::new(&json!({"a": 1})),
            "a missing key differs"
        );
    }
}
