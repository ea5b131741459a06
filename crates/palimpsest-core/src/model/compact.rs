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
//! --json` and the app's types do not change. Which keys a format writes is its reader's
//! business.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON value kept as compact text (see the module docs).
#[derive(Clone)]
pub struct CompactJson(Box<str>);

impl CompactJson {
    /// CompactJson holding `v`.
    pub fn new(v: &Value) -> Self {
        Self(v.to_string().into_boxed_str())
    }

    /// The whole value, built afresh.
    pub fn value(&self) -> Value {
        // The text was written from a `Value`, so it reads back.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
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
        let mut de = serde_json::Deserializer::from_str(&self.0);
        de.deserialize_any(Pick(key, std::marker::PhantomData))
            .ok()
            .flatten()
    }

    /// Change the value in place (read, changed by `f`, written back).
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut Value) -> R) -> R {
        let mut v = self.value();
        let r = f(&mut v);
        *self = Self::new(&v);
        r
    }

    /// Set `key`, making the value an object when it was not one.
    pub fn set(&mut self, key: &str, value: Value) {
        self.edit(|v| match v {
            Value::Object(o) => {
                o.insert(key.into(), value);
            }
            _ => *v = serde_json::json!({ key: value }),
        });
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
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
        f.write_str(&self.0)
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
