//! How the builder's fields that serde cannot take as they are go into a reader's snapshot
//! (`resume::saved`): a node's `compactMetadata` and the titles' kinds. What a snapshot holds
//! and when it is trusted is `resume::saved`'s business.

/// A node's `compactMetadata` in a snapshot: as JSON text, so a `null` stays a `null`.
pub(super) mod meta_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(v: &Option<Box<Value>>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_some(&v.as_ref().map(|v| v.to_string()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<Value>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| serde_json::from_str(&t).map(Box::new))
            .transpose()
            .map_err(serde::de::Error::custom)
    }
}

/// The builder's titles in a snapshot, by the kinds `title` records.
pub(super) mod title_kinds {
    use std::collections::HashMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    const KINDS: [&str; 3] = ["custom", "ai", "summary"];

    pub fn serialize<S: Serializer>(
        t: &HashMap<&'static str, String>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        t.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<HashMap<&'static str, String>, D::Error> {
        let t = HashMap::<String, String>::deserialize(d)?;
        t.into_iter()
            .map(|(k, v)| match KINDS.iter().find(|&&n| n == k) {
                Some(n) => Ok((*n, v)),
                None => Err(serde::de::Error::custom(format!("unknown title kind {k}"))),
            })
            .collect()
    }
}
