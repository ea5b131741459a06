//! What a Cline task's cuts need of each history entry (Roo Code's condense marks), read from
//! a loaded entry or straight from the history file's text, which lets a listing count a
//! task's messages and cuts without making its messages. The cuts themselves are `build`'s.

use serde_json::Value;

/// Roo Code's condense marks on one history entry: all a listing reads of the history, so a
/// listing parses it without keeping its messages. An entry that is no object (an unreadable
/// message once loaded) has none.
#[derive(Debug, Default)]
pub struct Mark {
    pub is_summary: Value,
    pub condense_id: Value,
    pub condense_parent: Value,
}

impl<'de> serde::Deserialize<'de> for Mark {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, Visitor};
        struct Marks;
        impl<'de> Visitor<'de> for Marks {
            type Value = Mark;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a history entry")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Mark, A::Error> {
                let mut m = Mark::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match k.as_ref() {
                        "isSummary" => m.is_summary = map.next_value()?,
                        "condenseId" => m.condense_id = map.next_value()?,
                        "condenseParent" => m.condense_parent = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(m)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Mark, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Mark::default())
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
            fn visit_unit<E>(self) -> std::result::Result<Mark, E> {
                Ok(Mark::default())
            }
        }
        d.deserialize_any(Marks)
    }
}

impl Mark {
    pub fn of(v: &Value) -> Mark {
        let at = |k: &str| v.get(k).cloned().unwrap_or_default();
        Mark {
            is_summary: at("isSummary"),
            condense_id: at("condenseId"),
            condense_parent: at("condenseParent"),
        }
    }

    pub fn summary(&self) -> bool {
        self.is_summary == Value::Bool(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_read_from_the_text_equal_those_of_the_loaded_entries() {
        let history = json!([
            {"role": "user", "content": "a", "condenseParent": "c1"},
            7,
            ["not", "a", "message"],
            {"role": "user", "content": [{"type": "text", "text": "summary"}], "isSummary": true, "condenseId": "c1"},
            {"role": "assistant", "content": "b", "isSummary": "yes"}
        ]);
        let read: Vec<Mark> = serde_json::from_str(&history.to_string()).unwrap();
        let of: Vec<Mark> = history.as_array().unwrap().iter().map(Mark::of).collect();
        let show = |m: &[Mark]| -> Vec<String> {
            m.iter()
                .map(|m| {
                    format!(
                        "{} {} {} {}",
                        m.summary(),
                        m.is_summary,
                        m.condense_id,
                        m.condense_parent
                    )
                })
                .collect()
        };
        assert_eq!(show(&read), show(&of));
        assert_eq!(
            show(&read),
            [
                "false null null \"c1\"",
                "false null null null",
                "false null null null",
                "true true \"c1\" null",
                "false \"yes\" null null"
            ]
        );
    }
}
