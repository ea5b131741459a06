//! One line of a transcript's head, read for the listing's few fields only ([`HeadLine`]).
//!
//! Every folder listing reads the head of every transcript in it (up to 256 KiB each: a first
//! prompt can be long), so building a whole `serde_json::Value` of each line was most of the
//! time a home of hundreds of sessions took to list. This reads the same fields straight from
//! the bytes and skips the rest unbuilt. It answers what `Value::get(..).as_str()` would: a
//! field of another type counts as absent (it does not cost the line), the last of duplicate
//! keys wins, and a line that is not a JSON object has no fields. What the fields mean is
//! `listing`'s.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The fields of one head line the listing uses.
#[derive(Debug, Default)]
pub(super) struct HeadLine {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub slug: Option<String>,
    pub timestamp: Option<String>,
    pub kind: Option<String>,
    pub is_meta: Option<bool>,
    /// `message.model`.
    pub model: Option<String>,
    /// `message.content` when it is a string.
    pub content: Option<String>,
}

impl HeadLine {
    /// The line's fields, or `None` when it is not JSON.
    pub fn parse(line: &[u8]) -> Option<HeadLine> {
        serde_json::from_slice::<Line>(line).ok().map(|l| l.0)
    }
}

/// A field's value when it is a string or a bool (every field read is one or the other);
/// anything else is skipped unbuilt.
enum Leaf {
    Str(String),
    Bool(bool),
    Other,
}

impl Leaf {
    fn str(self) -> Option<String> {
        match self {
            Leaf::Str(s) => Some(s),
            _ => None,
        }
    }

    fn bool(self) -> Option<bool> {
        match self {
            Leaf::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// `message`: its model and string content, when it is an object.
struct Message(Option<String>, Option<String>);

struct Line(HeadLine);

/// What a visitor makes of a number, null or array (none of the fields read is one), and, for
/// one that wants a map (`map` given), of a string or bool too: `$out`, with the value skipped.
macro_rules! skip_others {
    ($out:expr) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($out)
        }
    };
    (map $out:expr) => {
        skip_others!($out);
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out)
        }
    };
}

impl<'de> de::Deserialize<'de> for Leaf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Leaf;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            skip_others!(Leaf::Other);
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Leaf, E> {
                Ok(Leaf::Bool(b))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Leaf, E> {
                Ok(Leaf::Str(s.to_owned()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Leaf, E> {
                Ok(Leaf::Str(s))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Leaf, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Leaf::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> de::Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            skip_others!(map Message(None, None));
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
                let (mut model, mut content) = (None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Model => model = map.next_value::<Leaf>()?.str(),
                        Key::Content => content = map.next_value::<Leaf>()?.str(),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Message(model, content))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> de::Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Line;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            skip_others!(map Line(HeadLine::default()));
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
                let mut h = HeadLine::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::SessionId => h.session_id = map.next_value::<Leaf>()?.str(),
                        Key::Cwd => h.cwd = map.next_value::<Leaf>()?.str(),
                        Key::Slug => h.slug = map.next_value::<Leaf>()?.str(),
                        Key::Timestamp => h.timestamp = map.next_value::<Leaf>()?.str(),
                        Key::Type => h.kind = map.next_value::<Leaf>()?.str(),
                        Key::IsMeta => h.is_meta = map.next_value::<Leaf>()?.bool(),
                        Key::Message => {
                            let m = map.next_value::<Message>()?;
                            (h.model, h.content) = (m.0, m.1);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Line(h))
            }
        }
        d.deserialize_any(V)
    }
}

/// The keys read, told apart without allocating (an escaped key is still compared by its text).
enum Key {
    SessionId,
    Cwd,
    Slug,
    Timestamp,
    Type,
    IsMeta,
    Message,
    Model,
    Content,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(match s {
                    "sessionId" => Key::SessionId,
                    "cwd" => Key::Cwd,
                    "slug" => Key::Slug,
                    "timestamp" => Key::Timestamp,
                    "type" => Key::Type,
                    "isMeta" => Key::IsMeta,
                    "message" => Key::Message,
                    "model" => Key::Model,
                    "content" => Key::Content,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::HeadLine;
    use serde_json::Value;

    /// What `listing` read before, with `serde_json::Value`.
    fn by_value(line: &str) -> Option<[Option<String>; 8]> {
        let v: Value = serde_json::from_str(line).ok()?;
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let m = v.get("message");
        Some([
            s(v.get("sessionId")),
            s(v.get("cwd")),
            s(v.get("slug")),
            s(v.get("timestamp")),
            s(v.get("type")),
            v.get("isMeta")
                .and_then(Value::as_bool)
                .map(|b| b.to_string()),
            s(m.and_then(|m| m.get("model"))),
            s(m.and_then(|m| m.get("content"))),
        ])
    }

    fn by_head_line(line: &str) -> Option<[Option<String>; 8]> {
        let h = HeadLine::parse(line.as_bytes())?;
        Some([
            h.session_id,
            h.cwd,
            h.slug,
            h.timestamp,
            h.kind,
            h.is_meta.map(|b| b.to_string()),
            h.model,
            h.content,
        ])
    }

    #[test]
    fn reads_what_a_whole_value_gives_on_lines_of_every_shape() {
        let lines = [
            r#"{"type":"user","sessionId":"s1","cwd":"/w","slug":"a-b-c","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","message":{"model":"claude-x","content":[{"type":"text","text":"yo"}],"usage":{"input_tokens":3}}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"<command>"}}"#,
            r#"{"sessionId":7,"cwd":null,"slug":["x"],"timestamp":{"a":1},"isMeta":"yes","message":"text"}"#,
            r#"{"sessionId":"first","sessionId":"last","message":{"model":"a","model":"b"}}"#,
            r#"{"type":"user","message":{"content":"tab\there \"quoted\" é \u00e9"}}"#,
            r#"{"s\u0065ssionId":"escaped-key"}"#,
            r#"[1,2,3]"#,
            r#""a string""#,
            r#"42"#,
            r#"null"#,
            r#"{"type":"user","message":null}"#,
            r#"{"type":"user","message":{"content":"x"}} trailing"#,
            r#"{"type":"user""#,
            r#"{"nested":{"deep":[{"a":{"b":[1,{"c":"d"}]}}]},"type":"summary"}"#,
        ];
        for line in lines {
            assert_eq!(
                by_head_line(line),
                by_value(line),
                "the head's fields of {line} are those a whole Value gives"
            );
        }
    }

    #[test]
    // A test, not the library: it says on stderr when the real data is absent, as the
    // integration tests do.
    #[allow(clippy::print_stderr)]
    fn reads_what_a_whole_value_gives_on_every_line_of_the_real_transcripts() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/real/claude-code");
        let Ok(files) = std::fs::read_dir(&dir) else {
            eprintln!("skipped: {} is absent", dir.display());
            return;
        };
        let mut lines = 0;
        for f in files
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        {
            for line in std::fs::read_to_string(&f).unwrap().lines() {
                lines += 1;
                assert_eq!(
                    by_head_line(line),
                    by_value(line),
                    "{}: the head's fields of every line are those a whole Value gives",
                    f.display()
                );
            }
        }
        assert!(
            lines > 1000,
            "the real transcripts were read: {lines} lines"
        );
    }
}
